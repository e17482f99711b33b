// Best available is decided by one Redis script (hold-best-12.lua) on the
// free-seat index: these tests run it on the real Redis, seat maps built here.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { eventKeyPattern, eventKeys, HoldStore, type BestAttempt } from '@holdfast/hold-store';
import { compareSeat, sortTierSeats, type TierSeat } from '../src/best-available';
import type { Catalog } from '../src/event-catalog';
import { seatIndexLayout } from '../src/seat-index';

type Seat = TierSeat & { label: string; tier: string };
const seat = (section: string, row: string, number: number, priceCents: number, tier = 'floor'): Seat =>
  ({ id: `${section}-${row}-${number}`, label: `${section}-${row}-${number}`, section, row, number, priceCents, tier });
const total = (seats: Seat[], ids: string[]) => ids.reduce((t, id) => t + seats.find((s) => s.id === id)!.priceCents, 0);

let redis: Redis;
let store: HoldStore;
const events: string[] = [];
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL!);
  store = new HoldStore(redis);
});
afterAll(async () => {
  for (const id of events) await forget(id);
  redis.disconnect();
});

async function forget(eventId: string) {
  const keys = await redis.keys(eventKeyPattern(eventId));
  if (keys.length) await redis.del(...keys);
}

/** A primed event in Redis with these seats indexed; `taken` seats get another hold's lease, `sold` the sold set. */
async function sale(seats: Seat[], opts: { taken?: string[]; sold?: string[]; eventId?: string } = {}) {
  const eventId = opts.eventId ?? randomUUID();
  if (!opts.eventId) events.push(eventId);
  await forget(eventId);
  const tiers = new Map<string, Seat[]>();
  for (const s of seats) tiers.set(s.tier, [...(tiers.get(s.tier) ?? []), s]);
  for (const t of tiers.values()) sortTierSeats(t);
  const layout = seatIndexLayout({ seats, tiers } as unknown as Catalog);
  const k = eventKeys(eventId);
  await redis.set(k.ready, '1');
  if (opts.sold?.length) await redis.sadd(k.sold, ...opts.sold);
  await store.syncFreeSeats(eventId, layout.seats, { tiers: layout.tiers, seatCount: layout.seats.length });
  // Taken after indexing: the free set still lists them (stale), and the script must skip them.
  for (const id of opts.taken ?? []) await redis.set(k.seat(id), 'someone-else', 'PX', 60_000);
  return eventId;
}

function best(eventId: string, quantity: number, extra: { tier?: string; customerId?: string; maxPerCustomer?: number; rateLimit?: number } = {}) {
  return store.holdBest({
    eventId, holdId: `${eventId}:${randomUUID()}`, customerId: extra.customerId ?? `c-${randomUUID()}`,
    ttlMs: 60_000, maxPerCustomer: extra.maxPerCustomer ?? 100, rateLimit: extra.rateLimit ?? 0, rateWindowMs: 60_000,
    tier: extra.tier ?? 'floor', quantity, currency: 'usd', outboxMaxPending: 100_000,
  });
}

const idsOf = (r: BestAttempt) => {
  if (r.kind !== 'ok') throw new Error(`expected a hold, got ${JSON.stringify(r)}`);
  return r.seatIds;
};

describe('sortTierSeats', () => {
  test('when seats are sorted, then by price, then section, row (as numbers) and number', () => {
    const sorted = sortTierSeats([seat('B', '1', 1, 5000), seat('A', '10', 1, 5000), seat('A', '9', 2, 5000), seat('A', '9', 1, 5000), seat('C', '1', 1, 1000)]);
    expect(sorted.map((s) => s.id)).toEqual(['C-1-1', 'A-9-1', 'A-9-2', 'A-10-1', 'B-1-1']);
  });

  test('when seats of many sections, rows and prices are sorted, then the order is the one compareSeat gives seat by seat, ties in the order given', () => {
    // Rows '01' and '1' compare equal as numbers, as do 'é' and 'e' + U+0301: such seats keep their given order.
    const sections = ['B', 'a', 'A', 'Ärena', 'box 10', 'box 9', '\u00e9t\u00e9', 'e\u0301te\u0301'];
    const rows = ['1', '01', '2', '10', 'A', 'AA', 'b', '10A'];
    let x = 7;
    const next = (n: number) => (x = (x * 48271) % 2147483647) % n;
    const seats = Array.from({ length: 3000 }, (_, i) => {
      const s = seat(sections[next(sections.length)]!, rows[next(rows.length)]!, 1 + next(4), [1000, 2500, 1000.5 * 2][next(3)]!);
      return { ...s, id: `seat-${i}` };
    });
    const expected = [...seats].sort((a, b) => a.priceCents - b.priceCents || compareSeat(a, b));
    const sorted = sortTierSeats([...seats]);
    expect(sorted.map((s) => s.id)).toEqual(expected.map((s) => s.id));
    // As many prices, sections, rows and numbers as seats: too many ranks for one exact number a seat.
    const distinct = Array.from({ length: 3000 }, (_, i) =>
      ({ ...seat(`S${next(100_000)}`, String(next(100_000)), next(100_000), next(100_000)), id: `distinct-${i}` }));
    expect(sortTierSeats([...distinct]).map((s) => s.id))
      .toEqual([...distinct].sort((a, b) => a.priceCents - b.priceCents || compareSeat(a, b)).map((s) => s.id));
  });
});

describe('hold-best (one script decides)', () => {
  test('when fewer seats are free than asked for, then SOLD_OUT with the free count, and nothing is written', async () => {
    const seats = [seat('A', '1', 1, 100), seat('A', '1', 2, 100), seat('A', '1', 3, 100)];
    const ev = await sale(seats, { taken: ['A-1-2'], sold: ['A-1-3'] });
    expect(await best(ev, 2)).toEqual({ kind: 'sold_out', available: 1 });
    expect(await redis.get(eventKeys(ev).seat('A-1-1'))).toBeNull();
    // The stale members met on the way left the free set.
    expect(await redis.zrange(eventKeys(ev).free, 0, -1)).toEqual(['A-1-1']);
    expect(idsOf(await best(ev, 1))).toEqual(['A-1-1']);
    expect(await best(ev, 1)).toEqual({ kind: 'sold_out', available: 0 });
  });

  test('when the cheapest seats are apart, then the lowest total still wins over a dearer pair side by side', async () => {
    const seats = [seat('A', '1', 1, 8000), seat('A', '1', 2, 8000), seat('B', '1', 1, 5000), seat('B', '1', 5, 5000)];
    const r = await best(await sale(seats), 2);
    expect(r).toMatchObject({ kind: 'ok', sideBySide: false });
    expect(idsOf(r).sort()).toEqual(['B-1-1', 'B-1-5']);
  });

  test('when selections cost the same, then seats side by side in one row come first, front rows first', async () => {
    const seats = [
      seat('A', '1', 1, 5000), seat('A', '1', 3, 5000), seat('A', '1', 5, 5000),
      seat('A', '10', 4, 5000), seat('A', '10', 5, 5000), seat('A', '9', 7, 5000), seat('A', '9', 8, 5000),
    ];
    const ev = await sale(seats);
    expect(await best(ev, 2)).toMatchObject({ kind: 'ok', sideBySide: true, seatIds: ['A-9-7', 'A-9-8'] });
    expect(await best(ev, 2)).toMatchObject({ kind: 'ok', sideBySide: true, seatIds: ['A-10-4', 'A-10-5'] });
    expect(await best(ev, 2)).toMatchObject({ kind: 'ok', sideBySide: false, seatIds: ['A-1-1', 'A-1-3'] });
  });

  test('when a pair side by side mixes prices to the lowest total, then it is preferred', async () => {
    const seats = [seat('B', '1', 1, 4000), seat('B', '1', 2, 6000), seat('A', '2', 9, 6000), seat('A', '2', 1, 9000)];
    expect(await best(await sale(seats), 2)).toMatchObject({ kind: 'ok', sideBySide: true, seatIds: ['B-1-1', 'B-1-2'] });
  });

  test('when a taken seat or a dearer seat sits between two, then they are not side by side', async () => {
    const seats = [seat('A', '1', 1, 1000), seat('A', '1', 2, 1000), seat('A', '1', 3, 1000), seat('A', '1', 4, 9000), seat('A', '1', 5, 1000)];
    expect(await best(await sale(seats, { taken: ['A-1-2'] }), 2)).toMatchObject({ sideBySide: false, seatIds: ['A-1-1', 'A-1-3'] });
    expect(await best(await sale(seats), 3)).toMatchObject({ sideBySide: true, seatIds: ['A-1-1', 'A-1-2', 'A-1-3'] });
  });

  test('when two rows share a name in different sections, then their seats are not side by side', async () => {
    expect(await best(await sale([seat('A', '1', 2, 1000), seat('B', '1', 3, 1000)]), 2)).toMatchObject({ sideBySide: false, seatIds: ['A-1-2', 'B-1-3'] });
  });

  test('when seats 9 and 10 are free, then they are side by side (numbers compare as numbers)', async () => {
    const seats = [seat('A', '1', 10, 1000), seat('A', '1', 9, 1000), seat('A', '1', 1, 1000)];
    expect(await best(await sale(seats), 2)).toMatchObject({ sideBySide: true, seatIds: ['A-1-9', 'A-1-10'] });
  });

  test('when two tiers share an event, then only the asked tier is walked, and an unknown tier is SOLD_OUT', async () => {
    const seats = [seat('A', '1', 1, 1000, 'balcony'), seat('B', '1', 1, 9000, 'floor'), seat('B', '1', 2, 9000, 'floor')];
    const ev = await sale(seats);
    expect(await best(ev, 2)).toMatchObject({ seatIds: ['B-1-1', 'B-1-2'] });
    expect(await best(ev, 1, { tier: 'balcony' })).toMatchObject({ seatIds: ['A-1-1'] });
    expect(await best(ev, 1, { tier: 'nowhere' })).toEqual({ kind: 'sold_out', available: 0 });
  });

  test('when the hold is written, then the record, the outbox entry, the customer entry and the leases are as hold-seats writes them', async () => {
    const ev = await sale([seat('A', '1', 1, 2500), seat('A', '1', 2, 2500)]);
    const k = eventKeys(ev);
    const r = await best(ev, 2, { customerId: 'cust-1' });
    const ids = idsOf(r);
    const [holdId] = (await redis.keys(`${k.hold('*')}`)).map((key) => key.slice(k.hold('').length));
    expect(await redis.mget(...ids.map(k.seat))).toEqual([holdId, holdId]);
    const record = await store.getHoldRecord(ev, holdId!);
    expect(JSON.parse(record!.json)).toEqual({
      eventId: ev, customerId: 'cust-1', currency: 'usd', totalCents: 5000,
      items: ids.map((id) => ({ seatId: id, label: id, tier: 'floor', priceCents: 2500, quantity: 1 })),
    });
    expect((await store.readOutbox(ev)).map((e) => e.holdId)).toEqual([holdId]);
    expect(await redis.hget(k.customer('cust-1'), holdId!)).toMatch(/^2:\d+$/);
    expect(await redis.zcard(k.free)).toBe(0);
  });

  test('when prices have more than 14 digits, then the record carries the exact amounts', async () => {
    const ev = await sale([seat('A', '1', 1, 4_000_000_000_000_001), seat('A', '1', 2, 4_000_000_000_000_001)]);
    const r = await best(ev, 2, { customerId: 'rich' });
    expect(r).toMatchObject({ kind: 'ok', sideBySide: true });
    const [key] = await redis.keys(eventKeys(ev).hold('*'));
    const json = (await redis.hget(key!, 'json'))!;
    expect(json).toContain('"totalCents":8000000000000002');
    expect(JSON.parse(json).items.map((i: { priceCents: number }) => i.priceCents)).toEqual([4_000_000_000_000_001, 4_000_000_000_000_001]);
  });

  test('when the customer would pass the limit or the rate limit, then nothing is held', async () => {
    const ev = await sale([seat('A', '1', 1, 100), seat('A', '1', 2, 100), seat('A', '1', 3, 100)]);
    expect(await best(ev, 3, { customerId: 'lim', maxPerCustomer: 2 })).toEqual({ kind: 'limit_exceeded', inUse: 0 });
    expect(await best(ev, 1, { customerId: 'rl', rateLimit: 1 })).toMatchObject({ kind: 'ok' });
    expect(await best(ev, 1, { customerId: 'rl', rateLimit: 1 })).toMatchObject({ kind: 'rate_limited' });
    expect(await redis.zcard(eventKeys(ev).free)).toBe(2);
  });

  test('when the outbox already holds as many holds as may wait for PostgreSQL, then OUTBOX_FULL and nothing is held', async () => {
    const ev = await sale([seat('A', '1', 1, 100)]);
    const k = eventKeys(ev);
    await redis.xadd(k.outbox, '*', 'holdId', 'h1');
    await redis.xadd(k.outbox, '*', 'holdId', 'h2');
    const r = await store.holdBest({
      eventId: ev, holdId: `${ev}:x`, customerId: 'c', ttlMs: 60_000, maxPerCustomer: 10, rateLimit: 0, rateWindowMs: 60_000,
      tier: 'floor', quantity: 1, currency: 'usd', outboxMaxPending: 2,
    });
    expect(r).toEqual({ kind: 'outbox_full', pending: 2 });
    expect(await redis.zcard(k.free)).toBe(1);
    expect(await redis.xlen(k.outbox)).toBe(2);
  });

  test('when the index is missing or the event not primed, then NOT_INDEXED or NOT_READY', async () => {
    const ev = await sale([seat('A', '1', 1, 100)]);
    await redis.del(eventKeys(ev).seatIndex);
    expect(await best(ev, 1)).toEqual({ kind: 'not_indexed' });
    await redis.del(eventKeys(ev).ready);
    expect(await best(ev, 1)).toEqual({ kind: 'not_ready' });
  });

  test('when a lease lapsed by time and the free set never heard of it, then the seat is found again', async () => {
    const ev = await sale([seat('A', '1', 1, 100)]);
    expect(idsOf(await best(ev, 1))).toEqual(['A-1-1']);
    const k = eventKeys(ev);
    // The lease's time passes without any script: the key goes, the held entry stays.
    await redis.del(k.seat('A-1-1'));
    await redis.zadd(k.held, Date.now() - 1, 'A-1-1');
    expect(idsOf(await best(ev, 1))).toEqual(['A-1-1']);
  });

  test('when every selection of a small irregular map is tried, then the lowest total is held, side by side whenever such a run exists', async () => {
    const seats = [
      seat('A', '1', 1, 3000), seat('A', '1', 2, 2000), seat('A', '1', 3, 2000), seat('A', '1', 4, 3000),
      seat('A', '2', 1, 1000), seat('A', '2', 3, 2000), seat('B', '1', 1, 1000), seat('B', '1', 2, 4000),
    ];
    const ids = seats.map((s) => s.id);
    const eventId = randomUUID();
    events.push(eventId);
    for (let mask = 0; mask < 1 << ids.length; mask++) {
      const taken = ids.filter((_, i) => (mask >> i) & 1);
      const free = seats.filter((s) => !taken.includes(s.id));
      for (const q of [1, 2, 3]) {
        await sale(seats, { taken, eventId });
        const r = await best(eventId, q);
        if (free.length < q) {
          expect(r).toEqual({ kind: 'sold_out', available: free.length });
          continue;
        }
        const sel = idsOf(r);
        const cheapest = free.map((s) => s.priceCents).sort((a, b) => a - b).slice(0, q).reduce((a, b) => a + b, 0);
        expect(sel).toHaveLength(q);
        for (const id of sel) expect(taken).not.toContain(id);
        expect(total(seats, sel)).toBe(cheapest);
        const runExists = seats.some((start) => {
          const run = Array.from({ length: q }, (_, i) => free.find((s) => s.section === start.section && s.row === start.row && s.number === start.number + i));
          return run.every(Boolean) && total(seats, run.map((s) => s!.id)) === cheapest;
        });
        const ss = sel.map((id) => seats.find((s) => s.id === id)!).sort((a, b) => a.number - b.number);
        const isRun = ss.every((s, i) => s.section === ss[0]!.section && s.row === ss[0]!.row && s.number === ss[0]!.number + i);
        expect(isRun).toBe(runExists);
        expect((r as { sideBySide: boolean }).sideBySide).toBe(runExists);
      }
    }
  });

  test('when more leases of another tier lapsed than one call gives back, then AGAIN (nothing held, nothing counted), and the next call holds the tier\'s seat', async () => {
    // 3,000 tier-A seats and one tier-B seat, every one held for 30 ms (the tier-B one last).
    const seats = [...Array.from({ length: 3000 }, (_, i) => seat('A', String(1 + Math.floor(i / 50)), 1 + (i % 50), 100, 'a')), seat('B', '1', 1, 900, 'b')];
    const ev = await sale(seats);
    const base = { eventId: ev, customerId: 'c-lapse', ttlMs: 30, maxPerCustomer: 100, rateLimit: 0, rateWindowMs: 60_000, outboxMaxPending: 100_000 };
    for (let i = 0; i < 3001; i += 100) {
      const ids = seats.slice(i, i + 100).map((s) => s.id);
      expect((await store.holdSeats({ ...base, customerId: `c-lapse-${i}`, holdId: `${ev}:h${i}`, candidates: [{ seatIds: ids, recordJson: '{}' }] })).kind).toBe('ok');
    }
    const k = eventKeys(ev);
    await new Promise((r) => setTimeout(r, 60));
    expect(await redis.zcard(k.held)).toBe(3001);
    const rateKey = k.rateLimit('c-b');
    const first = await best(ev, 1, { tier: 'b', customerId: 'c-b', rateLimit: 100 });
    expect(first).toEqual({ kind: 'again' });
    // 64 + 2,048 given back, nothing held, the request counted once.
    expect(await redis.zcard(k.held)).toBe(3001 - 64 - 2048);
    expect(await redis.get(k.seat('B-1-1'))).toBeNull();
    expect(Number(await redis.get(rateKey))).toBe(1);
    // Called again without counting (as createHold does): the tier-B seat.
    expect(idsOf(await best(ev, 1, { tier: 'b', customerId: 'c-b', rateLimit: 0 }))).toEqual(['B-1-1']);
    expect(Number(await redis.get(rateKey))).toBe(1);
    expect(await best(ev, 1, { tier: 'b' })).toEqual({ kind: 'sold_out', available: 0 });
  });
});
