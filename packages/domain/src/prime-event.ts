import { findLiveHolds, readSaleState, runTransaction, type HoldRow } from '@holdfast/db';
import type { DomainContext } from './context';
import type { PrimeHold } from '@holdfast/hold-store';
import { holdContents, type HoldItem, type HoldRecordJson } from './hold-view';
import { syncSeatIndex } from './seat-index';
import { restoreWaitlist } from './waitlist-line';

const inflight = new WeakMap<DomainContext, Map<string, Promise<void>>>();

/**
 * Loads an event's sale state from PostgreSQL into Redis when Redis does not
 * have it (first use, or after Redis lost its data), with the leases of the
 * holds PostgreSQL still has ACTIVE and their records, so their seats, tickets
 * and customer limits stay theirs from the first request on (and they can be
 * extended or released as before); then the free-seat index best
 * available is decided on is built (seat-index.ts). Concurrent callers in one
 * process share one load; across processes the script keeps the first.
 * PostgreSQL is read in one snapshot; a hold that ended between that read and
 * the script's write (its end found the event not primed) is applied as it
 * ended, from the status its end left on its record (prime-event-4.lua).
 */
export function primeEvent(ctx: DomainContext, eventId: string): Promise<void> {
  let map = inflight.get(ctx);
  if (!map) inflight.set(ctx, (map = new Map()));
  let p = map.get(eventId);
  if (!p) {
    p = (async () => {
      // One snapshot: the sold seats, sales and live holds of one instant (a confirm is in all of them or none).
      const { state, live } = await runTransaction(ctx.db, async (tx) => {
        const state = await readSaleState(tx, eventId);
        return { state, live: await findLiveHolds(tx, eventId, new Date(await ctx.store.nowMs())) };
      }, { isolationLevel: 'RepeatableRead', timeoutMs: 60_000 });
      const liveHolds = live.map((h): PrimeHold => ({
        holdId: h.id, customerId: h.customerId, createdAtMs: h.createdAt.getTime(), expiresAtMs: h.expiresAt.getTime(),
        extensions: h.extensions, recordJson: holdRecordJson(h), ...holdContents(h.items as HoldItem[]),
      }));
      const primed = await ctx.store.primeEvent({ eventId, ...state, liveHolds });
      if (primed) ctx.log.info({ eventId, soldSeats: state.soldSeatIds.length }, 'primed event in Redis from PostgreSQL');
      // Best available needs the free-seat index, built from the state just loaded.
      await syncSeatIndex(ctx, eventId);
      // Redis had lost the event: its waiting lines come back from PostgreSQL (the record), in join order.
      if (primed) await restoreWaitlist(ctx, eventId);
    })().finally(() => map!.delete(eventId));
    map.set(eventId, p);
  }
  return p;
}

export async function ensurePrimed(ctx: DomainContext, eventId: string): Promise<void> {
  if (!(await ctx.store.isPrimed(eventId))) await primeEvent(ctx, eventId);
}

/** A hold's record as the hold scripts write it, made from its row. */
function holdRecordJson(h: HoldRow): string {
  const record: HoldRecordJson = {
    eventId: h.eventId, customerId: h.customerId, items: h.items as HoldItem[], currency: h.currency, totalCents: h.totalCents,
  };
  return JSON.stringify(record);
}
