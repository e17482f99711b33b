// A confirm's Redis steps in fewer round trips: its hold read and claimed in one
// script (read-claim-hold-7.lua), and a committed batch's holds ended as confirmed
// in one script call per event (end-confirmed-holds-6.lua, endConfirmedHold).
// Checked on the real Redis: the state each leaves, and the calls on the client's socket.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ENDED_HOLD_TTL_MS, eventKeyPattern, eventKeys, scriptSource } from '../src';
import { events, redis, store, useHoldStore } from './hold-store.fixture';

useHoldStore();

const base = (eventId: string, holdId: string, customerId: string, ttlMs: number) => ({
  eventId, holdId, customerId, ttlMs, maxPerCustomer: 10, rateLimit: 100, rateWindowMs: 60_000, outboxMaxPending: 1000,
});

async function newEvent(ticketTypes: { id: string; capacity: number; sold: number }[] = []) {
  const eventId = randomUUID();
  events.push(eventId);
  await store.primeEvent({ eventId, ticketTypes, bought: [], soldSeatIds: [] });
  return eventId;
}

/** A seat hold whose record carries its items as the API writes them. */
async function seatHold(eventId: string, ttlMs: number, seats = 2) {
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const seatIds = Array.from({ length: seats }, () => `s-${randomUUID()}`);
  const items = seatIds.map((seatId) => ({ seatId, label: seatId, tier: 'A', priceCents: 1000, quantity: 1 }));
  const recordJson = JSON.stringify({ eventId, customerId, items, totalCents: 1000 * seats, currency: 'EUR' });
  expect((await store.holdSeats({ ...base(eventId, holdId, customerId, ttlMs), candidates: [{ seatIds, recordJson }] })).kind).toBe('ok');
  return { eventId, holdId, customerId, seatIds, ticketTypeId: null, quantity: seats };
}

async function ticketHold(eventId: string, ticketTypeId: string, quantity: number, ttlMs: number) {
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const items = [{ ticketTypeId, name: 'GA', priceCents: 500, quantity }];
  const recordJson = JSON.stringify({ eventId, customerId, items, totalCents: 500 * quantity, currency: 'EUR' });
  expect((await store.holdTickets({ ...base(eventId, holdId, customerId, ttlMs), ticketTypeId, quantity, recordJson })).kind).toBe('ok');
  return { eventId, holdId, customerId, seatIds: [] as string[], ticketTypeId, quantity };
}

const claimOf = (h: { eventId: string; holdId: string }, leaseMs = 30_000) => ({
  eventId: h.eventId, holdId: h.holdId, token: randomUUID(), leaseMs, maxPerCustomer: 10,
});

/** Script calls (commands) and socket writes on the client's socket while `run` runs. */
async function countCalls<T>(run: () => Promise<T>): Promise<{ result: T; writes: number; commands: number }> {
  type Write = (this: Socket, ...args: unknown[]) => unknown;
  const socket = (redis as unknown as { stream: Socket & { _write: Write; _writev: Write } }).stream;
  const { _write, _writev } = socket;
  let writes = 0;
  let commands = 0;
  socket._write = function (this: Socket, ...args: unknown[]) {
    writes += 1;
    commands += 1;
    return _write.apply(this, args);
  };
  socket._writev = function (this: Socket, ...args: unknown[]) {
    writes += 1;
    commands += (args[0] as unknown[]).length;
    return _writev.apply(this, args);
  };
  try {
    return { result: await run(), writes, commands };
  } finally {
    socket._write = _write;
    socket._writev = _writev;
  }
}

describe('read-claim-hold', () => {
  test('when a confirm reads and claims a live seat hold, then one script call answers its record and leases its seats under its token', async () => {
    const eventId = await newEvent();
    const h = await seatHold(eventId, 5_000);
    const input = claimOf(h, 30_000);
    await store.readClaimHold(claimOf(await seatHold(eventId, 5_000))); // the script is loaded on this connection
    const { result, commands } = await countCalls(() => store.readClaimHold(input));
    expect(commands).toBe(1);
    expect(result).toMatchObject({ kind: 'record', claim: { kind: 'live' }, record: { holdId: h.holdId, status: 'active', extensions: 0 } });
    const record = (result as { record: { json: string; expiresAtMs: number } }).record;
    expect(JSON.parse(record.json)).toMatchObject({ customerId: h.customerId, eventId });
    expect(record.expiresAtMs).toBeGreaterThan(Date.now());
    const k = eventKeys(eventId);
    for (const seatId of h.seatIds) {
      expect(await redis.get(k.seat(seatId))).toBe(h.holdId);
      expect(await redis.pttl(k.seat(seatId))).toBeGreaterThan(20_000);
    }
    expect(await redis.hexists(k.claim(h.holdId), input.token)).toBe(1);
    expect(Number((await redis.hget(k.customer(h.customerId), h.holdId))!.split(':')[0])).toBe(2);
  });

  test('when a ticket hold\'s lease lapsed and its tickets are still there, then it is retaken from its record within capacity', async () => {
    const tt = `tt-${randomUUID()}`;
    const eventId = await newEvent([{ id: tt, capacity: 4, sold: 0 }]);
    const h = await ticketHold(eventId, tt, 3, 50);
    await new Promise((r) => setTimeout(r, 120));
    const read = await store.readClaimHold(claimOf(h));
    expect(read).toMatchObject({ kind: 'record', claim: { kind: 'retaken' } });
    expect(await store.readAvailability(eventId, [tt])).toEqual(new Map([[tt, 1]]));
    expect(await redis.hget(eventKeys(eventId).ticketTypeHolds(tt), h.holdId)).toBe('3');
  });

  test('when a seat hold\'s lease lapsed and another hold took a seat, then UNAVAILABLE and nothing of it is written', async () => {
    const eventId = await newEvent();
    const h = await seatHold(eventId, 50);
    await new Promise((r) => setTimeout(r, 120));
    const other = `h-${randomUUID()}`;
    const otherRecord = JSON.stringify({ eventId, customerId: 'c-other', items: [], totalCents: 0, currency: 'EUR' });
    expect((await store.holdSeats({ ...base(eventId, other, 'c-other', 60_000), candidates: [{ seatIds: [h.seatIds[1]!], recordJson: otherRecord }] })).kind).toBe('ok');
    const input = claimOf(h);
    const read = await store.readClaimHold(input);
    expect(read).toMatchObject({ kind: 'record', claim: { kind: 'unavailable', seatIds: [h.seatIds[1]] } });
    const k = eventKeys(eventId);
    expect(await redis.exists(k.seat(h.seatIds[0]!))).toBe(0);
    expect(await redis.hexists(k.claim(h.holdId), input.token)).toBe(0);
  });

  test('when the hold ended (its record a tombstone) or Redis never had it, then NO_RECORD and nothing is written', async () => {
    const eventId = await newEvent();
    const h = await seatHold(eventId, 60_000);
    expect((await store.endHold({ ...h, mode: 'released' })).applied).toBe(true);
    const k = eventKeys(eventId);
    const before = await redis.keys(eventKeyPattern(eventId));
    const input = claimOf(h);
    expect(await store.readClaimHold(input)).toEqual({ kind: 'no_record' });
    expect(await store.readClaimHold(claimOf({ eventId, holdId: `h-${randomUUID()}` }))).toEqual({ kind: 'no_record' });
    expect((await redis.keys(eventKeyPattern(eventId))).sort()).toEqual(before.sort());
    expect(await redis.exists(k.claim(h.holdId))).toBe(0);
  });

  test('when the event is not primed, then NOT_READY after the record, and nothing is claimed', async () => {
    const eventId = await newEvent();
    const h = await seatHold(eventId, 60_000);
    await store.unprime(eventId);
    const input = claimOf(h);
    expect(await store.readClaimHold(input)).toMatchObject({ kind: 'record', claim: { kind: 'not_ready' } });
    expect(await redis.exists(eventKeys(eventId).claim(h.holdId))).toBe(0);
  });
});

describe('end-confirmed-holds', () => {
  test('when a batch ends confirmed holds of two events in one turn, then each event gets one script call and every hold reads sold', async () => {
    const tt = `tt-${randomUUID()}`;
    const first = await newEvent();
    const second = await newEvent([{ id: tt, capacity: 10, sold: 0 }]);
    const holds = [await seatHold(first, 60_000), await ticketHold(second, tt, 2, 60_000), await seatHold(first, 60_000, 1), await seatHold(second, 60_000)];
    for (const h of holds) expect((await store.readClaimHold(claimOf(h))).kind).toBe('record');
    await store.endConfirmedHolds(first, []); // nothing to end: no call
    await Promise.all([store.endConfirmedHold((await seatHold(first, 60_000)))]); // the script is loaded on this connection
    const { result, writes, commands } = await countCalls(() => Promise.all(holds.map((h) => store.endConfirmedHold(h))));
    expect(commands).toBe(2);
    expect(writes).toBe(1);
    expect(result).toEqual([
      { applied: true, freed: 2, offers: 0 }, { applied: true, freed: 0, offers: 0 },
      { applied: true, freed: 1, offers: 0 }, { applied: true, freed: 2, offers: 0 },
    ]);
    for (const h of holds) {
      const k = eventKeys(h.eventId);
      expect(await redis.hgetall(k.hold(h.holdId))).toEqual({ status: 'confirmed' });
      expect(await redis.pttl(k.hold(h.holdId))).toBeGreaterThan(ENDED_HOLD_TTL_MS.confirmed - 5000);
      expect(await redis.exists(k.claim(h.holdId), k.customer(h.customerId))).toBe(0);
      expect(await redis.hget(k.bought, h.customerId)).toBe(String(h.quantity));
      for (const seatId of h.seatIds) {
        expect(await redis.sismember(k.sold, seatId)).toBe(1);
        expect(await redis.exists(k.seat(seatId))).toBe(0);
        expect(await redis.zscore(k.held, seatId)).toBeNull();
      }
    }
    expect(await redis.hmget(eventKeys(second).ticketType(tt), 'sold', 'held')).toEqual(['2', '0']);
  });

  test('when a hold\'s claim lapsed between claim and end, then its confirmed end still marks its seats sold and frees nothing twice', async () => {
    const eventId = await newEvent();
    const h = await seatHold(eventId, 50);
    expect(await store.readClaimHold(claimOf(h, 60))).toMatchObject({ claim: { kind: 'live' } });
    await new Promise((r) => setTimeout(r, 150));
    const k = eventKeys(eventId);
    expect(await redis.exists(k.seat(h.seatIds[0]!))).toBe(0);
    expect(await store.endConfirmedHolds(eventId, [h])).toEqual([{ applied: true, freed: 0, offers: 0 }]);
    for (const seatId of h.seatIds) {
      expect(await redis.sismember(k.sold, seatId)).toBe(1);
      expect(await redis.zscore(k.held, seatId)).toBeNull();
      expect(await redis.zscore(k.free, seatId)).toBeNull();
    }
    expect(await redis.hgetall(k.hold(h.holdId))).toEqual({ status: 'confirmed' });
    expect(await redis.hget(k.bought, h.customerId)).toBe('2');
  });

  test('when the same batch end runs again, or names a hold twice, then each hold is ended once and nothing is counted twice', async () => {
    const tt = `tt-${randomUUID()}`;
    const eventId = await newEvent([{ id: tt, capacity: 10, sold: 0 }]);
    const seat = await seatHold(eventId, 60_000);
    const tickets = await ticketHold(eventId, tt, 3, 60_000);
    expect(await store.endConfirmedHolds(eventId, [seat, tickets, seat])).toEqual([
      { applied: true, freed: 2, offers: 0 }, { applied: true, freed: 0, offers: 0 }, { applied: false, freed: 0 },
    ]);
    expect(await store.endConfirmedHolds(eventId, [seat, tickets])).toEqual([{ applied: false, freed: 0 }, { applied: false, freed: 0 }]);
    const k = eventKeys(eventId);
    expect(await redis.hget(k.bought, seat.customerId)).toBe('2');
    expect(await redis.hget(k.bought, tickets.customerId)).toBe('3');
    expect(await redis.hmget(k.ticketType(tt), 'sold', 'held')).toEqual(['3', '0']);
    expect(await redis.scard(k.sold)).toBe(2);
  });

  test('when one hold of a turn\'s ends cannot be ended (its record is not a hash), then the others are still ended and only it fails', async () => {
    const eventId = await newEvent();
    const bad = await seatHold(eventId, 60_000);
    const good = [await seatHold(eventId, 60_000), await seatHold(eventId, 60_000)];
    const k = eventKeys(eventId);
    await redis.del(k.hold(bad.holdId));
    await redis.set(k.hold(bad.holdId), 'not a hash');
    const settled = await Promise.allSettled([bad, ...good].map((h) => store.endConfirmedHold(h)));
    expect(settled.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect((settled[0] as PromiseRejectedResult).reason).toMatchObject({ message: expect.stringMatching(/WRONGTYPE/) });
    for (const h of good) {
      expect(await redis.hgetall(k.hold(h.holdId))).toEqual({ status: 'confirmed' });
      for (const seatId of h.seatIds) expect(await redis.sismember(k.sold, seatId)).toBe(1);
    }
  });

  test('when the keys do not match the holds named, then the script refuses before ending any', async () => {
    const eventId = await newEvent();
    const h = await seatHold(eventId, 60_000);
    const k = eventKeys(eventId);
    const keys = [k.ready, k.sold, k.held, k.bought, k.free, k.seatIndex, k.customer(h.customerId), k.ready, k.ready, k.ready, k.hold(h.holdId), k.claim(h.holdId), k.seat(h.seatIds[0]!)];
    // Two seats named, one seat key given.
    const args = [k.channel, ENDED_HOLD_TTL_MS.confirmed, 1, h.holdId, h.customerId, '', 2, 2, ...h.seatIds];
    await expect(redis.eval(scriptSource('endConfirmedHolds'), keys.length, ...keys, ...args)).rejects.toThrow(/does not match/);
    expect(await redis.hget(k.hold(h.holdId), 'status')).toBe('active');
    expect(await redis.get(k.seat(h.seatIds[0]!))).toBe(h.holdId);
  });
});

