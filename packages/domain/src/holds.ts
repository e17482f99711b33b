// Reading and releasing holds: the owner (or an admin, with a reason) ends a hold;
// PostgreSQL records it first, then Redis frees exactly the keys this hold owns.
import type { role, z } from '@holdfast/contracts';
import {
  findHold, insertHoldsIfMissing, lockHold, recordAudit, runTransaction, updateHold, type HoldRow, type Tx,
} from '@holdfast/db';
import type { DomainContext } from './context';
import { endQueuePass } from './waiting-room';
import { errors } from './errors';
import { eventOfHoldId } from './ids';
import { holdContents, holdFromRecord, holdFromRow, rowFromRecord, type Hold, type HoldItem } from './hold-view';
import { recordWebhookEvent } from './webhook-events';

export type Principal = { id: string; role: z.output<typeof role> };

/** The hold as PostgreSQL has it, or (before its record is persisted) as Redis has it. */
export async function findAnyHold(ctx: DomainContext, holdId: string): Promise<Hold | null> {
  const eventId = eventOfHoldId(holdId);
  if (!eventId) return null;
  const row = await findHold(ctx.db, holdId);
  if (row) return holdFromRow(row);
  const record = await ctx.store.getHoldRecord(eventId, holdId);
  if (record) return holdFromRecord(record);
  // An ended hold's Redis record is a tombstone without items, written only after
  // PostgreSQL committed the hold's row: a hold that ended meanwhile is there now.
  const ended = await findHold(ctx.db, holdId);
  return ended ? holdFromRow(ended) : null;
}

export async function getHold(ctx: DomainContext, principal: Principal, holdId: string): Promise<Hold> {
  const hold = await findAnyHold(ctx, holdId);
  if (!hold || (principal.role === 'customer' && hold.customerId !== principal.id)) throw errors.holdNotFound();
  return hold;
}

/**
 * Locks the hold's row, inserting it first from the Redis record when the
 * outbox has not persisted it yet. Null when neither store knows the hold.
 */
export async function lockHoldRow(ctx: DomainContext, tx: Tx, holdId: string): Promise<HoldRow | null> {
  const eventId = eventOfHoldId(holdId);
  if (!eventId) return null;
  const row = await lockHold(tx, holdId);
  if (row) return row;
  const record = await ctx.store.getHoldRecord(eventId, holdId);
  // No record with items: unknown, or ended meanwhile (its tombstone is written only after
  // PostgreSQL committed the row, which this read-committed statement now sees).
  if (!record) return lockHold(tx, holdId);
  await insertHoldsIfMissing(tx, [rowFromRecord(record)]);
  return lockHold(tx, holdId);
}

export type Releaser = { kind: 'customer'; customerId: string } | { kind: 'admin'; adminId: string; reason: string };

export async function releaseHold(ctx: DomainContext, holdId: string, by: Releaser): Promise<Hold> {
  const now = new Date();
  const outcome = await runTransaction(ctx.db, async (tx) => {
    const row = await lockHoldRow(ctx, tx, holdId);
    if (!row || (by.kind === 'customer' && row.customerId !== by.customerId)) throw errors.holdNotFound();
    if (row.status === 'CONFIRMED') throw errors.holdAlreadyConfirmed();
    if (row.status !== 'ACTIVE') return { row, changed: false };
    if (row.expiresAt <= now) {
      // Already over by time: answer with the hold as it is, and record that.
      const expired = await updateHold(tx, holdId, { status: 'EXPIRED', endedAt: now });
      await recordWebhookEvent(tx, 'hold.expired', { hold: holdFromRow(expired, now.getTime()) }, holdId);
      return { row: expired, changed: false };
    }
    const updated = await updateHold(tx, holdId, {
      status: 'RELEASED', releasedBy: by.kind, releasedAt: now, endedAt: now,
    });
    await recordWebhookEvent(tx, 'hold.released', { hold: holdFromRow(updated, now.getTime()) }, holdId);
    if (by.kind === 'admin') {
      await recordAudit(tx, {
        actor: `admin:${by.adminId}`, action: 'hold.released', eventId: row.eventId, holdId, reason: by.reason,
      });
    }
    return { row: updated, changed: true };
  });
  if (outcome.changed) {
    await endHoldInRedis(ctx, outcome.row, 'released');
    // The buyer's queue pass (issue 29) ends with their hold: the next place is admitted.
    await endQueuePass(ctx, outcome.row.eventId, outcome.row.customerId, outcome.row.id, 'released');
  }
  return holdFromRow(outcome.row);
}

/**
 * Frees (or, on confirm, marks sold) the hold's keys in Redis; idempotent. A
 * release or expiry changes nothing while a confirm claims the hold (that
 * confirm ends it); `claimToken` is a giving-up confirm's own claim. Confirmed
 * ends asked for in one event-loop turn (a committed batch's) go in one script
 * call per event (HoldStore.endConfirmedHold).
 */
export async function endHoldInRedis(
  ctx: DomainContext,
  row: Pick<HoldRow, 'id' | 'eventId' | 'customerId' | 'items'>,
  mode: 'released' | 'expired' | 'confirmed',
  claimToken?: string,
): Promise<void> {
  const { seatIds, ticketTypeId, quantity } = holdContents(row.items as HoldItem[]);
  const hold = { eventId: row.eventId, holdId: row.id, customerId: row.customerId, seatIds, ticketTypeId, quantity };
  // A confirmed end goes with the others of its turn (a committed batch's): one script call per event.
  const ended = mode === 'confirmed' ? await ctx.store.endConfirmedHold(hold) : await ctx.store.endHold({ ...hold, mode, claimToken });
  // What came back went to waiting lists as new holds (offers): PostgreSQL hears of them from the outbox.
  if (ended.offers) ctx.persister.notify(row.eventId);
}
