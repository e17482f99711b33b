// A buyer whose payment takes longer asks for more time: the hold's expiresAt moves
// to now + the event's hold time, within the event's limits, in PostgreSQL and Redis together.
import { recordHoldExtension, runTransaction } from '@holdfast/db';
import type { DomainContext } from './context';
import { errors } from './errors';
import { eventOfHoldId } from './ids';
import { holdContents, holdFromRow, type Hold, type HoldItem } from './hold-view';
import { lockHoldRow, type Principal } from './holds';
import { holdQueuePassUntil } from './waiting-room';
import { primeEvent } from './prime-event';

/**
 * Extends a hold (its owner, or an admin). The hold's row stays locked while the
 * Redis script moves every lease, so the expiry job (a conditional UPDATE on the
 * same row) runs either before (the hold is expired, the extend refused) or after
 * (it finds the hold not due and waits for the new time): never half of each.
 * Redis decides on its own clock whether the lease is still live.
 */
export async function extendHold(ctx: DomainContext, principal: Principal, holdId: string): Promise<Hold> {
  const eventId = eventOfHoldId(holdId);
  if (!eventId) throw errors.holdNotFound();
  const catalog = await ctx.catalog.get(eventId);
  if (!catalog) throw errors.holdNotFound();
  const { event } = catalog;
  const row = await runTransaction(ctx.db, async (tx) => {
    const row = await lockHoldRow(ctx, tx, holdId);
    if (!row || (principal.role === 'customer' && row.customerId !== principal.id)) throw errors.holdNotFound();
    if (row.status === 'CONFIRMED') throw errors.holdAlreadyConfirmed();
    if (row.status === 'RELEASED') throw errors.holdReleased();
    // Whether its time has run out is decided by the script, on Redis's clock (not this process's).
    if (row.status === 'EXPIRED') throw errors.holdExpired();
    if (row.extensions >= event.maxHoldExtensions) throw errors.extensionLimitReached(event.maxHoldExtensions);
    const { seatIds, ticketTypeId, quantity } = holdContents(row.items as HoldItem[]);
    const latest = row.createdAt.getTime() + event.maxHoldSeconds * 1000;
    const input = {
      eventId, holdId, customerId: row.customerId, ttlMs: event.holdTtlSeconds * 1000, latestExpiresAtMs: latest,
      seatIds, ticketTypeId, quantity,
    };
    let r = await ctx.store.extendHold(input);
    // Redis lost the event's data: priming restores the hold's leases and record, then it is extended.
    if (r.kind === 'missing' && !(await ctx.store.isPrimed(eventId))) {
      await primeEvent(ctx, eventId);
      r = await ctx.store.extendHold(input);
    }
    switch (r.kind) {
      case 'ok':
        return recordHoldExtension(tx, holdId, new Date(r.expiresAtMs));
      case 'cap':
        throw errors.holdTimeCapReached(event.maxHoldSeconds, new Date(r.expiresAtMs).toISOString());
      case 'not_active':
        if (r.status === 'confirmed') throw errors.holdAlreadyConfirmed();
        if (r.status === 'released') throw errors.holdReleased();
        throw errors.holdExpired();
      case 'missing':
      case 'expired':
        throw errors.holdExpired();
    }
  });
  ctx.log.info({ holdId, eventId, expiresAt: row.expiresAt, extensions: row.extensions }, 'hold extended');
  // The buyer's queue pass (issue 29) lasts as long as their hold: it moves with it.
  if (event.waitingRoom) await holdQueuePassUntil(ctx, eventId, row.customerId, row.id, row.expiresAt.getTime());
  return holdFromRow(row);
}
