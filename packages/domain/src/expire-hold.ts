// Holds whose time ran out unconfirmed: PostgreSQL marks those still active and due expired,
// all of a batch in one transaction, then Redis frees the keys each still owns and announces its seats.
import { expireHoldsIfDue, findDueHolds, findHolds, runTransaction, type HoldRow } from '@holdfast/db';
import type { DomainContext } from './context';
import { endHoldInRedis } from './holds';
import { holdFromRow } from './hold-view';
import { offersExpired } from './waitlist-line';
import { recordWebhookEvents } from './webhook-events';

export type ExpireOutcome =
  | { kind: 'expired' }
  | { kind: 'already_ended'; status: HoldRow['status'] }
  | { kind: 'not_due'; expiresAt: Date }
  | { kind: 'missing' };

/** Holds expired in one transaction (an expiry job's holds go in slices of this many). */
export const EXPIRE_HOLDS_PER_TRANSACTION = 100;

/**
 * Expires one hold: expireHolds of one. Idempotent: a second run finds the row
 * expired already and only repeats the compare-and-delete in Redis, which changes
 * nothing by then (and completes the job of a run that died between the two steps).
 */
export async function expireHold(ctx: DomainContext, holdId: string, now?: Date): Promise<ExpireOutcome> {
  return (await expireHolds(ctx, [holdId], now)).get(holdId)!;
}

/**
 * Expires those of `holdIds` still active and due: one statement marks them
 * expired, and their hold.expired events (webhooks) and the waiting-list offers
 * among them commit in the same transaction. Every hold gets its outcome.
 * Idempotent, as expireHold is. "Due" is decided on Redis's clock (the one the
 * holds' expiresAt were set on and their leases run out on), not this process's:
 * `now` only when a caller read it already. A hold not due answers when it is, on
 * this process's clock (so a job can be delayed until then whatever the skew).
 * Every hold's keys in Redis are freed even when one of them fails; then the
 * first failure is thrown (a rerun does the rest: the rows are expired already).
 */
export async function expireHolds(ctx: DomainContext, holdIds: readonly string[], now?: Date): Promise<Map<string, ExpireOutcome>> {
  const outcomes = new Map<string, ExpireOutcome>();
  const ids = [...new Set(holdIds)];
  if (!ids.length) return outcomes;
  const due = now ?? new Date(await ctx.store.nowMs());
  const expired = await runTransaction(ctx.db, async (tx) => {
    const rows = await expireHoldsIfDue(tx, ids, due);
    if (rows.length) {
      const views = rows.map((row) => holdFromRow(row, due.getTime()));
      await recordWebhookEvents(tx, 'hold.expired', views.map((hold) => ({ data: { hold }, orderingKey: hold.id })));
      // Waiting-list offers that ran out: their entries end expired, each with its own event after the hold's.
      await offersExpired(tx, views, due);
    }
    return rows;
  });
  for (const row of expired) outcomes.set(row.id, { kind: 'expired' });
  // One read of every hold after the commit. The others: gone, extended (not due), or ended by
  // someone else (a confirm, a release, another run). Every hold EXPIRED now (by this run, or by
  // one that died before Redis) frees what it still owns; one a late payment confirmed meanwhile
  // is left to that confirm's own end in Redis.
  const toFree: HoldRow[] = [];
  for (const row of await findHolds(ctx.db, ids)) {
    if (!outcomes.has(row.id)) {
      outcomes.set(row.id, row.status === 'ACTIVE' ? notDue(row.expiresAt, due) : { kind: 'already_ended', status: row.status });
    }
    if (row.status === 'EXPIRED') toFree.push(row);
  }
  for (const id of ids) if (!outcomes.has(id)) outcomes.set(id, { kind: 'missing' });
  if (expired.length) {
    ctx.metrics.holdsExpired(expired.length);
    for (const row of expired) ctx.log.info({ holdId: row.id, eventId: row.eventId }, 'hold expired');
  }
  await endHoldsInRedis(ctx, toFree);
  return outcomes;
}

/** Not due: its time, moved from Redis's clock (`now`) to this process's. */
function notDue(expiresAt: Date, now: Date): ExpireOutcome {
  return { kind: 'not_due', expiresAt: new Date(Date.now() + (expiresAt.getTime() - now.getTime())) };
}

/**
 * Frees the holds' keys in Redis. A confirm in flight claims the hold in Redis, and
 * end-hold leaves a claimed hold alone, so no pause is needed to let it finish.
 */
async function endHoldsInRedis(ctx: DomainContext, rows: readonly HoldRow[]): Promise<void> {
  const ends = await Promise.allSettled(rows.map((row) => endHoldInRedis(ctx, row, 'expired')));
  const failed = ends.find((e): e is PromiseRejectedResult => e.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * The sweep behind the expiry jobs: expires every active hold that is due in
 * PostgreSQL (jobs lost with Redis's data, or never scheduled because the API
 * died first), due on Redis's clock unless `now` is given. Returns how many it expired.
 */
export async function expireDueHolds(ctx: DomainContext, now?: Date, batch = 500): Promise<number> {
  now ??= new Date(await ctx.store.nowMs());
  let expired = 0;
  for (;;) {
    const due = await findDueHolds(ctx.db, now, batch);
    for (let i = 0; i < due.length; i += EXPIRE_HOLDS_PER_TRANSACTION) {
      const outcomes = await expireHolds(ctx, due.slice(i, i + EXPIRE_HOLDS_PER_TRANSACTION).map((row) => row.id), now);
      for (const o of outcomes.values()) if (o.kind === 'expired') expired++;
    }
    if (due.length < batch) return expired;
  }
}
