// A hold script sent again for the same request: ioredis resends what was left
// unanswered when its connection closed, so a hold that ran just before the
// connection was lost runs a second time once the client reconnects. That run
// answers as the first one did and writes nothing (includes/replayed-hold),
// instead of finding the seats taken by that very hold (409 to the buyer, and a
// hold nobody was told of). The connection runs through a relay of the test's
// own, to a redis-server of its own; the shared one is never touched.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { eventKeys, HoldStore, IdempotencyStore } from '../src';
import { RedisProcess, startRelay, waitFor, type Relay } from '@holdfast/test-kit';
import { holdBase, loadScripts, newEvent, seatJson } from './hold-requests';

let server: RedisProcess;
let relay: Relay;
/** The API's fail-fast client (apps/api runtime.ts), through the relay. */
let redis: Redis;
/** Straight to the server: what the test reads. */
let direct: Redis;
let store: HoldStore;

beforeAll(async () => {
  server = await RedisProcess.start();
  relay = await startRelay(`redis://127.0.0.1:${server.port}`);
  redis = new Redis({
    host: '127.0.0.1', port: relay.port, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000, connectTimeout: 1500,
    retryStrategy: (times) => Math.min(100 * times, 1000), lazyConnect: true,
  });
  redis.on('error', () => undefined);
  await redis.connect();
  direct = new Redis(server.url);
  store = new HoldStore(redis);
  // Redis has the scripts (the NOSCRIPT answer must not be the one the relay drops).
  await loadScripts(direct);
});
afterAll(async () => {
  redis?.disconnect();
  direct?.disconnect();
  await relay?.close();
  await server?.stop();
});
afterEach(async () => {
  relay.unmute();
  relay.restore();
  await direct.flushdb();
  await waitFor('the client to be connected again', () => redis.status === 'ready', { timeoutMs: 5000, intervalMs: 10 });
});


/** What Redis holds of an event and a customer, to compare before and after a script is sent again. */
async function state(eventId: string, customerId: string) {
  const k = eventKeys(eventId);
  return {
    outbox: (await direct.xrange(k.outbox, '-', '+')).map(([, f]) => f),
    customer: await direct.hgetall(k.customer(customerId)),
    counted: await direct.get(k.rateLimit(customerId)),
    held: await direct.zrange(k.held, 0, -1, 'WITHSCORES'),
  };
}

/**
 * Runs `call` with the answer lost: the relay drops what Redis answers until the script has
 * run (its record is there), then cuts the connection. The client reconnects and sends the
 * script again; the call resolves with that second run's answer.
 */
async function answerLost<T>(eventId: string, holdId: string, call: () => Promise<T>): Promise<T> {
  relay.mute();
  const answered = call();
  await waitFor('the hold script to run', async () => (await direct.exists(eventKeys(eventId).hold(holdId))) === 1, { timeoutMs: 5000, intervalMs: 5 });
  relay.cut();
  relay.unmute();
  relay.restore();
  return answered;
}

test('when a seat hold\'s answer is lost with its connection and the script is sent again, then the call gets the hold, written once', async () => {
  const eventId = await newEvent(store);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`, `s-${randomUUID()}`];
  const recordJson = seatJson(eventId, customerId, seatIds);
  const held = await answerLost(eventId, holdId, () => store.holdSeats({ ...holdBase(eventId, holdId, customerId), candidates: [
    { seatIds: [`s-${randomUUID()}`], recordJson: '{}' }, { seatIds, recordJson },
  ] }));
  // The first candidate was free too: taken by the first run, answered as that run answered.
  const record = await direct.hgetall(k.hold(holdId));
  expect(record.json).toBe('{}');
  expect(held).toEqual({ kind: 'ok', candidate: 1, nowMs: Number(record.createdAt) });
  const s = await state(eventId, customerId);
  expect(s.outbox).toHaveLength(1);
  expect(s.counted).toBe('1');
  expect(Object.keys(s.customer)).toContain(holdId);
  // Sent again by hand, once more: the same answer, nothing written.
  expect(await store.holdSeats({ ...holdBase(eventId, holdId, customerId), candidates: [{ seatIds: [`s-${randomUUID()}`], recordJson: '{}' }, { seatIds, recordJson }] }))
    .toEqual(held);
  expect(await state(eventId, customerId)).toEqual(s);
});

test('when a ticket hold\'s answer is lost and the script is sent again, then the call gets the hold and the tickets are held once', async () => {
  const ticketTypeId = randomUUID();
  const eventId = await newEvent(store, [{ id: ticketTypeId, capacity: 5, sold: 0 }]);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const recordJson = JSON.stringify({ eventId, customerId, items: [{ ticketTypeId, quantity: 3 }], currency: 'EUR', totalCents: 3000 });
  const held = await answerLost(eventId, holdId, () => store.holdTickets({ ...holdBase(eventId, holdId, customerId), ticketTypeId, quantity: 3, recordJson }));
  expect(held).toEqual({ kind: 'ok', candidate: 1, nowMs: Number(await direct.hget(k.hold(holdId), 'createdAt')) });
  // Held once: a second run would have made it 6 (over the capacity of 5: SOLD_OUT).
  expect(await direct.hget(k.ticketType(ticketTypeId), 'held')).toBe('3');
  expect((await state(eventId, customerId)).outbox).toHaveLength(1);
});

test('when a best-available hold\'s answer is lost and the script is sent again, then the call gets the seats the first run chose', async () => {
  const eventId = await newEvent(store);
  const seats = Array.from({ length: 4 }, (_, i) => ({ id: `s-${i}-${randomUUID()}`, rank: i + 1, rowId: 1, number: i + 1, priceCents: 2500, label: `Row 1 ${i + 1}` }));
  await store.syncFreeSeats(eventId, seats, { tiers: [{ tier: 'A', lo: 1, hi: 4 }], seatCount: 4 });
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const held = await answerLost(eventId, holdId, () => store.holdBest({ ...holdBase(eventId, holdId, customerId), tier: 'A', quantity: 2, currency: 'EUR' }));
  expect(held).toMatchObject({ kind: 'ok', seatIds: [seats[0]!.id, seats[1]!.id] });
  expect(await direct.zcard(eventKeys(eventId).free)).toBe(2);
  expect((await state(eventId, customerId)).outbox).toHaveLength(1);
});

test('when a hold that was given back is sent again, then nothing is taken again', async () => {
  const eventId = await newEvent(store);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`];
  const req = { ...holdBase(eventId, holdId, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] };
  expect((await store.holdSeats(req)).kind).toBe('ok');
  expect(await store.giveBackHold({ eventId, holdId, customerId, ticketTypeId: null })).toEqual({ kind: 'given', freed: 1 });
  const before = await state(eventId, customerId);
  expect(await store.holdSeats(req)).toEqual({ kind: 'unavailable', seatIds });
  expect(await direct.get(k.seat(seatIds[0]!))).toBeNull();
  expect(await state(eventId, customerId)).toEqual(before);
});

test('when an Idempotency-Key claim\'s answer is lost and the claim is sent again, then the request owns the key (not "in progress" to itself)', async () => {
  const idempotency = new IdempotencyStore(redis);
  const principal = `p-${randomUUID()}`;
  const key = `k-${randomUUID()}`;
  const redisKey = IdempotencyStore.redisKey(principal, key);
  relay.mute();
  const claimed = idempotency.begin(principal, key, 'fp-1');
  await waitFor('the claim to run', async () => (await direct.exists(redisKey)) === 1, { timeoutMs: 5000, intervalMs: 5 });
  relay.cut();
  relay.unmute();
  relay.restore();
  const claim = await claimed;
  expect(claim.kind).toBe('started');
  if (claim.kind !== 'started') return;
  // Its answer is stored under its token; the same request again is replayed.
  expect(await idempotency.complete(principal, key, claim.token, 201, '{"ok":true}')).toBe(true);
  expect(await idempotency.begin(principal, key, 'fp-1')).toEqual({ kind: 'done', status: 201, body: '{"ok":true}' });
  // Another request with the key while one runs is still told so.
  const other = `k-${randomUUID()}`;
  expect((await idempotency.begin(principal, other, 'fp-2')).kind).toBe('started');
  expect(await idempotency.begin(principal, other, 'fp-2')).toEqual({ kind: 'running' });
});
