// A hold's time ran out unconfirmed: PostgreSQL marks it expired (only while it is
// still active and due), then Redis frees the keys it still owns and announces its seats.
import { expireHoldIfDue, findDueHolds, findHold, runTransaction, type HoldRow } from '@holdfast/db';
import type { DomainContext } from './context';
import { endHoldInRedis } from './holds';
import { holdFromRow } from './hold-view';
import { recordWebhookEvent } from './webhook-events';
import { offerExpired } from './waitlist-line';

export type ExpireOutcome =
  | { kind: 'expired' }
  | { kind: 'already_ended'; status: HoldRow['status'] }
  | { kind: 'not_due'; expiresAt: Date }
  | { kind: 'missing' };

/**
 * Expires one hold. Idempotent: a second run finds the row expired already and
 * only repeats the compare-and-delete in Redis, which changes nothing by then
 * (and completes the job of a run that died between the two steps).
 * "Due" is decided on Redis's clock (the one the hold's expiresAt was set on
 * and its leases run out on), not this process's: `now` only when a caller
 * read it already. A hold not due answers when it is, on this process's clock
 * (so a job can be delayed until then whatever the skew).
 */
export async function expireHold(ctx: DomainContext, holdId: string, now?: Date): Promise<ExpireOutcome> {
  const row = await findHold(ctx.db, holdId);
  if (!row) return { kind: 'missing' };
  if (row.status === 'ACTIVE') {
    now ??= new Date(await ctx.store.nowMs());
    if (row.expiresAt > now) return notDue(row.expiresAt, now);
    const due = now;
    // The hold's end and its hold.expired event (webhooks) commit together.
    const expired = await runTransaction(ctx.db, async (tx) => {
      if (!(await expireHoldIfDue(tx, holdId, due))) return false;
      const hold = holdFromRow({ ...row, status: 'EXPIRED' }, due.getTime());
      await recordWebhookEvent(tx, 'hold.expired', { hold }, holdId);
      // A waiting-list offer that ran out: its entry ends expired, with its own event.
      await offerExpired(tx, holdId, due, hold, recordWebhookEvent);
      return true;
    });
    if (expired) {
      ctx.metrics.holdsExpired(1);
      await endHoldInRedisAfter(ctx, row);
      ctx.log.info({ holdId, eventId: row.eventId }, 'hold expired');
      return { kind: 'expired' };
    }
    // Someone else ended it in between (a confirm, a release, another run), or
    // extended it: then the job waits for the new time.
    const now2 = await findHold(ctx.db, holdId);
    if (!now2) return { kind: 'missing' };
    if (now2.status === 'ACTIVE') return notDue(now2.expiresAt, now);
    if (now2.status === 'EXPIRED') await endHoldInRedisAfter(ctx, now2);
    return { kind: 'already_ended', status: now2.status };
  }
  // EXPIRED but not by this run (a rerun after a crash between the two steps, or a late payment
  // confirming it): free what it still owns. A confirm in flight claims the hold in Redis, and
  // end-hold leaves a claimed hold alone, so no pause is needed to let it finish.
  if (row.status === 'EXPIRED') await endHoldInRedisAfter(ctx, row);
  return { kind: 'already_ended', status: row.status };
}

/** Not due: its time, moved from Redis's clock (`now`) to this process's. */
function notDue(expiresAt: Date, now: Date): ExpireOutcome {
  return { kind: 'not_due', expiresAt: new Date(Date.now() + (expiresAt.getTime() - now.getTime())) };
}

/**
 * Frees the hold's keys in Redis, unless the row has moved on meanwhile (a late
 * payment may have confirmed the expired hold; its own end in Redis wins).
 */
async function endHoldInRedisAfter(ctx: DomainContext, row: HoldRow): Promise<void> {
  const fresh = await findHold(ctx.db, row.id);
  if (fresh?.status !== 'EXPIRED') return;
  await endHoldInRedis(ctx, fresh, 'expired');
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
    for (const row of due) {
      const r = await expireHold(ctx, row.id, now);
      if (r.kind === 'expired') expired++;
    }
    if (due.length < batch) return expired;
  }
}
