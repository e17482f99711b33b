import type { DbClient } from './event.repository';
import { translated } from './errors';

/** waiting | offered | purchased | expired | left | removed (see schema.prisma, WaitlistEntry). */
export type WaitlistStateDb = 'waiting' | 'offered' | 'purchased' | 'expired' | 'left' | 'removed';

export interface WaitlistEntryRow {
  id: string;
  eventId: string;
  customerId: string;
  tier: string | null;
  ticketTypeId: string | null;
  quantity: number;
  /** Join order. */
  seq: number;
  state: WaitlistStateDb;
  holdId: string | null;
  offeredAt: Date | null;
  offerExpiresAt: Date | null;
  createdAt: Date;
  endedAt: Date | null;
  /** The offer's hold as PostgreSQL has it (null before it is persisted). */
  holdStatus: 'ACTIVE' | 'CONFIRMED' | 'EXPIRED' | 'RELEASED' | null;
  holdExpiresAt: Date | null;
}

export interface NewWaitlistEntry {
  id: string;
  eventId: string;
  customerId: string;
  tier: string | null;
  ticketTypeId: string | null;
  quantity: number;
}

type Raw = Omit<WaitlistEntryRow, 'seq'> & { seq: bigint | number };
const row = (r: Raw): WaitlistEntryRow => ({ ...r, seq: Number(r.seq) });

const SELECT = `
  SELECT w.id::text AS "id", w.event_id::text AS "eventId", w.customer_id AS "customerId", w.tier,
         w.ticket_type_id::text AS "ticketTypeId", w.quantity, w.seq, w.state, w.hold_id AS "holdId",
         w.offered_at AS "offeredAt", w.offer_expires_at AS "offerExpiresAt", w.created_at AS "createdAt",
         w.ended_at AS "endedAt", h.status::text AS "holdStatus", h.expires_at AS "holdExpiresAt"
  FROM waitlist_entries w LEFT JOIN holds h ON h.id = w.hold_id`;

/** Inserts an entry unless the customer has a live one for the scope (then null: read that one). */
export async function insertWaitlistEntry(tx: DbClient, e: NewWaitlistEntry): Promise<WaitlistEntryRow | null> {
  const inserted = await translated(() => tx.$queryRawUnsafe<{ id: string }[]>(`
    INSERT INTO waitlist_entries (id, event_id, customer_id, tier, ticket_type_id, quantity)
    VALUES ($1::uuid, $2::uuid, $3, $4, $5::uuid, $6)
    ON CONFLICT DO NOTHING RETURNING id::text AS id`, e.id, e.eventId, e.customerId, e.tier, e.ticketTypeId, e.quantity));
  return inserted.length ? findWaitlistEntry(tx, e.id) : null;
}

export async function findWaitlistEntry(db: DbClient, id: string): Promise<WaitlistEntryRow | null> {
  const rows = await translated(() => db.$queryRawUnsafe<Raw[]>(`${SELECT} WHERE w.id = $1::uuid`, id));
  return rows[0] ? row(rows[0]) : null;
}

/** Locks an entry's row for the rest of the transaction, or null. */
export async function lockWaitlistEntry(tx: DbClient, id: string): Promise<WaitlistEntryRow | null> {
  const locked = await translated(() => tx.$queryRawUnsafe<{ id: string }[]>(
    'SELECT id::text AS id FROM waitlist_entries WHERE id = $1::uuid FOR UPDATE', id));
  return locked.length ? findWaitlistEntry(tx, id) : null;
}

/** The customer's live entry (waiting or offered) for a tier or ticket type, or null. */
export async function findLiveWaitlistEntry(
  db: DbClient, eventId: string, customerId: string, tier: string | null, ticketTypeId: string | null,
): Promise<WaitlistEntryRow | null> {
  const rows = await translated(() => db.$queryRawUnsafe<Raw[]>(`${SELECT}
    WHERE w.event_id = $1::uuid AND w.customer_id = $2 AND COALESCE(w.tier, '') = COALESCE($3, '')
      AND COALESCE(w.ticket_type_id::text, '') = COALESCE($4, '') AND w.state IN ('waiting', 'offered')`,
  eventId, customerId, tier, ticketTypeId));
  return rows[0] ? row(rows[0]) : null;
}

/** A customer's entries of an event (every state), in join order. */
export async function listCustomerWaitlist(db: DbClient, eventId: string, customerId: string): Promise<WaitlistEntryRow[]> {
  const rows = await translated(() => db.$queryRawUnsafe<Raw[]>(`${SELECT}
    WHERE w.event_id = $1::uuid AND w.customer_id = $2 ORDER BY w.seq`, eventId, customerId));
  return rows.map(row);
}

/** An event's entries in join order: the live ones (waiting, offered), or every one. */
export async function listEventWaitlist(db: DbClient, eventId: string, liveOnly: boolean, limit = 1000): Promise<WaitlistEntryRow[]> {
  const rows = await translated(() => db.$queryRawUnsafe<Raw[]>(`${SELECT}
    WHERE w.event_id = $1::uuid ${liveOnly ? "AND w.state IN ('waiting', 'offered')" : ''} ORDER BY w.seq LIMIT $2`,
  eventId, limit));
  return rows.map(row);
}

/**
 * The entries' offers, from their holds' records (the outbox): only entries
 * still waiting move; those that did are answered. Runs in the transaction that
 * wrote the holds' rows, and locks them first: an offer whose hold already
 * ended (bought, released or expired before the outbox reached PostgreSQL: the
 * confirm or the release wrote its row) ends its entry as that hold did, and is
 * not answered (no offer to announce any more); a release or confirm of a hold
 * still active waits for this transaction, so the offer comes first.
 */
export async function markWaitlistOffered(
  db: DbClient, offers: { entryId: string; holdId: string; offeredAt: Date; expiresAt: Date }[],
): Promise<WaitlistEntryRow[]> {
  if (!offers.length) return [];
  const args = [
    offers.map((o) => o.entryId), offers.map((o) => o.holdId), offers.map((o) => o.offeredAt.toISOString()),
    offers.map((o) => o.expiresAt.toISOString()),
  ];
  await translated(() => db.$queryRawUnsafe(`SELECT id FROM holds WHERE id = ANY ($1::text[]) ORDER BY id FOR UPDATE`, args[1]));
  await translated(() => db.$executeRawUnsafe(`
    UPDATE waitlist_entries w
    SET state = CASE h.status WHEN 'CONFIRMED' THEN 'purchased' WHEN 'RELEASED' THEN 'left' ELSE 'expired' END,
        hold_id = u.hold_id, offered_at = u.offered_at, offer_expires_at = u.expires_at, ended_at = COALESCE(h.ended_at, now())
    FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::timestamptz[]) AS u(id, hold_id, offered_at, expires_at)
    JOIN holds h ON h.id = u.hold_id AND h.status <> 'ACTIVE'
    WHERE w.id = u.id AND w.state = 'waiting'`, ...args));
  const moved = await translated(() => db.$queryRawUnsafe<{ id: string }[]>(`
    UPDATE waitlist_entries w SET state = 'offered', hold_id = u.hold_id, offered_at = u.offered_at, offer_expires_at = u.expires_at
    FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::timestamptz[]) AS u(id, hold_id, offered_at, expires_at)
    WHERE w.id = u.id AND w.state = 'waiting' RETURNING w.id::text AS id`, ...args));
  const rows = await translated(() => db.$queryRawUnsafe<Raw[]>(`${SELECT} WHERE w.id = ANY($1::uuid[]) ORDER BY w.seq`, moved.map((m) => m.id)));
  return rows.map(row);
}

/** The entries whose offers were these holds end expired (in the holds' expiry transaction); the entries, as they are now. */
export async function expireWaitlistOffers(tx: DbClient, holdIds: readonly string[], at: Date): Promise<WaitlistEntryRow[]> {
  if (!holdIds.length) return [];
  const ended = await translated(() => tx.$queryRawUnsafe<{ id: string }[]>(`
    UPDATE waitlist_entries SET state = 'expired', ended_at = $2::timestamptz
    WHERE hold_id = ANY ($1::text[]) AND state = 'offered' RETURNING id::text AS id`, holdIds, at.toISOString()));
  if (!ended.length) return [];
  const rows = await translated(() => tx.$queryRawUnsafe<Raw[]>(`${SELECT} WHERE w.id = ANY ($1::uuid[])`, ended.map((e) => e.id)));
  return rows.map(row);
}

/**
 * Offered entries whose hold has ended in PostgreSQL take the hold's outcome:
 * confirmed -> purchased, released -> left, expired -> expired.
 */
export async function settleWaitlistOffers(db: DbClient, eventId: string): Promise<number> {
  return translated(() => db.$executeRawUnsafe(`
    UPDATE waitlist_entries w
    SET state = CASE h.status WHEN 'CONFIRMED' THEN 'purchased' WHEN 'RELEASED' THEN 'left' ELSE 'expired' END,
        ended_at = COALESCE(h.ended_at, now())
    FROM holds h
    WHERE h.id = w.hold_id AND w.event_id = $1::uuid AND w.state = 'offered' AND h.status <> 'ACTIVE'`, eventId));
}

/** An entry leaves (left, removed) or ends otherwise; only a live one changes. */
export async function endWaitlistEntry(tx: DbClient, id: string, state: WaitlistStateDb, holdId?: string | null): Promise<void> {
  await translated(() => tx.$executeRawUnsafe(`
    UPDATE waitlist_entries SET state = $2, ended_at = now(), hold_id = COALESCE(hold_id, $3)
    WHERE id = $1::uuid AND state IN ('waiting', 'offered')`, id, state, holdId ?? null));
}

/** How an entry that left ended after all (its offer was bought meanwhile), with the offer's hold. */
export async function setWaitlistEntryOutcome(db: DbClient, id: string, state: WaitlistStateDb, holdId: string): Promise<void> {
  await translated(() => db.$executeRawUnsafe(`
    UPDATE waitlist_entries SET state = $2, hold_id = $3, ended_at = COALESCE(ended_at, now()) WHERE id = $1::uuid`, id, state, holdId));
}

/** Removes an entry Redis never took (its join failed there): nothing half-written. */
export async function deleteWaitlistEntry(db: DbClient, id: string): Promise<void> {
  await translated(() => db.$executeRawUnsafe('DELETE FROM waitlist_entries WHERE id = $1::uuid', id));
}
