// The API's connection to Redis is lost after Redis took a hold but before its
// answer came back (here a relay drops Redis's answers, then cuts the
// connection). The API's client reconnects and sends the hold script again; the
// script answers as its first run did (the same hold, nothing taken twice), so
// the buyer gets 201 with that hold, not 409 for their own seat. The API
// reaches Redis through a relay of the test's own, to a redis-server of its own.
import Redis from 'ioredis';
import { eventKeys } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, RedisProcess, seatGrid, startApi, startRelay, waitFor, type Relay, type TestApi } from '@holdfast/test-kit';

let server: RedisProcess;
let relay: Relay;
let api: TestApi;
let direct: Redis;

beforeAll(async () => {
  server = await RedisProcess.start();
  relay = await startRelay(`http://127.0.0.1:${server.port}`);
  api = await startApi({ REDIS_URL: `redis://127.0.0.1:${relay.port}/0` });
  direct = new Redis(server.url);
});
afterAll(async () => {
  direct?.disconnect();
  await api?.close();
  await relay?.close();
  await server?.stop();
});

test('when the connection to Redis is lost after a hold ran and before its answer came, then the buyer gets that hold (201), held once', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 3) });
  const k = eventKeys(event.id);
  const hold = (seatId: string) => api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer', 'reply-lost'), body: { seatIds: [seatId] } });
  try {
    expect((await hold(seats[2]!.id)).status).toBe(201); // primes the event, loads the hold script
    relay.mute();
    const answered = hold(seats[0]!.id);
    try {
      await waitFor('the hold script to run', async () => (await direct.exists(k.seat(seats[0]!.id))) === 1, { timeoutMs: 5000, intervalMs: 5 });
      relay.cut();
    } finally {
      relay.unmute();
      relay.restore();
    }
    const res = await answered;
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 201, error: undefined });
    expect(res.body.hold.items.map((i: { seatId: string }) => i.seatId)).toEqual([seats[0]!.id]);
    // The seat is this hold's, and the hold reaches PostgreSQL as answered.
    expect(await direct.get(k.seat(seats[0]!.id))).toBe(res.body.hold.id);
    await api.rt.ctx.persister.flush([event.id]);
    expect((await api.rt.db.hold.findUnique({ where: { id: res.body.hold.id } }))?.status).toBe('ACTIVE');
  } finally {
    relay.unmute();
    relay.restore();
    await dropTestEvent(api, event.id);
  }
});
