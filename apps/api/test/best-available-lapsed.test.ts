// Issue 28, point 8: SOLD_OUT from best available means fewer free seats than asked
// in that tier at that instant, however many leases of other tiers lapsed before.
// No worker runs here: lapsed leases are only given back by the hold scripts themselves.
import { eventKeys } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, seatGrid, useTestApi, holdPost, seatIdsOf, tally, waitFor, type Reply } from '@holdfast/test-kit';

const { api } = useTestApi({ HOLD_RATE_LIMIT_PER_MINUTE: '100000' });

const run = `${process.pid}-${Date.now().toString(36)}`;

type Entry = { state: string; offer: { holdId: string } | null };

/** Sends every request through `connections` closed loops (one request in flight per connection). */
async function overConnections<T>(connections: number, requests: (() => Promise<T>)[]): Promise<T[]> {
  const out = new Array<T>(requests.length);
  let next = 0;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (next < requests.length) {
      const i = next++;
      out[i] = await requests[i]!();
    }
  }));
  return out;
}

/** The holds taken from now on last 10 minutes (the test's first holds were made to lapse fast). */
async function longHoldsFromNow(eventId: string) {
  const res = await api.call('PATCH', `/v1/admin/events/${eventId}`, { token: api.token('admin'), body: { holdTtlSeconds: 600 } });
  expect(res.status).toBe(200);
  expect(res.body.event.holdTtlSeconds).toBe(600);
}

/** Waits until Redis's clock is past every lease in the event's held zset (nothing given back yet). */
async function untilLapsed(eventId: string, count: number) {
  await waitFor(`${count} leases lapsed`, async () => {
    const [sec] = await api.rt.redis.time();
    return (await api.rt.redis.zcount(eventKeys(eventId).held, '-inf', Number(sec) * 1000)) === count;
  }, { timeoutMs: 10_000, intervalMs: 50 });
}

test('when 70 leases of tier A lapsed before the one tier-B seat\'s, then the first best-available ask for tier B holds that seat', async () => {
  const seats = [...seatGrid(['A'], 7, 10, 'A', 5000), ...seatGrid(['B'], 1, 1, 'B', 9000)];
  const { event, seats: rows } = await createTestEvent(api, { holdTtlSeconds: 1, seats });
  try {
    const tierA = rows.filter((s) => s.tier === 'A');
    const tierB = rows.filter((s) => s.tier === 'B');
    expect(tierA).toHaveLength(70);
    // 70 tier-A leases, then the tier-B one: the tier-A ones lapse first.
    const a = await overConnections(10, tierA.map((s, i) => () => holdPost(api, event.id, `l8a-${run}-${i}`, { seatIds: [s.id] })));
    expect(tally(a)).toEqual({ '201': 70 });
    const b = await holdPost(api, event.id, `l8b-${run}`, { seatIds: [tierB[0]!.id] });
    expect(b.status).toBe(201);
    await untilLapsed(event.id, 71);
    await longHoldsFromNow(event.id);

    const ask = await holdPost(api, event.id, `l8c-${run}`, { tier: 'B', quantity: 1 });
    expect(ask.status).toBe(201);
    expect(seatIdsOf(ask.body.hold)).toEqual([tierB[0]!.id]);
    // And tier B is sold out only now that its one seat is held.
    const again = await holdPost(api, event.id, `l8d-${run}`, { tier: 'B', quantity: 1 });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('SOLD_OUT');
    expect(again.body.error.details.available).toBe(0);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when every hold of a flash sale lapses in the same second, then buyers of another tier keep buying: no SOLD_OUT while a seat of their tier is free', async () => {
  // 600 tier-A seats and 100 tier-B seats, all held (100 a hold), all lapsing in the same second.
  const seats = [...seatGrid(['A'], 30, 20, 'A', 5000), ...seatGrid(['B'], 5, 20, 'B', 9000)];
  const { event, seats: rows } = await createTestEvent(api, { holdTtlSeconds: 2, maxTicketsPerCustomer: 100, seats });
  try {
    const tierA = rows.filter((s) => s.tier === 'A').map((s) => s.id);
    const tierB = rows.filter((s) => s.tier === 'B').map((s) => s.id);
    const chunks = (ids: string[]) => Array.from({ length: ids.length / 100 }, (_, i) => ids.slice(100 * i, 100 * i + 100));
    // Tier A first, so its leases come first in expiry order; tier B's right after.
    const heldA = await Promise.all(chunks(tierA).map((ids, i) => holdPost(api, event.id, `fa-${run}-${i}`, { seatIds: ids })));
    const heldB = await holdPost(api, event.id, `fb-${run}`, { seatIds: tierB });
    expect(tally([...heldA, heldB])).toEqual({ '201': 7 });
    const expiries = [...heldA, heldB].map((r) => Date.parse(r.body.hold.expiresAt));
    expect(Math.max(...expiries) - Math.min(...expiries)).toBeLessThan(1000);
    await untilLapsed(event.id, 700);
    await longHoldsFromNow(event.id);

    // 100 tier-B buyers (one seat each, as many as tier B has) and 50 tier-A buyers, together over 40 connections:
    // every one of them finds a free seat of their tier, so none may be answered SOLD_OUT.
    const asks = Array.from({ length: 150 }, (_, i) => (i % 3 < 2
      ? { customer: `fbb-${run}-${i}`, body: { tier: 'B', quantity: 1 } }
      : { customer: `fab-${run}-${i}`, body: { tier: 'A', quantity: 1 } }));
    const replies: Reply[] = await overConnections(40, asks.map((a) => () => holdPost(api, event.id, a.customer, a.body)));
    expect(tally(replies.filter((_, i) => asks[i]!.body.tier === 'B'))).toEqual({ '201': 100 });
    expect(tally(replies.filter((_, i) => asks[i]!.body.tier === 'A'))).toEqual({ '201': 50 });
    const gotB = replies.filter((r, i) => asks[i]!.body.tier === 'B' && r.status === 201).flatMap((r) => seatIdsOf(r.body.hold));
    expect(new Set(gotB)).toEqual(new Set(tierB));
    // Now tier B is sold out, and says so.
    const late = await holdPost(api, event.id, `fbl-${run}`, { tier: 'B', quantity: 1 });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('SOLD_OUT');
    expect(late.body.error.details.available).toBe(0);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

// The waiting list gets what comes back before any buyer (issue 30), however many leases
// lapsed before the one it waits for: the hold scripts hand back at most 256 lapsed leases
// before serving the lines, and a buyer must not reach a later one ahead of the line.
describe('when more than 256 leases lapsed, the last of them the seat a waiting customer waits for', () => {
  /**
   * Runs `then` on an event whose 300 tier-A leases, then its one tier-B seat's, all
   * lapsed while `waiter` waited in tier B's line; the event is dropped after.
   */
  async function lapsedWithWaiter(tag: string, then: (eventId: string, seatB: string, entry: () => Promise<Entry>) => Promise<void>) {
    const seats = [...seatGrid(['A'], 15, 20, 'A', 5000), ...seatGrid(['B'], 1, 1, 'B', 9000)];
    const { event, seats: rows } = await createTestEvent(api, { holdTtlSeconds: 4, maxTicketsPerCustomer: 100, seats });
    try {
      const tierA = rows.filter((s) => s.tier === 'A').map((s) => s.id);
      const seatB = rows.find((s) => s.tier === 'B')!.id;
      const heldA = await Promise.all([0, 1, 2].map((i) => holdPost(api, event.id, `${tag}a-${run}-${i}`, { seatIds: tierA.slice(100 * i, 100 * i + 100) })));
      const heldB = await holdPost(api, event.id, `${tag}b-${run}`, { seatIds: [seatB] });
      expect(tally([...heldA, heldB])).toEqual({ '201': 4 });
      const waiter = api.token('customer', `${tag}w-${run}`);
      const joined = await api.call('POST', `/v1/events/${event.id}/waitlist`, { token: waiter, body: { tier: 'B', quantity: 1 } });
      expect(joined.status).toBe(201);
      await untilLapsed(event.id, 301);
      await longHoldsFromNow(event.id);
      await then(event.id, seatB, async () => (await api.call('GET', `/v1/events/${event.id}/waitlist/me`, { token: waiter })).body.entries[0]);
    } finally {
      await dropTestEvent(api, event.id);
    }
  }

  test('when a buyer asks for best available in its tier, then the waiting customer is offered the seat and the buyer finds the tier sold out', async () => {
    await lapsedWithWaiter('wb', async (eventId, seatB, entry) => {
      const ask = await holdPost(api, eventId, `wbo-${run}`, { tier: 'B', quantity: 1 });
      expect({ status: ask.status, code: ask.body.error?.code }).toEqual({ status: 409, code: 'SOLD_OUT' });
      const offered = await entry();
      expect(offered.state).toBe('offered');
      expect(await api.rt.redis.get(eventKeys(eventId).seat(seatB))).toBe(offered.offer!.holdId);
    });
  });

  test('when a buyer asks for that very seat, then the waiting customer is offered it and the buyer is refused', async () => {
    await lapsedWithWaiter('ws', async (eventId, seatB, entry) => {
      const ask = await holdPost(api, eventId, `wso-${run}`, { seatIds: [seatB] });
      expect({ status: ask.status, code: ask.body.error?.code }).toEqual({ status: 409, code: 'SEATS_UNAVAILABLE' });
      const offered = await entry();
      expect(offered.state).toBe('offered');
      expect(await api.rt.redis.get(eventKeys(eventId).seat(seatB))).toBe(offered.offer!.holdId);
    });
  });
});
