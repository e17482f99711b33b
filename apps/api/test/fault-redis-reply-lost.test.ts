// The API's connection to Redis is lost after Redis took a hold but before its
// answer came back (here a relay drops Redis's answers, then cuts the
// connection). When the client reconnects in time it sends the hold script
// again; the script answers as its first run did (the same hold, nothing taken
// twice), so the buyer gets 201 with that hold, not 409 for their own seat.
// When Redis stays unreachable past the request's budget, the buyer gets 503
// and the hold is given back once Redis can be reached, so their retry gets
// the seat. The API reaches Redis through a relay of the test's own, to a
// redis-server of its own.
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

afterEach(async () => {
  relay.unmute();
  await relay.restore();
});

/**
 * An event of three seats, primed by a hold of the third (which loads the hold script), and a
 * hold of the first sent while the relay drops Redis's answers: resolved once its script ran.
 */
async function holdWithAnswerDropped(customer: string) {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 3) });
  const k = eventKeys(event.id);
  const hold = (seatId: string) => api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer', customer), body: { seatIds: [seatId] } });
  expect((await hold(seats[2]!.id)).status).toBe(201);
  relay.mute();
  const answered = hold(seats[0]!.id);
  await waitFor('the hold script to run', async () => (await direct.exists(k.seat(seats[0]!.id))) === 1, { timeoutMs: 5000, intervalMs: 5 });
  return { event, seats, k, hold, answered };
}

test('when the connection to Redis is lost after a hold ran and before its answer came, then the buyer gets that hold (201), held once', async () => {
  const { event, seats, k, answered } = await holdWithAnswerDropped('reply-lost');
  try {
    relay.cut();
    relay.unmute();
    await relay.restore();
    const res = await answered;
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 201, error: undefined });
    expect(res.body.hold.items.map((i: { seatId: string }) => i.seatId)).toEqual([seats[0]!.id]);
    // The seat is this hold's, and the hold reaches PostgreSQL as answered.
    expect(await direct.get(k.seat(seats[0]!.id))).toBe(res.body.hold.id);
    await api.rt.ctx.persister.flush([event.id]);
    expect((await api.rt.db.hold.findUnique({ where: { id: res.body.hold.id } }))?.status).toBe('ACTIVE');
  } finally {
    relay.unmute();
    await relay.restore();
    await dropTestEvent(api, event.id);
  }
});

test('when the connection to Redis is lost after a hold ran and Redis stays unreachable, then the buyer gets 503 and, once Redis is back, their retry gets the seat', async () => {
  const { event, seats, k, hold, answered } = await holdWithAnswerDropped('unreachable');
  try {
    // Redis's port refuses connections (as a Redis that died): the API's client gives up on the call.
    relay.cut({ refuse: true });
    relay.unmute();
    const res = await answered;
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    const ghost = await direct.get(k.seat(seats[0]!.id));
    expect(ghost).not.toBeNull(); // the hold the buyer was not given is still in Redis
    // Its give-back waits for Redis, and /metrics says so.
    await waitFor('the give-back to wait', () => api.rt.ctx.store.undos.size === 1, { timeoutMs: 2000, intervalMs: 10 });
    expect(await api.rt.metrics.registry.metrics()).toMatch(/^holdfast_redis_undos_pending 1$/m);
    await relay.restore();
    await waitFor('the hold to be given back', async () => (await direct.get(k.seat(seats[0]!.id))) === null, { timeoutMs: 5000, intervalMs: 10 });
    await waitFor('nothing left to give back', () => api.rt.ctx.store.undos.size === 0, { timeoutMs: 2000, intervalMs: 10 });
    expect(await api.rt.metrics.registry.metrics()).toMatch(/^holdfast_redis_undos_pending 0$/m);
    const retry = await hold(seats[0]!.id);
    expect({ status: retry.status, error: retry.body.error }).toEqual({ status: 201, error: undefined });
    expect(retry.body.hold.id).not.toBe(ghost);
  } finally {
    relay.unmute();
    await relay.restore();
    await dropTestEvent(api, event.id);
  }
});
