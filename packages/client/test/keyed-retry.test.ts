// The client sends a call with an Idempotency-Key again when its connection was
// lost before the answer (the same key: the server answers what the first
// attempt did), and waits out 409 IDEMPOTENCY_IN_PROGRESS. So a buyer whose API
// process died in the middle of their hold gets that hold from the next
// process, without doing anything. The client reaches the API through a relay
// of the test's own (cut, or sent to another API process, as a balancer would).
import { randomUUID } from 'node:crypto';
import { eventKeys } from '@holdfast/hold-store';
import { ApiProcess, seatGrid, startRelay, useTestApi, waitFor, type Relay } from '@holdfast/test-kit';
import { createHoldfastClient, type HoldfastClientOptions } from '../src';
import { caught } from './caught';

// Long enough that the client's first attempt after the kill (a quarter second later) comes while the
// dead request's claim still runs, even on a loaded machine.
const LEASE_MS = 4000;
const relays: Relay[] = [];
let api1: ApiProcess | undefined;
// Declared before useTestApi's own afterAll (which drops the events and closes the API).
afterAll(async () => {
  await api1?.endWith('SIGKILL');
  for (const r of relays) await r.close();
});
const suite = useTestApi({ HOLD_IDEMPOTENCY_LEASE_MS: String(LEASE_MS) });
/** Redis as the in-process API reaches it (directly, not through any relay here). */
const direct = { get: (key: string) => suite.api.rt.redis.get(key), exists: (key: string) => suite.api.rt.redis.exists(key), hgetall: (key: string) => suite.api.rt.redis.hgetall(key) };

async function relayTo(target: string): Promise<Relay> {
  const relay = await startRelay(target);
  relays.push(relay);
  return relay;
}

/** A buyer's client through `relay`; `sent`: each attempt that got an answer (its key and status), and those that did not. */
function buyerThrough(relay: Relay, more: Partial<HoldfastClientOptions> = {}) {
  const sent: { key: string | null; status: number | 'lost' }[] = [];
  const customer = `keyed-retry-${randomUUID()}`;
  const token = suite.api.token('customer', customer);
  const client = createHoldfastClient({
    baseUrl: relay.url,
    token,
    fetch: async (request) => {
      const key = request.headers.get('Idempotency-Key');
      if (key) suite.api.trackIdempotencyKey(token, key); // its claim and answer are kept a day: removed at close
      try {
        const response = await fetch(request);
        sent.push({ key: request.headers.get('Idempotency-Key'), status: response.status });
        return response;
      } catch (error) {
        sent.push({ key: request.headers.get('Idempotency-Key'), status: 'lost' });
        throw error;
      }
    },
    ...more,
  });
  return { client, sent, customer };
}

test('when the connection is lost after the server took the hold and before its answer came, then the client sends it again with its key and gets that hold', async () => {
  const { event, seats } = await suite.newEvent({ seats: seatGrid(['R'], 1, 2) });
  const seatKey = eventKeys(event.id).seat(seats[0]!.id);
  const relay = await relayTo(suite.api.url);
  const buyer = buyerThrough(relay);
  relay.mute();
  const held = buyer.client.hold(event.id, { seatIds: [seats[0]!.id] });
  await waitFor('the hold to be taken', async () => (await direct.exists(seatKey)) === 1, { timeoutMs: 5000, intervalMs: 5 });
  relay.cut();
  relay.unmute();
  await relay.restore();
  const hold = await held;
  expect(hold.id).toBe(await direct.get(seatKey));
  expect(hold.items.map((i) => ('seatId' in i ? i.seatId : null))).toEqual([seats[0]!.id]);
  // Two attempts (or more, were the first still running), one key; the last answered 201.
  expect(buyer.sent[0]!.status).toBe('lost');
  expect(buyer.sent.at(-1)!.status).toBe(201);
  expect(new Set(buyer.sent.map((s) => s.key)).size).toBe(1);
  expect(buyer.sent[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
});

test('when the connection is lost and the call has no key, or retries are off, then the client throws NETWORK_ERROR after one attempt', async () => {
  const { event, seats } = await suite.newEvent({ seats: seatGrid(['N'], 1, 2) });
  for (const [i, more] of [{ idempotencyKey: false }, { retry: false }].entries() as Iterable<[number, Partial<HoldfastClientOptions>]>) {
    const seatKey = eventKeys(event.id).seat(seats[i]!.id);
    const relay = await relayTo(suite.api.url);
    const buyer = buyerThrough(relay, more);
    relay.mute();
    const held = caught(buyer.client.hold(event.id, { seatIds: [seats[i]!.id] }));
    await waitFor('the hold to be taken', async () => (await direct.exists(seatKey)) === 1, { timeoutMs: 5000, intervalMs: 5 });
    relay.cut();
    const error = await held;
    expect({ more, code: error.code, sent: buyer.sent.map((s) => s.status) }).toEqual({ more, code: 'NETWORK_ERROR', sent: ['lost'] });
    relay.unmute();
  }
});

test('when the API process dies after it took the hold and before it answered, then the client\'s next attempt, through another API process, waits out IDEMPOTENCY_IN_PROGRESS and gets that hold', async () => {
  const { event, seats } = await suite.newEvent({ seats: seatGrid(['D'], 1, 2) });
  const seatKey = eventKeys(event.id).seat(seats[0]!.id);
  const redisUrl = new URL(suite.api.config.redisUrl);
  const toRedis = await relayTo(`http://${redisUrl.hostname}:${redisUrl.port || 6379}`);
  api1 = await ApiProcess.start({
    DATABASE_URL: suite.api.config.databaseUrl,
    REDIS_URL: `redis://127.0.0.1:${toRedis.port}${redisUrl.pathname}`,
    HOLD_IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
  });
  // The balancer: API 1 until it dies, then the other process.
  const balancer = await relayTo(api1.url);
  const buyer = buyerThrough(balancer);
  // API 1's Redis answers stop from the hold script on (it names the seat's key).
  toRedis.muteOnceSent(seatKey);
  const startedAt = Date.now();
  const held = buyer.client.hold(event.id, { seatIds: [seats[0]!.id] });
  await waitFor('API 1 to take the hold', async () => (await direct.exists(seatKey)) === 1, { timeoutMs: 5000, intervalMs: 5 });
  balancer.retarget(suite.api.url);
  await api1.endWith('SIGKILL');
  const hold = await held;
  const tookMs = Date.now() - startedAt;
  expect(hold.id).toBe(await direct.get(seatKey));
  expect(hold.status).toBe('active');
  const statuses = buyer.sent.map((s) => s.status);
  expect(statuses[0]).toBe('lost');
  expect(statuses.at(-1)).toBe(201);
  // Between them, the other process answered 409 IDEMPOTENCY_IN_PROGRESS until the dead request's claim lapsed.
  expect(statuses.slice(1, -1).every((s) => s === 409)).toBe(true);
  expect(statuses.length).toBeGreaterThan(2);
  expect(tookMs).toBeGreaterThanOrEqual(LEASE_MS);
  expect(new Set(buyer.sent.map((s) => s.key)).size).toBe(1);
  const mine = await direct.hgetall(eventKeys(event.id).customer(buyer.customer));
  expect(Object.keys(mine).filter((f) => f.startsWith('hld_'))).toEqual([hold.id]);
});
