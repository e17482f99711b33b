// A hold script sent again for the same request: ioredis resends what was left
// unanswered when its connection closed, so a hold that ran just before the
// connection was lost runs a second time once the client reconnects. That run
// answers as the first one did and writes nothing (includes/replayed-hold),
// instead of finding the seats taken by that very hold (409 to the buyer, and a
// hold nobody was told of). The connection runs through a relay of the test's
// own, to a redis-server of its own; the shared one is never touched.
import { randomUUID } from 'node:crypto';
import { eventKeys, IdempotencyStore } from '../src';
import { holdBase, newEvent, relayedRedis, runWithAnswerLost, seatJson, ticketJson } from './hold-requests';

const env = relayedRedis();
afterEach(async () => {
  await env.direct.flushdb();
});

/** What Redis holds of an event and a customer, to compare before and after a script is sent again. */
async function state(eventId: string, customerId: string) {
  const k = eventKeys(eventId);
  return {
    outbox: (await env.direct.xrange(k.outbox, '-', '+')).map(([, f]) => f),
    customer: await env.direct.hgetall(k.customer(customerId)),
    counted: await env.direct.get(k.rateLimit(customerId)),
    held: await env.direct.zrange(k.held, 0, -1, 'WITHSCORES'),
  };
}

/**
 * Runs `call` with the answer lost: the relay drops what Redis answers until the script has
 * run (its record is there), then cuts the connection. The client reconnects and sends the
 * script again; the call resolves with that second run's answer.
 */
async function answerLost<T>(eventId: string, holdId: string, call: () => Promise<T>): Promise<T> {
  return sentAgain(async () => (await env.direct.exists(eventKeys(eventId).hold(holdId))) === 1, call);
}

/** `call` with its answer lost once `ran`, and the connection back: its answer is the second run's. */
async function sentAgain<T>(ran: () => Promise<boolean>, call: () => Promise<T>): Promise<T> {
  const { answered } = await runWithAnswerLost(env, ran, call);
  await env.relay.restore();
  return answered;
}

test('when a seat hold\'s answer is lost with its connection and the script is sent again, then the call gets the hold, written once', async () => {
  const eventId = await newEvent(env.store);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`, `s-${randomUUID()}`];
  const recordJson = seatJson(eventId, customerId, seatIds);
  const held = await answerLost(eventId, holdId, () => env.store.holdSeats({ ...holdBase(eventId, holdId, customerId), candidates: [
    { seatIds: [`s-${randomUUID()}`], recordJson: '{}' }, { seatIds, recordJson },
  ] }));
  // The first candidate was free too: taken by the first run, answered as that run answered.
  const record = await env.direct.hgetall(k.hold(holdId));
  expect(record.json).toBe('{}');
  expect(held).toEqual({ kind: 'ok', candidate: 1, nowMs: Number(record.createdAt) });
  const s = await state(eventId, customerId);
  expect(s.outbox).toHaveLength(1);
  expect(s.counted).toBe('1');
  expect(Object.keys(s.customer)).toContain(holdId);
  // Sent again by hand, once more: the same answer, nothing written.
  expect(await env.store.holdSeats({ ...holdBase(eventId, holdId, customerId), candidates: [{ seatIds: [`s-${randomUUID()}`], recordJson: '{}' }, { seatIds, recordJson }] }))
    .toEqual(held);
  expect(await state(eventId, customerId)).toEqual(s);
});

test('when a ticket hold\'s answer is lost and the script is sent again, then the call gets the hold and the tickets are held once', async () => {
  const ticketTypeId = randomUUID();
  const eventId = await newEvent(env.store, [{ id: ticketTypeId, capacity: 5, sold: 0 }]);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const recordJson = ticketJson(eventId, customerId, ticketTypeId, 3);
  const held = await answerLost(eventId, holdId, () => env.store.holdTickets({ ...holdBase(eventId, holdId, customerId), ticketTypeId, quantity: 3, recordJson }));
  expect(held).toEqual({ kind: 'ok', candidate: 1, nowMs: Number(await env.direct.hget(k.hold(holdId), 'createdAt')) });
  // Held once: a second run would have made it 6 (over the capacity of 5: SOLD_OUT).
  expect(await env.direct.hget(k.ticketType(ticketTypeId), 'held')).toBe('3');
  expect((await state(eventId, customerId)).outbox).toHaveLength(1);
});

test('when a best-available hold\'s answer is lost and the script is sent again, then the call gets the seats the first run chose', async () => {
  const eventId = await newEvent(env.store);
  const seats = Array.from({ length: 4 }, (_, i) => ({ id: `s-${i}-${randomUUID()}`, rank: i + 1, rowId: 1, number: i + 1, priceCents: 2500, label: `Row 1 ${i + 1}` }));
  await env.store.syncFreeSeats(eventId, seats, { tiers: [{ tier: 'A', lo: 1, hi: 4 }], seatCount: 4 });
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const held = await answerLost(eventId, holdId, () => env.store.holdBest({ ...holdBase(eventId, holdId, customerId), tier: 'A', quantity: 2, currency: 'EUR' }));
  expect(held).toMatchObject({ kind: 'ok', seatIds: [seats[0]!.id, seats[1]!.id] });
  expect(await env.direct.zcard(eventKeys(eventId).free)).toBe(2);
  expect((await state(eventId, customerId)).outbox).toHaveLength(1);
});

test('when a hold that was given back is sent again, then nothing is taken again', async () => {
  const eventId = await newEvent(env.store);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`];
  const req = { ...holdBase(eventId, holdId, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] };
  expect((await env.store.holdSeats(req)).kind).toBe('ok');
  expect(await env.store.giveBackHold({ eventId, holdId, customerId, ticketTypeId: null })).toEqual({ kind: 'given', freed: 1 });
  const before = await state(eventId, customerId);
  expect(await env.store.holdSeats(req)).toEqual({ kind: 'unavailable', seatIds });
  expect(await env.direct.get(k.seat(seatIds[0]!))).toBeNull();
  expect(await state(eventId, customerId)).toEqual(before);
});

test('when an Idempotency-Key claim\'s answer is lost and the claim is sent again, then the request owns the key (not "in progress" to itself)', async () => {
  const idempotency = new IdempotencyStore(env.redis);
  const principal = `p-${randomUUID()}`;
  const key = `k-${randomUUID()}`;
  const redisKey = IdempotencyStore.redisKey(principal, key);
  const claim = await sentAgain(async () => (await env.direct.exists(redisKey)) === 1, () => idempotency.begin(principal, key, 'fp-1'));
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

test('when the answer to a claim that took a key over is lost and the claim is sent again, then the request holds the claim, taken over, with the earlier request\'s seed', async () => {
  const idempotency = new IdempotencyStore(env.redis, 200);
  const principal = `p-${randomUUID()}`;
  const key = `k-${randomUUID()}`;
  const redisKey = IdempotencyStore.redisKey(principal, key);
  const first = await idempotency.begin(principal, key, 'fp');
  if (first.kind !== 'started') throw new Error(first.kind);
  await new Promise((r) => setTimeout(r, 250)); // the first request's lease lapses: it never answers
  const claim = await sentAgain(async () => (await env.direct.hget(redisKey, 'token')) !== first.token, () => idempotency.begin(principal, key, 'fp'));
  expect(claim.kind === 'started' && { seed: claim.seed, takenOver: claim.takenOver }).toEqual({ seed: first.seed, takenOver: true });
  if (claim.kind !== 'started') return;
  expect(await env.direct.hget(redisKey, 'token')).toBe(claim.token);
  expect(await idempotency.complete(principal, key, claim.token, 201, '{}')).toBe(true);
});
