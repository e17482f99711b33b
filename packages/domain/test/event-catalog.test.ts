// Each process keeps an event's seat catalog in memory. These tests load it from
// the real PostgreSQL: what the seat map read builds, preloads, and failures.
import pg from 'pg';
import { expandLayout } from '@holdfast/contracts';
import { createDb, findEvent, insertEvent, listSeatMap, runTransaction, updateEventSettings, type Db, type NewSeat, type SeatRow } from '@holdfast/db';
import { compareSeat } from '../src/best-available';
import { EventCatalog, type Catalog } from '../src/event-catalog';

let db: Db;
let admin: pg.Client;
const events: string[] = [];

beforeAll(async () => {
  db = createDb(process.env.DATABASE_URL!, { queryTimeoutMillis: 1500 });
  admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
});
afterAll(async () => {
  for (const id of events) await admin.query('DELETE FROM events WHERE id = $1', [id]);
  await admin.end();
  await db.$disconnect();
});

/**
 * Two tiers over a layout (rows 1 to 12 compare as numbers, sections as words of
 * mixed case and accents), a few listed seats with rows of letters, and prices
 * that differ inside a tier; two ticket types.
 */
function venue(): NewSeat[] {
  const layout = expandLayout({
    sections: ['stalls', 'Balcony', 'Ärena', 'balcony'].map((name, i) => ({
      name,
      rows: [
        { from: 1, to: 3, seatsPerRow: 7, tier: 'front', priceCents: 9000 + (i % 2) * 500 },
        { from: 4, to: 12, seatsPerRow: 9, tier: 'main', priceCents: 4000 },
      ],
    })),
  });
  const listed: NewSeat[] = ['A', 'AA', 'B', '10A', '2'].map((row, i) => ({ section: 'Box', row, number: 3 - (i % 3), tier: 'main', priceCents: 4000 + (i % 2) * 100 }));
  return [...listed, ...layout];
}

async function newEvent(seats: NewSeat[]): Promise<string> {
  const id = await runTransaction(db, (tx) => insertEvent(tx, {
    name: `catalog-${process.pid}`, startsAt: new Date('2027-05-01T19:00:00Z'), currency: 'EUR', holdTtlSeconds: 300, maxTicketsPerCustomer: 6,
    maxHoldExtensions: 1, maxHoldSeconds: 1800, waitlistOfferSeconds: 1800, salesStatus: 'on_sale', salesStartAt: null, salesEndAt: null, waitingRoom: null,
    seats, ticketTypes: [{ name: 'Standing', priceCents: 3500, capacity: 200 }, { name: 'VIP', priceCents: 15000, capacity: 20 }],
  }), { timeoutMs: 60_000 });
  events.push(id);
  return id;
}

/** The catalog as it was built before: Prisma's seat rows, each tier sorted one comparison of strings at a time. */
async function referenceCatalog(eventId: string): Promise<Omit<Catalog, 'readAt'>> {
  const event = (await findEvent(db, eventId))!;
  const seats = await listSeatMap(db, eventId);
  const tiers = new Map<string, SeatRow[]>();
  for (const s of seats) tiers.set(s.tier, [...(tiers.get(s.tier) ?? []), s]);
  for (const t of tiers.values()) t.sort((a, b) => a.priceCents - b.priceCents || compareSeat(a, b));
  return { event, seats, seatById: new Map(seats.map((s) => [s.id, s])), tiers, ticketTypeById: new Map(event.ticketTypes.map((t) => [t.id, t])) };
}

/** The text of every statement sent to PostgreSQL while `fn` runs (a pass-through spy: they still run). */
async function statementsDuring<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const original = pg.Client.prototype.query;
  const spy = jest.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const q = args[0];
    statements.push(typeof q === 'string' ? q : String((q as { text?: string })?.text ?? ''));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original);
  try {
    return { result: await fn(), statements };
  } finally {
    spy.mockRestore();
  }
}

const readsSeats = (statements: string[]) => statements.filter((t) => /\bseats\b/i.test(t));

test('when an event with tiers, ticket types and a layout is loaded, then its catalog equals the one built from Prisma\'s rows', async () => {
  const eventId = await newEvent(venue());
  const catalog = (await new EventCatalog(db).get(eventId))!;
  const { readAt, ...built } = catalog;
  expect(readAt).toBeGreaterThan(0);
  const reference = await referenceCatalog(eventId);
  expect(built).toEqual(reference);
  expect([...built.tiers.keys()]).toEqual([...reference.tiers.keys()]);
  expect(built.seats).toHaveLength(4 * (3 * 7 + 9 * 9) + 5);
  // The ranks the index uses: price, then section, row (as numbers) and number.
  expect(built.tiers.get('main')!.slice(0, 6).map((s) => s.label)).toEqual(['Ärena-4-1', 'Ärena-4-2', 'Ärena-4-3', 'Ärena-4-4', 'Ärena-4-5', 'Ärena-4-6']);
  // Every seat is one object, wherever the catalog lists it.
  for (const s of built.seats) expect(built.seatById.get(s.id)).toBe(s);
});

test('when an event has no seats, then its catalog has none and its seats are not read', async () => {
  const eventId = await newEvent([]);
  const { result: catalog, statements } = await statementsDuring(() => new EventCatalog(db).get(eventId));
  expect(catalog).toMatchObject({ seats: [], seatById: new Map(), tiers: new Map() });
  expect(catalog!.ticketTypeById.size).toBe(2);
  expect(readsSeats(statements)).toEqual([]);
});

test('when an event is preloaded, then get() answers its catalog without reading the seat map, and concurrent calls share one read', async () => {
  const eventId = await newEvent(venue());
  const catalogs = new EventCatalog(db);
  const { result: loaded, statements } = await statementsDuring(() => Promise.all([catalogs.preload(eventId), catalogs.preload(eventId), catalogs.get(eventId)]));
  expect(loaded.slice(0, 2)).toEqual([true, true]);
  expect(readsSeats(statements)).toHaveLength(1);
  const again = await statementsDuring(() => catalogs.get(eventId));
  expect(again.result).toBe(loaded[2]);
  expect(again.statements).toEqual([]);
  expect(await catalogs.preload('00000000-0000-4000-8000-000000000000')).toBe(false);
});

test('when an event\'s settings are forgotten, then the next get() reads its row again but keeps its seats', async () => {
  const eventId = await newEvent(venue());
  const catalogs = new EventCatalog(db);
  const first = (await catalogs.get(eventId))!;
  const { id: _id, currency: _c, seatCount: _s, createdAt: _a, ticketTypes: _t, ...settings } = (await findEvent(db, eventId))!;
  await updateEventSettings(db, eventId, { ...settings, name: 'Renamed', maxTicketsPerCustomer: 2 });
  catalogs.invalidate(eventId);
  const { result: next, statements } = await statementsDuring(() => catalogs.get(eventId));
  expect(next!.event).toMatchObject({ name: 'Renamed', maxTicketsPerCustomer: 2 });
  expect(readsSeats(statements)).toEqual([]);
  expect(next!.seats).toBe(first.seats);
  expect(next!.tiers).toBe(first.tiers);
});

test('when PostgreSQL fails the seat map read of a preload, then the preload answers false, nothing is kept, and the next get() loads the catalog', async () => {
  const eventId = await newEvent(venue());
  const catalogs = new EventCatalog(db);
  // The seat map read waits on a lock held here, and its session is ended while it waits.
  const locker = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await locker.connect();
  let preloaded: Promise<boolean>;
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE seats IN ACCESS EXCLUSIVE MODE');
    preloaded = catalogs.preload(eventId);
    let waiting: number | undefined;
    for (let i = 0; i < 200 && waiting === undefined; i += 1) {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%json_agg(s.section)%'`);
      waiting = rows[0]?.pid;
      if (waiting === undefined) await new Promise((r) => setTimeout(r, 25));
    }
    expect(waiting).toBeDefined();
    await admin.query('SELECT pg_terminate_backend($1)', [waiting]);
    expect(await preloaded).toBe(false);
  } finally {
    await locker.query('ROLLBACK');
    await locker.end();
  }
  const { result: catalog, statements } = await statementsDuring(() => catalogs.get(eventId));
  expect(readsSeats(statements)).toHaveLength(1);
  const { readAt: _readAt, ...built } = catalog!;
  expect(built).toEqual(await referenceCatalog(eventId));
});
