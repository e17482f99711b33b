// What the hold scripts (hold-seats-11, hold-tickets-11, hold-best-12) and a
// confirm's (read-claim-hold-7, end-confirmed-holds-6) leave in Redis and
// publish, byte for byte: the hold record and its TTL, the outbox entry, the
// seat keys and held zset, the ticket type's counters, the customer's entry
// and summary, the claim, the bought count, and the change feed's message.
// Their times are the script's own clock (the reply's now). The scripts build
// these strings themselves (no cjson table, no number formatting by Redis), so
// these tests pin the shapes every consumer reads.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { eventKeys, HOLD_RECORD_TTL_MS } from '../src';
import { events, redis, store, useHoldStore } from './hold-store.fixture';

useHoldStore();

const TTL_MS = 120_000;

const base = (eventId: string, holdId: string, customerId: string) => ({
  eventId, holdId, customerId, ttlMs: TTL_MS, maxPerCustomer: 20, rateLimit: 100, rateWindowMs: 60_000, outboxMaxPending: 1000,
});

async function newEvent(ticketTypes: { id: string; capacity: number; sold: number }[] = []) {
  const eventId = randomUUID();
  events.push(eventId);
  await store.primeEvent({ eventId, ticketTypes, bought: [], soldSeatIds: [] });
  return eventId;
}

/** The messages published on the event's change channel while `run` runs. */
async function published<T>(eventId: string, run: () => Promise<T>): Promise<{ result: T; messages: string[] }> {
  const sub = new Redis(process.env.REDIS_URL!);
  const messages: string[] = [];
  try {
    await sub.subscribe(eventKeys(eventId).channel);
    sub.on('message', (_channel: string, message: string) => messages.push(message));
    const result = await run();
    // A PING on the subscriber's connection comes back after every message published before it.
    await sub.ping();
    return { result, messages };
  } finally {
    sub.disconnect();
  }
}

/**
 * The hold's record (its fields, and a TTL of the lease plus HOLD_RECORD_TTL_MS) and its one
 * outbox entry, as a hold taken at `now` writes them with `json`.
 */
async function expectRecordAndOutbox(eventId: string, holdId: string, json: string, now: number): Promise<void> {
  const k = eventKeys(eventId);
  const expiresAt = now + TTL_MS;
  expect(await redis.hgetall(k.hold(holdId))).toEqual({ json, createdAt: String(now), expiresAt: String(expiresAt), status: 'active' });
  const ttl = await redis.pttl(k.hold(holdId));
  expect(ttl).toBeGreaterThan(TTL_MS + HOLD_RECORD_TTL_MS - 10_000);
  expect(ttl).toBeLessThanOrEqual(TTL_MS + HOLD_RECORD_TTL_MS);
  const entries = (await redis.xrange(k.outbox, '-', '+')).filter(([, f]) => f[1] === holdId);
  expect(entries.map(([, f]) => f)).toEqual([['holdId', holdId, 'createdAt', String(now), 'expiresAt', String(expiresAt), 'json', json]]);
}

describe('what the hold scripts write', () => {
  test('when seats are held, then the record, outbox entry, seat keys, held zset, customer entry and message are as consumers read them', async () => {
    const eventId = await newEvent();
    const k = eventKeys(eventId);
    const holdId = `h-${randomUUID()}`;
    const customerId = `c-${randomUUID()}`;
    // A seat id cjson escapes (a slash), another plain.
    const seatIds = [`s/${randomUUID()}`, `s-${randomUUID()}`];
    const recordJson = JSON.stringify({ eventId, customerId, items: seatIds.map((seatId) => ({ seatId, quantity: 1 })), currency: 'EUR', totalCents: 2000 });
    const { result, messages } = await published(eventId, () =>
      store.holdSeats({ ...base(eventId, holdId, customerId), candidates: [{ seatIds, recordJson }] }));
    if (result.kind !== 'ok') throw new Error(result.kind);
    const now = result.nowMs;
    const expiresAt = now + TTL_MS;

    await expectRecordAndOutbox(eventId, holdId, recordJson, now);
    for (const seatId of seatIds) {
      expect(await redis.get(k.seat(seatId))).toBe(holdId);
      expect(await redis.pttl(k.seat(seatId))).toBeGreaterThan(TTL_MS - 10_000);
      expect(await redis.pttl(k.seat(seatId))).toBeLessThanOrEqual(TTL_MS);
      expect(await redis.zscore(k.held, seatId)).toBe(String(expiresAt));
    }
    expect(await redis.hgetall(k.customer(customerId))).toEqual({ [holdId]: `2:${expiresAt}`, '#': `2:${expiresAt}` });
    expect(messages).toEqual([`{"status":"held","seatIds":["s\\/${seatIds[0]!.slice(2)}","${seatIds[1]}"]}`]);
    // The message is what cjson.encode made of the same table.
    expect(messages[0]).toBe(await redis.eval(`return cjson.encode({ seatIds = { ARGV[1], ARGV[2] }, status = 'held' })`, 0, ...seatIds));
  });

  test('when a customer holds again, then the entry is added and the summary keeps the sum and the earliest expiry', async () => {
    const eventId = await newEvent();
    const k = eventKeys(eventId);
    const customerId = `c-${randomUUID()}`;
    const first = `h-${randomUUID()}`;
    const second = `h-${randomUUID()}`;
    const a = await store.holdSeats({ ...base(eventId, first, customerId), candidates: [{ seatIds: [`s-${randomUUID()}`], recordJson: '{}' }] });
    const b = await store.holdSeats({ ...base(eventId, second, customerId), ttlMs: 2 * TTL_MS, candidates: [{ seatIds: [`s-${randomUUID()}`, `s-${randomUUID()}`], recordJson: '{}' }] });
    if (a.kind !== 'ok' || b.kind !== 'ok') throw new Error('not held');
    expect(await redis.hgetall(k.customer(customerId))).toEqual({
      [first]: `1:${a.nowMs + TTL_MS}`, [second]: `2:${b.nowMs + 2 * TTL_MS}`, '#': `3:${a.nowMs + TTL_MS}`,
    });
  });

  test('when a hold script meets an entry for its hold id in the customer\'s hash (and no record), then the entry is replaced and the summary dropped', async () => {
    const eventId = await newEvent();
    const k = eventKeys(eventId);
    const customerId = `c-${randomUUID()}`;
    const other = `h-${randomUUID()}`;
    const held = await store.holdSeats({ ...base(eventId, other, customerId), candidates: [{ seatIds: [`s-${randomUUID()}`], recordJson: '{}' }] });
    expect(held.kind).toBe('ok');
    // With the summary read as it is (live) and rebuilt first (stale). A hold id of its own each
    // time: one with a record is a script sent again, answered without writing (resent-hold.test.ts).
    for (const summary of ['6:99999999999999', '2:1']) {
      const holdId = `h-${randomUUID()}`;
      await redis.hset(k.customer(customerId), holdId, '5:99999999999999', '#', summary);
      const again = await store.holdSeats({ ...base(eventId, holdId, customerId), candidates: [{ seatIds: [`s-${randomUUID()}`], recordJson: '{}' }] });
      if (again.kind !== 'ok') throw new Error(again.kind);
      const fields = await redis.hgetall(k.customer(customerId));
      expect(fields[holdId]).toBe(`1:${again.nowMs + TTL_MS}`);
      expect(fields[other]).toBe(`1:${held.kind === 'ok' ? held.nowMs + TTL_MS : 0}`);
      expect(fields['#']).toBeUndefined();
    }
  });

  test('when tickets are held, then the counters, record, outbox entry, customer entry and message are as consumers read them', async () => {
    const ticketTypeId = randomUUID();
    const eventId = await newEvent([{ id: ticketTypeId, capacity: 50, sold: 4 }]);
    const k = eventKeys(eventId);
    const holdId = `h-${randomUUID()}`;
    const customerId = `c-${randomUUID()}`;
    const recordJson = JSON.stringify({ eventId, customerId, items: [{ ticketTypeId, quantity: 3 }], currency: 'EUR', totalCents: 1500 });
    const { result, messages } = await published(eventId, () =>
      store.holdTickets({ ...base(eventId, holdId, customerId), ticketTypeId, quantity: 3, recordJson }));
    if (result.kind !== 'ok') throw new Error(result.kind);
    const now = result.nowMs;
    const expiresAt = now + TTL_MS;

    await expectRecordAndOutbox(eventId, holdId, recordJson, now);
    expect(await redis.hget(k.ticketType(ticketTypeId), 'held')).toBe('3');
    expect(await redis.zscore(k.ticketTypeExpiry(ticketTypeId), holdId)).toBe(String(expiresAt));
    expect(await redis.hget(k.ticketTypeHolds(ticketTypeId), holdId)).toBe('3');
    expect(await redis.hgetall(k.customer(customerId))).toEqual({ [holdId]: `3:${expiresAt}`, '#': `3:${expiresAt}` });
    expect(messages).toEqual([`{"available":43,"ticketTypeId":"${ticketTypeId}"}`]);
    expect(messages[0]).toBe(await redis.eval(`return cjson.encode({ ticketTypeId = ARGV[1], available = 43 })`, 0, ticketTypeId));
  });

  test('when best available holds seats, then the record, outbox entry, seat keys, customer entry and message are as consumers read them', async () => {
    const eventId = await newEvent();
    const k = eventKeys(eventId);
    const seats = Array.from({ length: 6 }, (_, i) => ({ id: `s-${i}-${randomUUID()}`, rank: i + 1, rowId: 1, number: i + 1, priceCents: 2500, label: `Row 1 "${i + 1}"` }));
    await store.syncFreeSeats(eventId, seats, { tiers: [{ tier: 'A', lo: 1, hi: 6 }], seatCount: 6 });
    const holdId = `h-${randomUUID()}`;
    const customerId = `c-${randomUUID()}`;
    const { result, messages } = await published(eventId, () =>
      store.holdBest({ ...base(eventId, holdId, customerId), tier: 'A', quantity: 2, currency: 'EUR' }));
    if (result.kind !== 'ok') throw new Error(result.kind);
    const now = result.nowMs;
    const expiresAt = now + TTL_MS;
    const held = seats.slice(0, 2);
    expect(result.seatIds).toEqual(held.map((s) => s.id));
    const json = JSON.stringify({
      eventId, customerId, items: held.map((s) => ({ seatId: s.id, label: s.label, tier: 'A', priceCents: 2500, quantity: 1 })), currency: 'EUR', totalCents: 5000,
    });

    await expectRecordAndOutbox(eventId, holdId, json, now);
    for (const s of held) {
      expect(await redis.get(k.seat(s.id))).toBe(holdId);
      expect(await redis.zscore(k.held, s.id)).toBe(String(expiresAt));
      expect(await redis.zscore(k.free, s.id)).toBeNull();
    }
    expect(await redis.zcard(k.free)).toBe(4);
    expect(await redis.hgetall(k.customer(customerId))).toEqual({ [holdId]: `2:${expiresAt}`, '#': `2:${expiresAt}` });
    expect(messages).toEqual([`{"status":"held","seatIds":["${held[0]!.id}","${held[1]!.id}"]}`]);
  });

  test('when a confirm claims a hold whose lease lapsed, then the seats, held zset, customer entry and claim read until now + lease, as integers', async () => {
    const eventId = await newEvent();
    const k = eventKeys(eventId);
    const holdId = `h-${randomUUID()}`;
    const customerId = `c-${randomUUID()}`;
    const seatIds = [`s-${randomUUID()}`, `s-${randomUUID()}`];
    const recordJson = JSON.stringify({ eventId, customerId, items: seatIds.map((seatId) => ({ seatId, quantity: 1 })), currency: 'EUR', totalCents: 2000 });
    expect((await store.holdSeats({ ...base(eventId, holdId, customerId), ttlMs: 50, candidates: [{ seatIds, recordJson }] })).kind).toBe('ok');
    await new Promise((r) => setTimeout(r, 120));
    const token = randomUUID();
    const before = await store.nowMs();
    const { result, messages } = await published(eventId, () =>
      store.readClaimHold({ eventId, holdId, token, leaseMs: 30_000, maxPerCustomer: 20 }));
    const after = await store.nowMs();
    expect(result).toMatchObject({ kind: 'record', claim: { kind: 'retaken' }, record: { status: 'active' } });
    const until = await redis.hget(k.claim(holdId), token);
    expect(until).toMatch(/^\d+$/);
    expect(Number(until)).toBeGreaterThanOrEqual(before + 30_000);
    expect(Number(until)).toBeLessThanOrEqual(after + 30_000);
    expect(await redis.pttl(k.claim(holdId))).toBeGreaterThan(20_000);
    for (const seatId of seatIds) {
      expect(await redis.get(k.seat(seatId))).toBe(holdId);
      expect(await redis.pttl(k.seat(seatId))).toBeGreaterThan(20_000);
      expect(await redis.zscore(k.held, seatId)).toBe(until);
    }
    expect(await redis.hget(k.customer(customerId), holdId)).toBe(`2:${until}`);
    expect(messages).toEqual([await redis.eval(`return cjson.encode({ seatIds = { ARGV[1], ARGV[2] }, status = 'held' })`, 0, ...seatIds)]);
  });

  test('when confirmed holds end, then the seats are sold, the customer entry and summary gone, bought counted and the message as cjson made it', async () => {
    const eventId = await newEvent();
    const k = eventKeys(eventId);
    const customerId = `c-${randomUUID()}`;
    const holdId = `h-${randomUUID()}`;
    const seatIds = [`s/${randomUUID()}`, `s-${randomUUID()}`];
    const recordJson = JSON.stringify({ eventId, customerId, items: seatIds.map((seatId) => ({ seatId, quantity: 1 })), currency: 'EUR', totalCents: 2000 });
    expect((await store.holdSeats({ ...base(eventId, holdId, customerId), candidates: [{ seatIds, recordJson }] })).kind).toBe('ok');
    await redis.hset(k.bought, customerId, '3');
    const { result, messages } = await published(eventId, () =>
      store.endConfirmedHolds(eventId, [{ eventId, holdId, customerId, seatIds, ticketTypeId: null, quantity: 2 }]));
    expect(result).toEqual([{ applied: true, freed: 2, offers: 0 }]);
    for (const seatId of seatIds) {
      expect(await redis.exists(k.seat(seatId))).toBe(0);
      expect(await redis.sismember(k.sold, seatId)).toBe(1);
      expect(await redis.zscore(k.held, seatId)).toBeNull();
    }
    expect(await redis.hgetall(k.customer(customerId))).toEqual({});
    expect(await redis.hget(k.bought, customerId)).toBe('5');
    expect(await redis.hgetall(k.hold(holdId))).toEqual({ status: 'confirmed' });
    expect(messages).toEqual([await redis.eval(`return cjson.encode({ seatIds = { ARGV[1], ARGV[2] }, status = 'sold' })`, 0, ...seatIds)]);
    expect(messages[0]).toBe(`{"status":"sold","seatIds":["s\\/${seatIds[0]!.slice(2)}","${seatIds[1]}"]}`);
  });

  test('when a hold ends and its customer has other holds, then its entry and the summary go and the next hold rebuilds the summary', async () => {
    const eventId = await newEvent();
    const k = eventKeys(eventId);
    const customerId = `c-${randomUUID()}`;
    const ended = `h-${randomUUID()}`;
    const kept = `h-${randomUUID()}`;
    const seat = `s-${randomUUID()}`;
    const a = await store.holdSeats({ ...base(eventId, kept, customerId), candidates: [{ seatIds: [`s-${randomUUID()}`], recordJson: '{}' }] });
    expect((await store.holdSeats({ ...base(eventId, ended, customerId), candidates: [{ seatIds: [seat], recordJson: '{}' }] })).kind).toBe('ok');
    if (a.kind !== 'ok') throw new Error(a.kind);
    await store.endHold({ eventId, holdId: ended, customerId, mode: 'released', seatIds: [seat], ticketTypeId: null, quantity: 1 });
    expect(await redis.hgetall(k.customer(customerId))).toEqual({ [kept]: `1:${a.nowMs + TTL_MS}` });
    const next = `h-${randomUUID()}`;
    const b = await store.holdSeats({ ...base(eventId, next, customerId), candidates: [{ seatIds: [`s-${randomUUID()}`], recordJson: '{}' }] });
    if (b.kind !== 'ok') throw new Error(b.kind);
    expect(await redis.hgetall(k.customer(customerId))).toEqual({
      [kept]: `1:${a.nowMs + TTL_MS}`, [next]: `1:${b.nowMs + TTL_MS}`, '#': `2:${a.nowMs + TTL_MS}`,
    });
  });
});
