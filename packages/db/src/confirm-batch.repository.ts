import pg from 'pg';
import type { Db } from './client';
import { poolOf } from './client';
import { DatabaseUnavailable, translated, translateDbError } from './errors';
import type { OrderItemRow, OrderRow } from './order.repository';

/** One confirm of a batch (see holdfast_confirm_batch in the migration 20261123210000_confirm_batch). */
export interface ConfirmBatchItem {
  holdId: string;
  /**
   * Test seam: the year of the order number. Null (always, from the API): the year of
   * PostgreSQL's clock when the batch takes its numbers, which is also the order's createdAt.
   */
  year: number | null;
  /** Whether the confirm holds the hold's lease in Redis; only then may it sell the hold's items. */
  held: boolean;
  /**
   * When (performance.now() ms) the confirm's claim on that lease stops being safe to commit
   * on; null: no deadline. Sent as the milliseconds left when the statement is sent: past
   * them the function writes nothing for this confirm and answers `lapsed`.
   */
  claimUntil: number | null;
  provider: string;
  providerEventId: string | null;
  reference: string;
  /** Null: the hold's total. */
  amountCents: number | null;
  /** Null: the hold's currency. */
  currency: string | null;
  /** Set when an admin confirms: an audit entry names them. */
  auditActor: string | null;
  /** The hold as Redis has it, written as the hold's row when the outbox has not written it yet. */
  record: {
    eventId: string; customerId: string; createdAt: Date; expiresAt: Date; items: unknown; totalCents: number; currency: string;
    /**
     * The record's JSON object as Redis holds it (eventId, customerId, items, totalCents, currency:
     * the fields above but the times), already read with JSON.parse. When given, the batch sends
     * it as it is with createdAt and expiresAt added, instead of serialising those fields again.
     */
    json?: string;
  } | null;
}

/**
 * busy: a row it needed stayed locked past the batch's lock budget (or the order numbers past
 * theirs); it is tried again. lapsed: its claim would have ended before COMMIT; nothing written.
 * limit: the customer would own more than the event's maxTicketsPerCustomer; nothing sold.
 */
export type ConfirmBatchKind =
  | 'created' | 'existing' | 'released' | 'expired' | 'fence' | 'not_found' | 'unique' | 'busy' | 'invalid' | 'lapsed' | 'limit';

/** Why a confirm was refused by the customer's limit: the limit, what they own, what this hold adds. */
export interface LimitDetail {
  limit: number;
  owned: number;
  requested: number;
}

export interface ConfirmBatchResult {
  kind: ConfirmBatchKind;
  /** The order (created, or the hold's existing one); null for the other kinds. */
  order: OrderRow | null;
  /** For limit: the numbers behind the refusal. */
  detail: LimitDetail | null;
}

/**
 * The batch's statement was sent and no answer came (the client's query timeout, the
 * connection lost): it may have committed, wholly. `pid` is the server process that ran it
 * (settleConfirmBatch makes sure it is gone before anyone reads what it did).
 */
export class ConfirmOutcomeUnknown extends DatabaseUnavailable {
  override name = 'ConfirmOutcomeUnknown';
  constructor(message: string, readonly pid: number) {
    super(message);
  }
}

interface OrderJson extends Omit<OrderRow, 'createdAt' | 'items'> {
  createdAt: string;
  items: OrderItemRow[];
}

const SQL = 'SELECT idx, kind, order_json, detail FROM holdfast_confirm_batch($1::jsonb)';

type Row = { idx: number; kind: ConfirmBatchKind; order_json: OrderJson | null; detail: LimitDetail | null };

/** A JSON number as JSON.stringify writes it (null when not finite). */
function jsonNumber(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : 'null';
}

/** A JSON string, or null (a field JSON.stringify would have left out reads as null in the function too). */
function jsonString(value: string | null | undefined): string {
  return typeof value === 'string' ? JSON.stringify(value) : 'null';
}

/** A Date as JSON.stringify writes it (its ISO string; null when not valid). */
function jsonDate(value: Date): string {
  return Number.isNaN(value.getTime()) ? 'null' : `"${value.toISOString()}"`;
}

/**
 * The record as the function reads it. A record that carries its JSON from Redis (an object
 * that JSON.parse read) is sent as that text with createdAt and expiresAt added last (in jsonb
 * the last of a repeated key wins, so the record's own times win, as when its fields were
 * serialised): serialising the parsed record again was most of a confirm's part of the JSON.
 */
function recordJson(record: NonNullable<ConfirmBatchItem['record']>): string {
  const { json } = record;
  const times = `"createdAt":${jsonDate(record.createdAt)},"expiresAt":${jsonDate(record.expiresAt)}}`;
  if (json !== undefined) {
    const end = json.lastIndexOf('}');
    if (json.charCodeAt(0) === 123 /* { */ && end > 0) {
      const body = json.slice(0, end).trimEnd();
      return body.length > 1 ? `${body},${times}` : `{${times}`;
    }
  }
  const { json: _text, ...fields } = record;
  return JSON.stringify(fields);
}

/**
 * The items as the function reads them (what JSON.stringify made of each item without its
 * claimUntil, plus claimMs: the claim's deadline as the milliseconds left now), written field
 * by field. One JSON.stringify of the whole batch (each item copied twice first, each record's
 * fields serialised again, its dates through toJSON) took 3.4-3.7 µs a confirm in a batch of
 * 24; this takes 1.6-1.8 µs (packages/db/test/confirm-batch-json.test.ts checks that PostgreSQL
 * reads the same batch).
 */
export function batchJson(items: readonly ConfirmBatchItem[], now = performance.now()): string {
  let out = '[';
  for (let i = 0; i < items.length; i += 1) {
    const it = items[i]!;
    if (i > 0) out += ',';
    out += `{"holdId":${jsonString(it.holdId)},"year":${jsonNumber(it.year)},"held":${it.held ? 'true' : 'false'}`
      + `,"provider":${jsonString(it.provider)},"providerEventId":${jsonString(it.providerEventId)}`
      + `,"reference":${jsonString(it.reference)},"amountCents":${jsonNumber(it.amountCents)}`
      + `,"currency":${jsonString(it.currency)},"auditActor":${jsonString(it.auditActor)}`
      + `,"record":${it.record ? recordJson(it.record) : 'null'}`
      + `,"claimMs":${it.claimUntil === null ? 'null' : jsonNumber(Math.floor(it.claimUntil - now))}}`;
  }
  return `${out}]`;
}

/**
 * Confirms a batch of holds in ONE statement, so one transaction, one COMMIT
 * and one round trip: each confirm under its own savepoint, then the order
 * numbers of those that made an order, in batch order, gap-free. Runs on a
 * pooled connection directly (no interactive transaction: the statement is
 * atomic on its own), so a crash at any point leaves the whole batch committed
 * or none of it. A statement sent that got no answer throws ConfirmOutcomeUnknown
 * (PostgreSQL's own refusals, and failures before sending, are known: nothing
 * committed).
 */
export async function confirmBatch(db: Db, items: ConfirmBatchItem[]): Promise<ConfirmBatchResult[]> {
  const pool: pg.Pool | undefined = poolOf(db);
  let rows: Row[];
  if (pool) {
    const client = await translated(() => pool.connect());
    // The claims' deadlines are counted from here, once the connection is ours.
    const json = batchJson(items);
    try {
      rows = (await client.query<Row>(SQL, [json])).rows;
      client.release();
    } catch (err) {
      // PostgreSQL's own refusal: the statement failed, nothing of it committed.
      if (err instanceof pg.DatabaseError) {
        client.release();
        throw translateDbError(err);
      }
      client.release(err as Error);
      throw new ConfirmOutcomeUnknown((err as Error)?.message ?? String(err), (client as unknown as { processID: number }).processID);
    }
  } else {
    const json = batchJson(items);
    rows = await translated(() => db.$queryRawUnsafe<Row[]>(SQL, json));
  }
  if (rows.length !== items.length) throw new Error(`confirm batch answered ${rows.length} rows for ${items.length} confirms`);
  return rows.map((row) => ({
    kind: row.kind,
    order: row.order_json ? { ...row.order_json, createdAt: new Date(row.order_json.createdAt) } : null,
    detail: row.detail,
  }));
}

/**
 * After ConfirmOutcomeUnknown: makes sure the server process that ran the batch is gone (ended
 * if it still runs, waiting up to waitMs for it), so its transaction has committed or rolled
 * back for good and nothing of it can commit later. True when it is gone; false when that could
 * not be known in time (PostgreSQL did not answer). Needs the right to end the API's own
 * sessions (the same role, or pg_signal_backend).
 */
export async function settleConfirmBatch(db: Db, pid: number, waitMs: number): Promise<boolean> {
  const pool = poolOf(db);
  if (!pool || !pid) return false;
  try {
    const res = await pool.query<{ gone: boolean }>({
      text: `SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1) THEN true
                         ELSE pg_terminate_backend($1, $2) END AS gone`,
      values: [pid, waitMs],
      query_timeout: waitMs + 500,
    } as pg.QueryConfig);
    if (res.rows[0]?.gone) return true;
    const again = await pool.query<{ gone: boolean }>({
      text: 'SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1) AS gone', values: [pid], query_timeout: 500,
    } as pg.QueryConfig);
    return again.rows[0]?.gone === true;
  } catch {
    return false;
  }
}
