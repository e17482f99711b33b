import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Prisma } from '@prisma/client';
import { poolOf, type Db } from './client';
import { translated } from './errors';
import { money } from './money';
import { BULK_STATEMENT_TIMEOUT_MS, bulkStatement, runTransaction, type Tx } from './transaction';

export type DbClient = Db | Prisma.TransactionClient;

export interface NewSeat {
  section: string;
  row: string;
  number: number;
  tier: string;
  priceCents: number;
}

export type SalesStatus = 'draft' | 'on_sale' | 'closed';

/** An event's waiting room (stored as JSON in events.waiting_room; null: none). */
export interface WaitingRoom {
  admitPerMinute: number;
  maxActive: number;
  passSeconds: number;
  preQueueSeconds: number;
  challengeBits: number;
}

/** An event's settings that may change after it is created. */
export interface EventSettings {
  name: string;
  startsAt: Date;
  holdTtlSeconds: number;
  maxTicketsPerCustomer: number;
  maxHoldExtensions: number;
  maxHoldSeconds: number;
  /** How long a waiting-list offer lasts. */
  waitlistOfferSeconds: number;
  salesStatus: SalesStatus;
  salesStartAt: Date | null;
  salesEndAt: Date | null;
  waitingRoom: WaitingRoom | null;
}

export interface NewEvent extends EventSettings {
  currency: string;
  seats: NewSeat[];
  ticketTypes: { name: string; priceCents: number; capacity: number }[];
}

export interface SeatRow {
  id: string;
  section: string;
  row: string;
  number: number;
  label: string;
  tier: string;
  priceCents: number;
}

export interface TicketTypeRow {
  id: string;
  name: string;
  priceCents: number;
  capacity: number;
  sold: number;
}

export interface EventRow extends EventSettings {
  id: string;
  currency: string;
  seatCount: number;
  createdAt: Date;
  ticketTypes: TicketTypeRow[];
}

const eventSelect = {
  id: true, name: true, startsAt: true, currency: true, holdTtlSeconds: true,
  maxTicketsPerCustomer: true, seatCount: true, createdAt: true,
  maxHoldExtensions: true, maxHoldSeconds: true, waitlistOfferSeconds: true, salesStatus: true, salesStartAt: true, salesEndAt: true, waitingRoom: true,
  ticketTypes: { select: { id: true, name: true, priceCents: true, capacity: true, sold: true }, orderBy: { position: 'asc' } },
} as const;

/** Inserts an event, its seats (one bulk INSERT ... SELECT FROM unnest) and its ticket types. */
export async function insertEvent(tx: DbClient, input: NewEvent): Promise<string> {
  return translated(async () => {
    const id = randomUUID();
    await tx.event.create({
      data: {
        id, name: input.name, startsAt: input.startsAt, currency: input.currency,
        holdTtlSeconds: input.holdTtlSeconds, maxTicketsPerCustomer: input.maxTicketsPerCustomer,
        maxHoldExtensions: input.maxHoldExtensions, maxHoldSeconds: input.maxHoldSeconds,
        waitlistOfferSeconds: input.waitlistOfferSeconds,
        salesStatus: input.salesStatus, salesStartAt: input.salesStartAt, salesEndAt: input.salesEndAt,
        waitingRoom: jsonOrNull(input.waitingRoom),
        seatCount: input.seats.length,
      },
    });
    if (input.seats.length) {
      // Up to 100,000 seats in one statement: more than a request's statement budget. They go as
      // one JSON text parameter: as seven arrays of 100,000 parameters each, the client spent a
      // minute (on a loaded machine) preparing the statement inside the open transaction, past
      // PostgreSQL's idle-in-transaction timeout, which ended the session.
      const seats = JSON.stringify(input.seats.map((x) => ({
        id: randomUUID(), section: x.section, row: x.row, number: x.number, label: `${x.section}-${x.row}-${x.number}`,
        tier: x.tier, price_cents: x.priceCents,
      })));
      await bulkStatement(tx as Tx, () => tx.$executeRaw`
        INSERT INTO seats (id, event_id, section, "row", number, label, tier, price_cents)
        SELECT u.id, ${id}::uuid, u.section, u.row, u.number, u.label, u.tier, u.price_cents
        FROM json_to_recordset(${seats}::json)
             AS u(id uuid, section text, "row" text, number int, label text, tier text, price_cents bigint)`);
    }
    if (input.ticketTypes.length) {
      await tx.ticketType.createMany({
        data: input.ticketTypes.map((t, position) => ({ id: randomUUID(), eventId: id, position, ...t })),
      });
    }
    return id;
  });
}

/** A JSON column's value, or SQL NULL (Prisma's DbNull) for null. */
function jsonOrNull(value: WaitingRoom | null): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null ? Prisma.DbNull : { ...value };
}

type RawEventRow = Omit<EventRow, 'ticketTypes' | 'salesStatus' | 'waitingRoom'> & {
  salesStatus: string; waitingRoom: Prisma.JsonValue; ticketTypes: (Omit<TicketTypeRow, 'priceCents'> & { priceCents: bigint })[];
};
/** An event as Prisma reads it (money as bigint) made an EventRow. */
function eventRow(r: RawEventRow): EventRow {
  return { ...r, salesStatus: r.salesStatus as SalesStatus, waitingRoom: waitingRoomOf(r.waitingRoom), ticketTypes: r.ticketTypes.map((t) => ({ ...t, priceCents: money(t.priceCents) })) };
}

function waitingRoomOf(v: Prisma.JsonValue): WaitingRoom | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  return {
    admitPerMinute: Number(o.admitPerMinute), maxActive: Number(o.maxActive), passSeconds: Number(o.passSeconds),
    preQueueSeconds: Number(o.preQueueSeconds), challengeBits: Number(o.challengeBits ?? 0),
  };
}

export async function findEvent(db: DbClient, id: string): Promise<EventRow | null> {
  const r = await translated(() => db.event.findUnique({ where: { id }, select: eventSelect }));
  return r && eventRow(r);
}

/** Locks the event's row for the rest of the transaction and reads it; null when there is none. */
export async function lockEvent(tx: DbClient, id: string): Promise<EventRow | null> {
  const locked = await translated(() => tx.$queryRaw<{ id: string }[]>`SELECT id::text FROM events WHERE id = ${id}::uuid FOR UPDATE`);
  return locked.length ? findEvent(tx, id) : null;
}

/** Locks a ticket type's row (confirms of it wait) and reads its capacity and sold; null when there is none. */
export async function lockTicketType(tx: DbClient, eventId: string, id: string): Promise<{ capacity: number; sold: number } | null> {
  const rows = await translated(() => tx.$queryRaw<{ capacity: number; sold: number }[]>`
    SELECT capacity, sold FROM ticket_types WHERE id = ${id}::uuid AND event_id = ${eventId}::uuid FOR UPDATE`);
  return rows[0] ?? null;
}

export async function updateEventSettings(tx: DbClient, id: string, settings: EventSettings): Promise<void> {
  await translated(() => tx.event.update({ where: { id }, data: { ...settings, waitingRoom: jsonOrNull(settings.waitingRoom) } }));
}

/** Events in creation order, keyset-paged on (createdAt, id) so pages stay right while rows are added. */
export async function listEvents(db: DbClient, limit: number, after?: { createdAt: Date; id: string }): Promise<EventRow[]> {
  const rows = await translated(() =>
    db.event.findMany({
      select: eventSelect,
      where: after
        ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }
        : undefined,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
    }),
  );
  return rows.map(eventRow);
}

export async function listSeats(db: DbClient, eventId: string): Promise<SeatRow[]> {
  const rows = await translated(() =>
    db.seat.findMany({
      where: { eventId },
      select: { id: true, section: true, row: true, number: true, label: true, tier: true, priceCents: true },
      orderBy: [{ section: 'asc' }, { row: 'asc' }, { number: 'asc' }],
    }),
  );
  return rows.map((r) => ({ ...r, priceCents: money(r.priceCents) }));
}

/** An event's whole seat map (up to 100,000 rows) in one read through Prisma, with the bulk statement budget. */
export function listSeatMap(db: Db, eventId: string): Promise<SeatRow[]> {
  return runTransaction(db, (tx) => bulkStatement(tx, () => listSeats(tx, eventId)), { timeoutMs: BULK_STATEMENT_TIMEOUT_MS });
}

/**
 * An event's seat map in columns: seat i is (ids[i], sections[i], rows[i],
 * numbers[i], labels[i], tiers[i], priceCents[i]), in (section, row, number)
 * order, as listSeats reads them.
 */
export interface SeatMapColumns {
  ids: string[];
  sections: string[];
  rows: string[];
  numbers: number[];
  labels: string[];
  tiers: string[];
  priceCents: number[];
}

/**
 * One row holding the seat map as seven JSON texts, one array a column. The
 * rows come from the ordered subquery into one aggregate node, so every array
 * lists the seats in the same order (the index on (event_id, section, row,
 * number) reads them in it); an ORDER BY in each aggregate would sort the seats
 * seven times.
 */
const SEAT_MAP_COLUMNS = `
    SELECT COALESCE(json_agg(s.id), '[]')::text AS ids, COALESCE(json_agg(s.section), '[]')::text AS sections,
           COALESCE(json_agg(s."row"), '[]')::text AS rows, COALESCE(json_agg(s.number), '[]')::text AS numbers,
           COALESCE(json_agg(s.label), '[]')::text AS labels, COALESCE(json_agg(s.tier), '[]')::text AS tiers,
           COALESCE(json_agg(s.price_cents), '[]')::text AS price_cents
    FROM (SELECT id, section, "row", number, label, tier, price_cents FROM seats
          WHERE event_id = $1::uuid ORDER BY section, "row", number) s`;

type SeatMapTexts = Record<'ids' | 'sections' | 'rows' | 'numbers' | 'labels' | 'tiers' | 'price_cents', string>;

/**
 * An event's whole seat map (up to 100,000 seats) in one statement with the
 * bulk statement budget, as columns: the process that sells the event keeps it
 * in memory (the domain's EventCatalog). Read straight from the pool when there
 * is one, each column one JSON text parsed at once, a turn of the event loop
 * given back between columns: through Prisma, 100,000 rows cost about 330 ms of
 * CPU in one stretch (docs/benchmarks-run.md, "Seat catalog load").
 */
export async function readSeatMapColumns(db: Db, eventId: string): Promise<SeatMapColumns> {
  const pool = poolOf(db);
  let texts: SeatMapTexts;
  if (pool) {
    texts = await translated(async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // The client's query timeout follows this budget (pg-pool.ts) until COMMIT.
        await client.query(`SET LOCAL statement_timeout = ${BULK_STATEMENT_TIMEOUT_MS}`);
        const res = await client.query<SeatMapTexts>({ text: SEAT_MAP_COLUMNS, values: [eventId] });
        await client.query('COMMIT');
        client.release();
        return res.rows[0]!;
      } catch (err) {
        // The connection's state is unknown (a transaction may be open): it is not handed out again.
        client.release(err as Error);
        throw err;
      }
    });
  } else {
    const rows = await runTransaction(db, (tx) => bulkStatement(tx, () => tx.$queryRawUnsafe<SeatMapTexts[]>(SEAT_MAP_COLUMNS, eventId)), {
      timeoutMs: BULK_STATEMENT_TIMEOUT_MS,
    });
    texts = rows[0]!;
  }
  const column = async <T>(text: string): Promise<T[]> => {
    await nextTurn();
    return JSON.parse(text) as T[];
  };
  const priceCents = await column<number>(texts.price_cents);
  // Money past Number.MAX_SAFE_INTEGER cannot come back exactly from JSON: refused, as money() refuses it.
  for (const p of priceCents) if (!Number.isSafeInteger(p)) throw new RangeError(`amount ${p} cents is beyond Number.MAX_SAFE_INTEGER`);
  return {
    ids: await column(texts.ids), sections: await column(texts.sections), rows: await column(texts.rows), numbers: await column(texts.numbers),
    labels: await column(texts.labels), tiers: await column(texts.tiers), priceCents,
  };
}

export interface SaleState {
  soldSeatIds: string[];
  ticketTypes: { id: string; capacity: number; sold: number }[];
  bought: { customerId: string; quantity: number }[];
}

/** What PostgreSQL says is sold: the truth Redis is primed from. */
export async function readSaleState(db: DbClient, eventId: string): Promise<SaleState> {
  return translated(async () => {
    const [sold, ticketTypes, bought] = await Promise.all([
      db.seat.findMany({ where: { eventId, status: 'SOLD' }, select: { id: true } }),
      db.ticketType.findMany({ where: { eventId }, select: { id: true, capacity: true, sold: true } }),
      db.$queryRaw<{ customer_id: string; quantity: bigint }[]>`
        SELECT o.customer_id, SUM(i.quantity)::bigint AS quantity
        FROM orders o JOIN order_items i ON i.order_id = o.id
        WHERE o.event_id = ${eventId}::uuid AND o.status <> 'cancelled' GROUP BY o.customer_id`,
    ]);
    return {
      soldSeatIds: sold.map((s) => s.id),
      ticketTypes,
      bought: bought.map((b) => ({ customerId: b.customer_id, quantity: Number(b.quantity) })),
    };
  });
}

/** A customer's purchases for one event: total tickets, and the orders made since `recentSince`. */
export interface CustomerPurchases {
  customerId: string;
  quantity: number;
  recent: { holdId: string; quantity: number }[];
}

/**
 * Tickets bought per customer of an event (seats count one each), read in one
 * statement, with each customer's orders made since `recentSince` (those whose
 * end in Redis may still be on its way).
 */
export async function customerPurchases(db: DbClient, eventId: string, recentSince: Date): Promise<CustomerPurchases[]> {
  const rows = await translated(() => db.$queryRaw<{ customer_id: string; quantity: bigint; recent_holds: string[]; recent_quantities: bigint[] }[]>`
    WITH per_order AS (
      SELECT o.customer_id, o.hold_id, o.created_at, SUM(i.quantity)::bigint AS q
      FROM orders o JOIN order_items i ON i.order_id = o.id
      WHERE o.event_id = ${eventId}::uuid AND o.status <> 'cancelled' GROUP BY o.id)
    SELECT customer_id, SUM(q)::bigint AS quantity,
           COALESCE(array_agg(hold_id) FILTER (WHERE created_at > ${recentSince}), '{}') AS recent_holds,
           COALESCE(array_agg(q) FILTER (WHERE created_at > ${recentSince}), '{}') AS recent_quantities
    FROM per_order GROUP BY customer_id`);
  return rows.map((r) => ({
    customerId: r.customer_id,
    quantity: Number(r.quantity),
    recent: r.recent_holds.map((holdId, i) => ({ holdId, quantity: Number(r.recent_quantities[i]) })),
  }));
}

export function seatStatuses(db: DbClient, eventId: string): Promise<{ id: string; status: 'AVAILABLE' | 'SOLD' }[]> {
  return translated(() => db.seat.findMany({ where: { eventId }, select: { id: true, status: true } }));
}
