import { Prisma } from '@prisma/client';
import type { DbClient } from './event.repository';
import { poolOf, type Db } from './client';
import { translated } from './errors';
import { money } from './money';

export type HoldStatusDb = 'ACTIVE' | 'CONFIRMED' | 'EXPIRED' | 'RELEASED';

export interface HoldRow {
  id: string;
  eventId: string;
  customerId: string;
  status: HoldStatusDb;
  createdAt: Date;
  expiresAt: Date;
  items: unknown;
  totalCents: number;
  currency: string;
  orderId: string | null;
  releasedBy: string | null;
  /** Times the hold was extended. */
  extensions: number;
}

export type NewHoldRow = Omit<HoldRow, 'status' | 'orderId' | 'releasedBy' | 'extensions'>;

const holdSelect = {
  id: true, eventId: true, customerId: true, status: true, createdAt: true, expiresAt: true,
  items: true, totalCents: true, currency: true, orderId: true, releasedBy: true, extensions: true,
} as const;

/**
 * Inserts hold records that are not there yet; never overwrites one (its status may have moved on).
 * In id order, as the confirm batch inserts the holds it finds missing (holdfast_confirm_batch):
 * two inserters of the same new holds each wait for the other's uncommitted row, and in two
 * different orders that was a deadlock (a second's stall, then one of them refused).
 */
const INSERT_HOLDS = `
    INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
    SELECT u.id, u.event_id, u.customer_id, 'ACTIVE', u.created_at, u.expires_at, u.items, u.total_cents, u.currency
    FROM unnest($1::text[], $2::uuid[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::jsonb[], $7::bigint[], $8::text[])
         AS u(id, event_id, customer_id, created_at, expires_at, items, total_cents, currency)
    ORDER BY u.id
    ON CONFLICT (id) DO NOTHING`;

export async function insertHoldsIfMissing(db: DbClient, rows: NewHoldRow[]): Promise<number> {
  if (!rows.length) return 0;
  // One statement for the whole batch (it runs on the API's event loop, beside
  // the hold requests): arrays in, unnest, ON CONFLICT DO NOTHING. On the root
  // client it goes to the pool directly, skipping Prisma's query compiler (it showed
  // in a hold's CPU profile, docs/benchmarks.md, "Settings chosen by measurement"); inside a transaction, through it.
  const params = [
    rows.map((h) => h.id), rows.map((h) => h.eventId), rows.map((h) => h.customerId),
    rows.map((h) => h.createdAt.toISOString()), rows.map((h) => h.expiresAt.toISOString()),
    rows.map((h) => JSON.stringify(h.items)), rows.map((h) => String(h.totalCents)), rows.map((h) => h.currency),
  ];
  const pool = poolOf(db as Db);
  if (pool) return translated(async () => (await pool.query(INSERT_HOLDS, params)).rowCount ?? 0);
  return translated(() => db.$executeRawUnsafe(INSERT_HOLDS, ...params));
}

/** A hold's outbox record as the hold script wrote it: its id, times and the record's JSON (HoldRecordJson). */
export interface HoldRecordText {
  holdId: string;
  createdAtMs: number;
  expiresAtMs: number;
  /** The record's JSON text, read by PostgreSQL: customerId, items, totalCents, currency. */
  json: string;
}

/**
 * insertHoldsIfMissing for the outbox drain: the records of one event as one
 * JSON parameter, the records' own text inside it, so neither their items are
 * written out again nor eight arrays escaped element by element (pg's array
 * literals: two regular-expression replaces per element, the largest
 * allocation of the drain in a hold's heap profile). The row is the one the
 * record gives insertHoldsIfMissing: PostgreSQL reads the same fields (its
 * casts refuse what the arrays' casts refused: SQLSTATE class 22 or 23).
 */
const INSERT_HOLD_RECORDS = `
    INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
    SELECT u.id, $2::uuid, u.r->>'customerId', 'ACTIVE',
           timestamptz 'epoch' + u.c * interval '1 millisecond', timestamptz 'epoch' + u.x * interval '1 millisecond',
           u.r->'items', (u.r->>'totalCents')::bigint, u.r->>'currency'
    FROM jsonb_to_recordset($1::jsonb) AS u(id text, c bigint, x bigint, r jsonb)
    ORDER BY u.id
    ON CONFLICT (id) DO NOTHING`;

export async function insertHoldRecordsIfMissing(db: DbClient, eventId: string, records: readonly HoldRecordText[]): Promise<number> {
  if (!records.length) return 0;
  let json = '[';
  for (let i = 0; i < records.length; i += 1) {
    const r = records[i]!;
    json += `${i ? ',' : ''}{"id":${JSON.stringify(r.holdId)},"c":${r.createdAtMs},"x":${r.expiresAtMs},"r":${r.json}}`;
  }
  json += ']';
  const pool = poolOf(db as Db);
  if (pool) return translated(async () => (await pool.query(INSERT_HOLD_RECORDS, [json, eventId])).rowCount ?? 0);
  return translated(() => db.$executeRawUnsafe(INSERT_HOLD_RECORDS, json, eventId));
}

/** A hold row as PostgreSQL or Prisma hands it over (money as bigint) made a HoldRow. */
function holdRow<T extends { totalCents: bigint | number }>(r: T): Omit<T, 'totalCents'> & { totalCents: number } {
  return { ...r, totalCents: money(r.totalCents) };
}
const holdRows = <T extends { totalCents: bigint | number }>(rows: T[]) => rows.map(holdRow);
type RawHoldRow = Omit<HoldRow, 'totalCents'> & { totalCents: bigint };

export async function findHold(db: DbClient, id: string): Promise<HoldRow | null> {
  const r = await translated(() => db.hold.findUnique({ where: { id }, select: holdSelect }));
  return r && holdRow(r);
}

/** The hold columns as HoldRow fields, for raw statements on the confirm path. */
const HOLD_COLUMNS = Prisma.sql`id, event_id::text AS "eventId", customer_id AS "customerId", status::text AS status,
  created_at AS "createdAt", expires_at AS "expiresAt", items, total_cents AS "totalCents", currency::text AS currency,
  order_id::text AS "orderId", released_by AS "releasedBy", extensions`;

/**
 * Locks the hold's row for the rest of the transaction and reads it, in one
 * statement (raw SQL: the confirm path is CPU-bound in the client); null when
 * there is none.
 */
export async function lockHold(tx: DbClient, id: string): Promise<HoldRow | null> {
  const rows = await translated(() => tx.$queryRaw<RawHoldRow[]>`SELECT ${HOLD_COLUMNS} FROM holds WHERE id = ${id} FOR UPDATE`);
  return rows[0] ? holdRow(rows[0]) : null;
}

/** Moves a hold to a new status (and records its order, releaser or end), in one statement. */
export async function updateHold(
  tx: DbClient,
  id: string,
  data: { status: HoldStatusDb; orderId?: string; releasedBy?: string; releasedAt?: Date; endedAt?: Date },
): Promise<HoldRow> {
  const rows = await translated(() => tx.$queryRaw<RawHoldRow[]>`
    UPDATE holds SET status = ${data.status}::"HoldStatus",
      order_id = COALESCE(${data.orderId ?? null}::uuid, order_id),
      released_by = COALESCE(${data.releasedBy ?? null}::text, released_by),
      released_at = COALESCE(${data.releasedAt?.toISOString() ?? null}::timestamptz, released_at),
      ended_at = COALESCE(${data.endedAt?.toISOString() ?? null}::timestamptz, ended_at)
    WHERE id = ${id}
    RETURNING ${HOLD_COLUMNS}`);
  if (!rows[0]) throw new Error(`hold ${id} vanished while it was locked`);
  return holdRow(rows[0]);
}

/** Records an extension of a locked, active hold: its new expiry and one more extension. */
export async function recordHoldExtension(tx: DbClient, id: string, expiresAt: Date): Promise<HoldRow> {
  const rows = await translated(() => tx.$queryRaw<RawHoldRow[]>`
    UPDATE holds SET expires_at = ${expiresAt.toISOString()}::timestamptz, extensions = extensions + 1
    WHERE id = ${id} AND status = 'ACTIVE'
    RETURNING ${HOLD_COLUMNS}`);
  if (!rows[0]) throw new Error(`hold ${id} left ACTIVE while it was locked`);
  return holdRow(rows[0]);
}

/**
 * Expires, in one statement, those of `ids` still ACTIVE and due at `now`, and answers their
 * rows as they are now (EXPIRED). The rows are locked in id order, as the confirm batch locks
 * the holds it confirms, so an expiry and a confirm batch sharing holds never deadlock.
 */
export async function expireHoldsIfDue(db: DbClient, ids: readonly string[], now: Date): Promise<HoldRow[]> {
  if (!ids.length) return [];
  const rows = await translated(() => db.$queryRaw<RawHoldRow[]>`
    UPDATE holds SET status = 'EXPIRED', ended_at = ${now}
    WHERE id IN (
      SELECT id FROM holds WHERE id = ANY (${ids}::text[]) AND status = 'ACTIVE' AND expires_at <= ${now} ORDER BY id FOR UPDATE
    )
    RETURNING ${HOLD_COLUMNS}`);
  return holdRows(rows);
}

/** The rows of those of `ids` that exist. */
export async function findHolds(db: DbClient, ids: readonly string[]): Promise<HoldRow[]> {
  if (!ids.length) return [];
  return holdRows(await translated(() => db.hold.findMany({ where: { id: { in: [...ids] } }, select: holdSelect })));
}

export interface HoldFilter {
  eventId?: string;
  status?: HoldStatusDb;
  /** Active rows whose time has passed read as expired: filter them by time too. */
  expiredAsOf?: Date;
  activeAsOf?: Date;
}

export async function listHolds(db: DbClient, filter: HoldFilter, limit: number, after?: { createdAt: Date; id: string }): Promise<HoldRow[]> {
  const where: Prisma.HoldWhereInput = { eventId: filter.eventId };
  if (filter.activeAsOf) Object.assign(where, { status: 'ACTIVE', expiresAt: { gt: filter.activeAsOf } });
  else if (filter.expiredAsOf) {
    where.OR = [{ status: 'EXPIRED' }, { status: 'ACTIVE', expiresAt: { lte: filter.expiredAsOf } }];
  } else if (filter.status) where.status = filter.status;
  const page: Prisma.HoldWhereInput | undefined = after
    ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }
    : undefined;
  return holdRows(await translated(() =>
    db.hold.findMany({
      where: page ? { AND: [where, page] } : where,
      select: holdSelect,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
    }),
  ));
}

/** Active holds whose time has passed: the expiry bookkeeping's work list. */
export async function findDueHolds(db: DbClient, now: Date, limit: number): Promise<HoldRow[]> {
  return holdRows(await translated(() =>
    db.hold.findMany({
      where: { status: 'ACTIVE', expiresAt: { lte: now } },
      select: holdSelect,
      orderBy: { expiresAt: 'asc' },
      take: limit,
    }),
  ));
}

/** Holds still active and not yet due, of one event (reconciliation checks their leases). */
export async function findLiveHolds(db: DbClient, eventId: string, now: Date): Promise<HoldRow[]> {
  return holdRows(await translated(() =>
    db.hold.findMany({ where: { eventId, status: 'ACTIVE', expiresAt: { gt: now } }, select: holdSelect }),
  ));
}

/** The events that have holds still active and not yet due. */
export async function eventsWithLiveHolds(db: DbClient, now: Date): Promise<string[]> {
  return translated(async () => {
    const rows = await db.hold.findMany({
      where: { status: 'ACTIVE', expiresAt: { gt: now } }, select: { eventId: true }, distinct: ['eventId'],
    });
    return rows.map((r) => r.eventId);
  });
}

/** Which of these events exist. */
export async function existingEventIds(db: DbClient, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  return translated(async () => {
    const rows = await db.event.findMany({ where: { id: { in: ids } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  });
}

/** Status of each of these holds that has a row. */
export async function holdStatuses(db: DbClient, ids: string[]): Promise<Map<string, HoldStatusDb>> {
  if (!ids.length) return new Map();
  return translated(async () => {
    const rows = await db.hold.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } });
    return new Map(rows.map((r) => [r.id, r.status]));
  });
}
