// Redis goes away under the API and comes back empty: hold requests answer 503
// fast while it is away, and afterwards the event is primed again from PostgreSQL.
// The test runs its own redis-server on a spare loopback port; the shared one is never touched.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { createTestEvent, dropTestEvent, seatGrid, startApi, type TestApi, holdPost, sleep } from '@holdfast/test-kit';

let port: number;
let redis: ChildProcess | null = null;
let api: TestApi;

async function sparePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const p = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return p;
}

async function startRedis(): Promise<void> {
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (up) return;
    await sleep(50);
  }
  throw new Error('redis-server did not start');
}

async function killRedis(): Promise<void> {
  if (!redis) return;
  const exited = new Promise((r) => redis!.once('exit', r));
  redis.kill('SIGKILL');
  await exited;
  redis = null;
}

beforeAll(async () => {
  port = await sparePort();
  await startRedis();
  api = await startApi({ REDIS_URL: `redis://127.0.0.1:${port}/0` });
});
afterAll(async () => {
  await api?.close();
  await killRedis();
});

test('when Redis dies and comes back empty, then holds answer 503 within 2 seconds meanwhile and work again after, primed from PostgreSQL', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 4), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 5 }] });
  try {
    const tt = event.ticketTypes[0].id;
    const before = await holdPost(api, event.id, 'outage-a', { seatIds: [seats[0]!.id] });
    expect(before.status).toBe(201);
    await api.rt.ctx.persister.flush();

    await killRedis();
    for (const body of [{ seatIds: [seats[1]!.id] }, { ticketTypeId: tt, quantity: 1 }, { tier: 'standard', quantity: 1 }]) {
      const started = Date.now();
      const res = await holdPost(api, event.id, 'outage-b', body);
      expect(Date.now() - started).toBeLessThan(2000);
      expect({ status: res.status, error: res.body.error }).toEqual({
        status: 503, error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String), details: { dependency: 'Redis' } },
      });
    }
    const seatMap = await api.call('GET', `/v1/events/${event.id}/seats`);
    expect(seatMap.status).toBe(503);
    const ready = await api.call('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.error.details.down).toEqual(['Redis']);
    // The hold's durable row still answers.
    const get = await api.call('GET', `/v1/holds/${before.body.hold.id}`, { token: api.token('customer', 'outage-a') });
    expect(get.status).toBe(200);

    await startRedis();
    let after = await holdPost(api, event.id, 'outage-b', { seatIds: [seats[1]!.id] });
    for (let i = 0; i < 40 && after.status === 503; i++) {
      await sleep(100);
      after = await holdPost(api, event.id, 'outage-b', { seatIds: [seats[1]!.id] });
    }
    expect(after.status).toBe(201);
    expect((await api.call('GET', '/readyz')).status).toBe(200);
    // PostgreSQL's numbers are back in Redis: 5 tickets, nothing sold.
    expect((await api.call('GET', `/v1/events/${event.id}`)).body.event.ticketTypes[0].available).toBe(5);
    expect((await holdPost(api, event.id, 'outage-c', { ticketTypeId: tt, quantity: 5 })).status).toBe(201);
    await api.rt.ctx.persister.flush();
  } finally {
    await dropTestEvent(api, event.id);
  }
});
