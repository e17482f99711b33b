// A managed Redis's failover: its primary endpoint (one address, here a TCP relay) moves to the
// promoted replica, while the open connections of the API and the worker stay on the demoted node,
// which answers READONLY to every write for as long as a connection lasts. Both reconnect on
// READONLY: a hold or two answer 503, then holds go to the new primary and the worker expires them.
import Redis from 'ioredis';
import { eventKeys } from '@holdfast/hold-store';
import {
  createTestEvent, dropTestEvent, expiredHoldRow, isolatedDatabaseUrl, RedisProcess, seatGrid, sleep, startApi, startRelay, waitFor, type Relay, type TestApi,
} from '@holdfast/test-kit';
import { startWorker, type WorkerHandle } from '../src';

let primary: RedisProcess;
let replica: RedisProcess;
let endpoint: Relay;
let api: TestApi;
let worker: WorkerHandle;

beforeAll(async () => {
  [primary, replica] = await Promise.all([RedisProcess.start(), RedisProcess.start()]);
  endpoint = await startRelay(`http://127.0.0.1:${primary.port}`);
  // A database of its own: the worker's sweep sees no other suite's holds.
  api = await startApi({ REDIS_URL: `redis://127.0.0.1:${endpoint.port}/0`, DATABASE_URL: isolatedDatabaseUrl('failover') });
  worker = await startWorker(api.config, { sweepEveryMs: 1000, reconcileEveryMs: 3_600_000, metricsPort: null });
});
afterAll(async () => {
  await worker?.close();
  await api?.close();
  await endpoint?.close();
  await primary?.stop();
  await replica?.stop();
});

test('when a failover moves the Redis endpoint to the promoted replica while the API and the worker are connected to the old primary, then holds answer 503 for a moment, are then held on the new primary, and the worker expires them', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 3, seats: seatGrid(['F'], 1, 20) });
  const k = eventKeys(event.id);
  const hold = (i: number) => api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[i]!.id] } });
  const [oldNode, newNode] = [new Redis(primary.url), new Redis(replica.url)];
  try {
    const before = await hold(0);
    expect(before.status).toBe(201);
    await api.rt.ctx.persister.flush([event.id]);
    // The replica catches up with the primary, then takes over; the old primary becomes its replica.
    await newNode.replicaof('127.0.0.1', primary.port);
    await oldNode.set('test:failover-marker', '1');
    await waitFor('the replica in sync', async () =>
      /master_link_status:up/.test(await newNode.info('replication')) && (await newNode.exists('test:failover-marker')) === 1,
    { timeoutMs: 10_000, intervalMs: 50 });
    await newNode.replicaof('NO', 'ONE');
    await oldNode.replicaof('127.0.0.1', replica.port);
    endpoint.retarget(`http://127.0.0.1:${replica.port}`);

    const statuses: number[] = [];
    let held: { seatId: string; holdId: string } | null = null;
    const deadline = Date.now() + 10_000;
    for (let i = 1; i < seats.length && !held && Date.now() < deadline; i += 1) {
      const res = await hold(i);
      statuses.push(res.status);
      if (res.status === 201) held = { seatId: seats[i]!.id, holdId: res.body.hold.id };
      else await sleep(100);
    }
    // The first hold after the failover went to the old primary, still connected: refused (READONLY).
    expect(statuses[0]).toBe(503);
    expect(statuses.filter((s) => s !== 503 && s !== 201)).toEqual([]);
    expect(held).not.toBeNull();
    expect(await newNode.get(k.seat(held!.seatId))).toBe(held!.holdId);

    // The worker's jobs and sweep reach the new primary too: both holds end EXPIRED in PostgreSQL.
    for (const id of [before.body.hold.id as string, held!.holdId]) {
      const row = await waitFor(`hold ${id} expired by the worker`, () => expiredHoldRow(api, id), { timeoutMs: 20_000, intervalMs: 100 });
      expect(row?.status).toBe('EXPIRED');
    }
  } finally {
    oldNode.disconnect();
    newNode.disconnect();
    await dropTestEvent(api, event.id);
  }
});
