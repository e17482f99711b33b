// A managed Redis's failover: its primary endpoint (one address, here a TCP relay) moves to the
// promoted replica, while the API's open connection stays on the demoted node, which answers
// READONLY to every write for as long as that connection lasts. The API reconnects on READONLY:
// a hold or two answer 503, and then holds go to the new primary.
import Redis from 'ioredis';
import { eventKeys } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, RedisProcess, seatGrid, sleep, startApi, startRelay, waitFor, type Relay, type TestApi } from '@holdfast/test-kit';

let primary: RedisProcess;
let replica: RedisProcess;
let endpoint: Relay;
let api: TestApi;

beforeAll(async () => {
  [primary, replica] = await Promise.all([RedisProcess.start(), RedisProcess.start()]);
  endpoint = await startRelay(`http://127.0.0.1:${primary.port}`);
  api = await startApi({ REDIS_URL: `redis://127.0.0.1:${endpoint.port}/0` });
});
afterAll(async () => {
  await api?.close();
  await endpoint?.close();
  await primary?.stop();
  await replica?.stop();
});

test('when a failover moves the Redis endpoint to the promoted replica while the API is connected to the old primary, then holds answer 503 for a moment and are then held on the new primary', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['F'], 1, 20) });
  const k = eventKeys(event.id);
  const hold = (i: number) => api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[i]!.id] } });
  const [oldNode, newNode] = [new Redis(primary.url), new Redis(replica.url)];
  try {
    expect((await hold(0)).status).toBe(201);
    // The replica catches up with the primary, then takes over; the old primary becomes its replica.
    await newNode.replicaof('127.0.0.1', primary.port);
    await waitFor('the replica in sync', async () =>
      /master_link_status:up/.test(await newNode.info('replication')) && (await newNode.exists(k.seat(seats[0]!.id))) === 1,
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
    // The first hold, taken before the failover, is still there on the new primary.
    expect(await newNode.exists(k.seat(seats[0]!.id))).toBe(1);
  } finally {
    oldNode.disconnect();
    newNode.disconnect();
    await dropTestEvent(api, event.id);
  }
});
