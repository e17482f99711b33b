import type pg from 'pg';
import type { Db } from './client';
import { poolOf } from './client';
import { translated } from './errors';
import type { OrderItemRow, OrderRow } from './order.repository';

/** One confirm of a batch (see holdfast_confirm_batch in the migration 20261123210000_confirm_batch). */
export interface ConfirmBatchItem {
  holdId: string;
  /** The year of the order number. */
  year: number;
  /** Whether the confirm holds the hold's lease in Redis; only then may it sell the hold's items. */
  held: boolean;
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
  } | null;
}

/** busy: a row it needed stayed locked past the lock timeout (5 s); it is tried again. */
export type ConfirmBatchKind = 'created' | 'existing' | 'released' | 'expired' | 'fence' | 'not_found' | 'unique' | 'busy' | 'invalid';

export interface ConfirmBatchResult {
  kind: ConfirmBatchKind;
  /** The order (created, or the hold's existing one); null for the other kinds. */
  order: OrderRow | null;
}

interface OrderJson extends Omit<OrderRow, 'createdAt' | 'items'> {
  createdAt: string;
  items: OrderItemRow[];
}

const SQL = 'SELECT idx, kind, order_json FROM holdfast_confirm_batch($1::jsonb)';

/**
 * Confirms a batch of holds in ONE statement, so one transaction, one COMMIT
 * and one round trip: each confirm under its own savepoint, then the order
 * numbers of those that made an order, in batch order, gap-free. Runs on the
 * pool directly (no interactive transaction: the statement is atomic on its
 * own), so a crash at any point leaves the whole batch committed or none of it.
 */
export async function confirmBatch(db: Db, items: ConfirmBatchItem[]): Promise<ConfirmBatchResult[]> {
  const json = JSON.stringify(items);
  const pool: pg.Pool | undefined = poolOf(db);
  const rows = await translated(async () => {
    if (pool) return (await pool.query<{ idx: number; kind: ConfirmBatchKind; order_json: OrderJson | null }>(SQL, [json])).rows;
    return db.$queryRawUnsafe<{ idx: number; kind: ConfirmBatchKind; order_json: OrderJson | null }[]>(SQL, json);
  });
  if (rows.length !== items.length) throw new Error(`confirm batch answered ${rows.length} rows for ${items.length} confirms`);
  return rows.map((row) => ({
    kind: row.kind,
    order: row.order_json ? { ...row.order_json, createdAt: new Date(row.order_json.createdAt) } : null,
  }));
}
