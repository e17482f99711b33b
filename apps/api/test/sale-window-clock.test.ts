// Issue 28, point 10: the sale window is decided inside the hold scripts, on
// Redis's clock, whatever the API process's own clock says (every API process
// then agrees at the opening, and no hold is written after the end).
import { createTestEvent, dropTestEvent, holdPost, redisTimeMs, seatGrid, skewProcessClock, tally, useTestApi, type Reply } from '@holdfast/test-kit';

const { api } = useTestApi({ HOLD_RATE_LIMIT_PER_MINUTE: '100000' });
const run = `${process.pid}-${Date.now().toString(36)}`;

let restoreClock: (() => void) | null = null;
afterEach(() => { restoreClock?.(); restoreClock = null; });

/** An event with seats and general admission, its window given in ms on Redis's clock. */
async function eventWithWindow(startMs: number | null, endMs: number | null) {
  return createTestEvent(api, {
    seats: seatGrid(['W'], 1, 4),
    ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10 }],
    salesStatus: 'on_sale',
    salesStartAt: startMs === null ? null : new Date(startMs).toISOString(),
    salesEndAt: endMs === null ? null : new Date(endMs).toISOString(),
  });
}

/** One hold of each kind: seats by id, best available, general admission. */
async function holdEachWay(event: { id: string; ticketTypes: { id: string }[] }, seats: { id: string }[], tag: string): Promise<Reply[]> {
  return [
    await holdPost(api, event.id, `${tag}-seat-${run}`, { seatIds: [seats[0]!.id] }),
    await holdPost(api, event.id, `${tag}-best-${run}`, { tier: 'standard', quantity: 1 }),
    await holdPost(api, event.id, `${tag}-ga-${run}`, { ticketTypeId: event.ticketTypes[0]!.id, quantity: 1 }),
  ];
}

test('when the API\'s clock is 2 minutes ahead and the sale opens in 1 minute on Redis\'s clock, then holds are refused SALES_CLOSED with Redis\'s time', async () => {
  const now = await redisTimeMs(api.rt.redis);
  const { event, seats } = await eventWithWindow(now + 60_000, null);
  try {
    restoreClock = skewProcessClock(120_000);
    const replies = await holdEachWay(event, seats, 'ahead');
    expect(tally(replies)).toEqual({ '409 SALES_CLOSED': 3 });
    for (const r of replies) {
      const serverTime = Date.parse(r.body.error.details.serverTime);
      expect(serverTime).toBeLessThan(now + 60_000);
      expect(serverTime).toBeGreaterThanOrEqual(now);
      expect(r.body.error.details.salesStartAt).toBe(new Date(now + 60_000).toISOString());
    }
  } finally {
    restoreClock?.();
    await dropTestEvent(api, event.id);
  }
});

test('when the API\'s clock is 2 minutes behind and the sale opened a second ago on Redis\'s clock, then holds are taken', async () => {
  const now = await redisTimeMs(api.rt.redis);
  const { event, seats } = await eventWithWindow(now - 1000, now + 60_000);
  try {
    restoreClock = skewProcessClock(-120_000);
    const replies = await holdEachWay(event, seats, 'behind');
    expect(tally(replies)).toEqual({ '201': 3 });
    // Their times are Redis's: inside the window.
    for (const r of replies) expect(Date.parse(r.body.hold.createdAt)).toBeGreaterThanOrEqual(now - 1000);
  } finally {
    restoreClock?.();
    await dropTestEvent(api, event.id);
  }
});

test('when the API\'s clock is 2 minutes behind and the sale ended a second ago on Redis\'s clock, then no hold is written', async () => {
  const now = await redisTimeMs(api.rt.redis);
  const { event, seats } = await eventWithWindow(null, now - 1000);
  try {
    restoreClock = skewProcessClock(-120_000);
    const replies = await holdEachWay(event, seats, 'ended');
    expect(tally(replies)).toEqual({ '409 SALES_CLOSED': 3 });
    for (const r of replies) expect(Date.parse(r.body.error.details.serverTime)).toBeGreaterThanOrEqual(now - 1000);
    expect(await api.rt.db.hold.count({ where: { eventId: event.id } })).toBe(0);
    await api.rt.ctx.persister.flush();
    expect(await api.rt.db.hold.count({ where: { eventId: event.id } })).toBe(0);
  } finally {
    restoreClock?.();
    await dropTestEvent(api, event.id);
  }
});
