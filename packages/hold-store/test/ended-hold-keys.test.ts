// What an ended hold leaves in Redis (ttls.ts, ENDED_HOLD_TTL_MS): its record
// shrunk to a tombstone (the status alone) for its mode's time, and no other key
// or entry of its own. Checked on the real Redis after each way a hold ends.
import { randomUUID } from 'node:crypto';
import { ENDED_HOLD_TTL_MS, eventKeyPattern, eventKeys } from '../src';
import { events, redis, store, useHoldStore } from './hold-store.fixture';

useHoldStore();

const base = (eventId: string, holdId: string, customerId: string, ttlMs: number) => ({
  eventId, holdId, customerId, ttlMs, maxPerCustomer: 10, rateLimit: 100, rateWindowMs: 60_000, outboxMaxPending: 1000,
});

/** Every key of the event and its type, and where a key is a collection, whether any member or field names the hold. */
async function leftFor(eventId: string, holdId: string, seatIds: string[]) {
  const k = eventKeys(eventId);
  const keys = await redis.keys(eventKeyPattern(eventId));
  const mentioning: string[] = [];
  for (const key of keys) {
    const type = await redis.type(key);
    const members =
      type === 'hash' ? await redis.hkeys(key)
      : type === 'zset' ? await redis.zrange(key, 0, -1)
      : type === 'set' ? await redis.smembers(key)
      : type === 'string' ? [await redis.get(key)]
      : type === 'stream' ? (await redis.xrange(key, '-', '+')).map(([, f]) => f[f.indexOf('holdId') + 1])
      : [];
    if (key === k.hold(holdId)) continue;
    if (members.includes(holdId) || seatIds.some((s) => key === k.seat(s))) mentioning.push(key);
  }
  return { record: await redis.hgetall(k.hold(holdId)), ttl: await redis.pttl(k.hold(holdId)), mentioning };
}

/** The outbox entry reached PostgreSQL (as the drain would acknowledge it). */
async function drainOutbox(eventId: string) {
  const entries = await store.readOutbox(eventId);
  await store.ackOutbox(eventId, entries.map((e) => e.entryId));
}

async function seatHold(ttlMs: number) {
  const eventId = randomUUID();
  events.push(eventId);
  await store.primeEvent({ eventId, ticketTypes: [], bought: [], soldSeatIds: [] });
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`, `s-${randomUUID()}`];
  const held = await store.holdSeats({
    ...base(eventId, holdId, customerId, ttlMs), candidates: [{ seatIds, recordJson: JSON.stringify({ items: seatIds, pad: 'x'.repeat(400) }) }],
  });
  expect(held.kind).toBe('ok');
  await drainOutbox(eventId);
  return { eventId, holdId, customerId, seatIds };
}

describe('what an ended hold leaves in Redis', () => {
  test.each(['released', 'confirmed'] as const)(
    'when a seat hold is %s, then only its tombstone is left: the status alone, for that mode’s time',
    async (mode) => {
      const { eventId, holdId, customerId, seatIds } = await seatHold(60_000);
      const token = randomUUID();
      if (mode === 'confirmed') {
        const claim = await store.claimHold({
          eventId, holdId, customerId, token, leaseMs: 30_000, seatIds, ticketTypeId: null, quantity: 2, maxPerCustomer: 10,
        });
        expect(claim.kind).toBe('live');
      }
      expect((await store.endHold({ eventId, holdId, customerId, mode, seatIds, ticketTypeId: null, quantity: 2 })).applied).toBe(true);
      const left = await leftFor(eventId, holdId, seatIds);
      expect(left.record).toEqual({ status: mode });
      expect(left.ttl).toBeGreaterThan(ENDED_HOLD_TTL_MS[mode] - 5000);
      expect(left.ttl).toBeLessThanOrEqual(ENDED_HOLD_TTL_MS[mode]);
      expect(left.mentioning).toEqual([]);
      expect(await redis.exists(eventKeys(eventId).claim(holdId), eventKeys(eventId).customer(customerId))).toBe(0);
      // The tombstone still answers a repeated end (nothing counted twice) and a late claim.
      expect((await store.endHold({ eventId, holdId, customerId, mode, seatIds, ticketTypeId: null, quantity: 2 })).applied).toBe(false);
      if (mode === 'confirmed') expect(await redis.hget(eventKeys(eventId).bought, customerId)).toBe('2');
      const late = await store.claimHold({
        eventId, holdId, customerId, token: randomUUID(), leaseMs: 30_000, seatIds, ticketTypeId: null, quantity: 2, maxPerCustomer: 10,
      });
      expect(late).toEqual({ kind: 'ended', status: mode });
      expect(await store.getHoldRecord(eventId, holdId)).toBeNull();
    },
  );

  test('when a seat hold’s time has passed and it is ended as expired, then only its tombstone is left, for the expired time', async () => {
    const { eventId, holdId, customerId, seatIds } = await seatHold(50);
    await new Promise((r) => setTimeout(r, 120));
    expect((await store.endHold({ eventId, holdId, customerId, mode: 'expired', seatIds, ticketTypeId: null, quantity: 2 })).applied).toBe(true);
    const left = await leftFor(eventId, holdId, seatIds);
    expect(left.record).toEqual({ status: 'expired' });
    expect(left.ttl).toBeGreaterThan(ENDED_HOLD_TTL_MS.expired - 5000);
    expect(left.ttl).toBeLessThanOrEqual(ENDED_HOLD_TTL_MS.expired);
    expect(left.mentioning).toEqual([]);
  });

  test('when a ticket hold is confirmed, then only its tombstone is left and the ticket type counts it sold once', async () => {
    const eventId = randomUUID();
    events.push(eventId);
    const tt = `tt-${randomUUID()}`;
    await store.primeEvent({ eventId, ticketTypes: [{ id: tt, capacity: 10, sold: 0 }], bought: [], soldSeatIds: [] });
    const holdId = `h-${randomUUID()}`;
    const customerId = `c-${randomUUID()}`;
    const held = await store.holdTickets({ ...base(eventId, holdId, customerId, 60_000), ticketTypeId: tt, quantity: 3, recordJson: '{"items":[]}' });
    expect(held.kind).toBe('ok');
    await drainOutbox(eventId);
    const end = () => store.endHold({ eventId, holdId, customerId, mode: 'confirmed', seatIds: [], ticketTypeId: tt, quantity: 3 });
    expect((await end()).applied).toBe(true);
    expect((await end()).applied).toBe(false);
    const left = await leftFor(eventId, holdId, []);
    expect(left.record).toEqual({ status: 'confirmed' });
    expect(left.ttl).toBeGreaterThan(ENDED_HOLD_TTL_MS.confirmed - 5000);
    expect(left.mentioning).toEqual([]);
    expect(await redis.hmget(eventKeys(eventId).ticketType(tt), 'sold', 'held')).toEqual(['3', '0']);
  });
});
