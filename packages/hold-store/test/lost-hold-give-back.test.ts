// A hold script that gets no answer in time (Redis frozen) fails the call, and
// its buyer is answered 503; the script may still run once Redis answers again.
// The store then gives that hold back (give-back-hold-12.lua), sent at once on
// the same connection: the seats or tickets it took are free again, and a retry
// sent after the 503 finds them free. The outages run on a redis-server of the
// test's own; the shared one is never touched.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ENDED_HOLD_TTL_MS, eventKeys, HoldStore, StoreUnavailableError } from '../src';
import { RedisProcess, waitFor } from '@holdfast/test-kit';
import { failFast, holdBase, loadScripts, newEvent, seatJson, ticketJson } from './hold-requests';


const rejection = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => err);

let server: RedisProcess;
let redis: Redis;
let store: HoldStore;

beforeAll(async () => {
  server = await RedisProcess.start();
  redis = failFast(server.port);
  redis.on('error', () => undefined);
  await redis.connect();
  store = new HoldStore(redis);
  // Redis has the hold scripts, as one that served holds before a freeze has them (a hold script
  // it does not have answers NOSCRIPT and runs nothing), but not the give-back, which is rare: it
  // must work all the same.
  await loadScripts(redis, ['giveBackHold']);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});


/**
 * Runs `call` while Redis is frozen: it must fail with a timeout. Redis stays
 * frozen past the timeout of what the store sent after it (the give-back gets
 * no answer in time either). Then Redis answers again, and a PING on the same
 * connection comes back after everything sent before it.
 */
async function timedOutWhileFrozen(call: () => Promise<unknown>): Promise<void> {
  server.pause();
  try {
    const err = await rejection(call());
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreUnavailableError).reason).toBe('timeout');
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    server.resume();
  }
  await redis.ping();
}

/** The hold's outbox entries: the hold script ran when there is one. */
async function outboxEntries(eventId: string, holdId: string): Promise<number> {
  return (await redis.xrange(eventKeys(eventId).outbox, '-', '+')).filter(([, f]) => f[1] === holdId).length;
}

afterEach(async () => {
  const keys = await redis.keys('*');
  if (keys.length) await redis.del(...keys);
});

test('when give-backs time out while Redis is frozen, then they wait for a reconnect until Redis answers again on their connection, and are not kept after', async () => {
  const eventId = await newEvent(store);
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`];
  server.pause();
  try {
    const err = await rejection(store.holdSeats({ ...holdBase(eventId, `h-${randomUUID()}`, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] }));
    expect((err as StoreUnavailableError).reason).toBe('timeout');
    // Its give-back timed out too: kept in case the connection is lost before Redis runs it,
    // and kept while Redis answers nothing (the probe's PING times out as well).
    await waitFor('the give-back to be kept', () => store.undos.size === 1, { timeoutMs: 5000, intervalMs: 10 });
    await new Promise((r) => setTimeout(r, 1500));
    expect(store.undos.size).toBe(1);
  } finally {
    server.resume();
  }
  // Redis answers again on the same connection: the give-back ran (the seat is free), and is no longer kept.
  await waitFor('the kept give-back to be settled', () => store.undos.size === 0, { timeoutMs: 5000, intervalMs: 20 });
  expect(store.undos.dropped).toBe(0);
  expect(await redis.get(eventKeys(eventId).seat(seatIds[0]!))).toBeNull();
});

test('when a seat hold script times out while Redis is frozen, then the hold it took once Redis answers is given back: seats free, record a released tombstone', async () => {
  const eventId = await newEvent(store);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`, `s-${randomUUID()}`];

  await timedOutWhileFrozen(() => store.holdSeats({ ...holdBase(eventId, holdId, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] }));

  // The script ran after all (its outbox entry), and was undone after it.
  expect(await outboxEntries(eventId, holdId)).toBe(1);
  for (const seatId of seatIds) {
    expect(await redis.get(k.seat(seatId))).toBeNull();
    expect(await redis.zscore(k.held, seatId)).toBeNull();
  }
  expect(await redis.hgetall(k.customer(customerId))).toEqual({});
  expect(await redis.hgetall(k.hold(holdId))).toEqual({ status: 'released' });
  // Another buyer takes the seats.
  const other = await store.holdSeats({ ...holdBase(eventId, `h-${randomUUID()}`, 'other'), candidates: [{ seatIds, recordJson: seatJson(eventId, 'other', seatIds) }] });
  expect(other.kind).toBe('ok');
});

test('when a ticket hold script times out while Redis is frozen, then the tickets it took are given back to the ticket type', async () => {
  const ticketTypeId = randomUUID();
  const eventId = await newEvent(store, [{ id: ticketTypeId, capacity: 5, sold: 0 }]);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const recordJson = ticketJson(eventId, customerId, ticketTypeId, 5);

  await timedOutWhileFrozen(() => store.holdTickets({ ...holdBase(eventId, holdId, customerId), ticketTypeId, quantity: 5, recordJson }));

  expect(await outboxEntries(eventId, holdId)).toBe(1);
  expect(await redis.hget(k.ticketType(ticketTypeId), 'held')).toBe('0');
  expect(await redis.hget(k.ticketTypeHolds(ticketTypeId), holdId)).toBeNull();
  expect(await redis.zscore(k.ticketTypeExpiry(ticketTypeId), holdId)).toBeNull();
  expect(await redis.hgetall(k.hold(holdId))).toEqual({ status: 'released' });
  const all = await store.holdTickets({ ...holdBase(eventId, `h-${randomUUID()}`, 'other'), ticketTypeId, quantity: 5, recordJson });
  expect(all.kind).toBe('ok');
});

test('when a best-available hold script times out while Redis is frozen, then the seats it chose are read from its record and given back', async () => {
  const eventId = await newEvent(store);
  const k = eventKeys(eventId);
  const seats = Array.from({ length: 4 }, (_, i) => ({ id: `s-${i}-${randomUUID()}`, rank: i + 1, rowId: 1, number: i + 1, priceCents: 2500, label: `Row 1 ${i + 1}` }));
  await store.syncFreeSeats(eventId, seats, { tiers: [{ tier: 'A', lo: 1, hi: 4 }], seatCount: 4 });
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;

  await timedOutWhileFrozen(() => store.holdBest({ ...holdBase(eventId, holdId, customerId), tier: 'A', quantity: 4, currency: 'EUR' }));

  expect(await outboxEntries(eventId, holdId)).toBe(1);
  for (const s of seats) expect(await redis.get(k.seat(s.id))).toBeNull();
  // Back in the free-seat index, so the next best-available hold finds all four.
  expect(await redis.zcard(k.free)).toBe(4);
  expect(await redis.hgetall(k.hold(holdId))).toEqual({ status: 'released' });
  const next = await store.holdBest({ ...holdBase(eventId, `h-${randomUUID()}`, 'other'), tier: 'A', quantity: 4, currency: 'EUR' });
  expect(next).toMatchObject({ kind: 'ok', seatIds: seats.map((s) => s.id) });
});

test('when the buyer retries after the timeout while Redis is still frozen, then the retry runs after the give-back and gets the seats', async () => {
  const eventId = await newEvent(store);
  const k = eventKeys(eventId);
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`];
  const hold = (holdId: string) => store.holdSeats({ ...holdBase(eventId, holdId, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] });
  const first = `h-${randomUUID()}`;
  const retry = `h-${randomUUID()}`;
  server.pause();
  let retried: Promise<unknown>;
  try {
    const err = await rejection(hold(first));
    expect((err as StoreUnavailableError).reason).toBe('timeout');
    // Sent after the 503, on the same connection, while Redis still answers nothing.
    retried = hold(retry);
  } finally {
    server.resume();
  }
  expect(await retried).toMatchObject({ kind: 'ok' });
  expect(await redis.get(k.seat(seatIds[0]!))).toBe(retry);
  expect(await redis.hget(k.hold(first), 'status')).toBe('released');
  expect(await redis.hget(k.hold(retry), 'status')).toBe('active');
});

test('when the hold script that timed out was refused (the seats were taken), then the give-back leaves the other hold as it was', async () => {
  const eventId = await newEvent(store);
  const k = eventKeys(eventId);
  const seatIds = [`s-${randomUUID()}`];
  const owner = `h-${randomUUID()}`;
  expect((await store.holdSeats({ ...holdBase(eventId, owner, 'owner'), candidates: [{ seatIds, recordJson: seatJson(eventId, 'owner', seatIds) }] })).kind).toBe('ok');
  const lost = `h-${randomUUID()}`;

  await timedOutWhileFrozen(() => store.holdSeats({ ...holdBase(eventId, lost, 'late'), candidates: [{ seatIds, recordJson: seatJson(eventId, 'late', seatIds) }] }));

  expect(await redis.get(k.seat(seatIds[0]!))).toBe(owner);
  expect(await redis.zscore(k.held, seatIds[0]!)).not.toBeNull();
  // For a hold that never was, only its tombstone: the status alone, for the released time.
  expect(await redis.hgetall(k.hold(lost))).toEqual({ status: 'released' });
  expect(await redis.pttl(k.hold(lost))).toBeGreaterThan(ENDED_HOLD_TTL_MS.released - 60_000);
  expect(await outboxEntries(eventId, lost)).toBe(0);
});

test('when a give-back overtakes its hold script (a cluster\'s client sends the script again after a failover), then the script takes nothing when it runs', async () => {
  const eventId = await newEvent(store);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`];
  expect(await store.giveBackHold({ eventId, holdId, customerId, ticketTypeId: null })).toEqual({ kind: 'none' });
  const late = await store.holdSeats({ ...holdBase(eventId, holdId, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] });
  expect(late.kind).toBe('unavailable');
  expect(await redis.get(k.seat(seatIds[0]!))).toBeNull();
  expect(await redis.zscore(k.held, seatIds[0]!)).toBeNull();
  expect(await outboxEntries(eventId, holdId)).toBe(0);
  expect(await redis.hgetall(k.hold(holdId))).toEqual({ status: 'released' });
  // The same for tickets and best available.
  const ticketTypeId = randomUUID();
  const gaEvent = await newEvent(store, [{ id: ticketTypeId, capacity: 5, sold: 0 }]);
  const gaHold = `h-${randomUUID()}`;
  await store.giveBackHold({ eventId: gaEvent, holdId: gaHold, customerId, ticketTypeId });
  const gaJson = ticketJson(gaEvent, customerId, ticketTypeId, 2);
  expect((await store.holdTickets({ ...holdBase(gaEvent, gaHold, customerId), ticketTypeId, quantity: 2, recordJson: gaJson })).kind).not.toBe('ok');
  expect(await redis.hget(eventKeys(gaEvent).ticketType(ticketTypeId), 'held')).toBe('0');
  const seats = Array.from({ length: 2 }, (_, i) => ({ id: `s-${i}-${randomUUID()}`, rank: i + 1, rowId: 1, number: i + 1, priceCents: 2500, label: `Row 1 ${i + 1}` }));
  await store.syncFreeSeats(eventId, seats, { tiers: [{ tier: 'A', lo: 1, hi: 2 }], seatCount: 2 });
  const bestHold = `h-${randomUUID()}`;
  await store.giveBackHold({ eventId, holdId: bestHold, customerId, ticketTypeId: null });
  expect((await store.holdBest({ ...holdBase(eventId, bestHold, customerId), tier: 'A', quantity: 1, currency: 'EUR' })).kind).not.toBe('ok');
  expect(await redis.zcard(k.free)).toBe(2);
});

test('when a give-back finds no hold, an ended hold or a claimed one, then it changes nothing but the unknown hold\'s tombstone', async () => {
  const eventId = await newEvent(store);
  const k = eventKeys(eventId);
  const customerId = `c-${randomUUID()}`;
  const lost = { eventId, customerId, ticketTypeId: null };
  const never = `h-${randomUUID()}`;
  expect(await store.giveBackHold({ ...lost, holdId: never })).toEqual({ kind: 'none' });
  // Given back again: the tombstone it wrote answers as an ended hold.
  expect(await store.giveBackHold({ ...lost, holdId: never })).toEqual({ kind: 'ended' });

  const seatIds = [`s-${randomUUID()}`];
  const holdId = `h-${randomUUID()}`;
  expect((await store.holdSeats({ ...holdBase(eventId, holdId, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] })).kind).toBe('ok');
  // A confirm claims it: the seat stays held.
  const claim = await store.claimHold({ eventId, holdId, customerId, token: 'confirm-1', leaseMs: 30_000, seatIds, ticketTypeId: null, quantity: 1, maxPerCustomer: 20 });
  expect(claim.kind).toBe('live');
  expect(await store.giveBackHold({ ...lost, holdId })).toEqual({ kind: 'claimed' });
  expect(await redis.get(k.seat(seatIds[0]!))).toBe(holdId);

  await redis.del(k.claim(holdId));
  expect(await store.giveBackHold({ ...lost, holdId })).toEqual({ kind: 'given', freed: 1 });
  expect(await store.giveBackHold({ ...lost, holdId })).toEqual({ kind: 'ended' });
  expect(await redis.get(k.seat(seatIds[0]!))).toBeNull();
});

test('when replica acks are asked for (the script and WAIT as one pipeline) and the hold times out while Redis is frozen, then the hold is given back too', async () => {
  const acked = new HoldStore(redis, { replicas: 1, timeoutMs: 50 });
  const eventId = await newEvent(store);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`];

  await timedOutWhileFrozen(() => acked.holdSeats({ ...holdBase(eventId, holdId, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] }));

  expect(await outboxEntries(eventId, holdId)).toBe(1);
  expect(await redis.get(k.seat(seatIds[0]!))).toBeNull();
  expect(await redis.hgetall(k.hold(holdId))).toEqual({ status: 'released' });
});
