import { readSaleState } from '@holdfast/db';
import type { DomainContext } from './context';

const inflight = new WeakMap<DomainContext, Map<string, Promise<void>>>();

/**
 * Loads an event's sale state from PostgreSQL into Redis when Redis does not
 * have it (first use, or after Redis lost its data). Concurrent callers in one
 * process share one load; across processes the script keeps the first.
 */
export function primeEvent(ctx: DomainContext, eventId: string): Promise<void> {
  let map = inflight.get(ctx);
  if (!map) inflight.set(ctx, (map = new Map()));
  let p = map.get(eventId);
  if (!p) {
    p = (async () => {
      const state = await readSaleState(ctx.db, eventId);
      const primed = await ctx.store.primeEvent({ eventId, ...state });
      if (primed) ctx.log.info({ eventId, soldSeats: state.soldSeatIds.length }, 'primed event in Redis from PostgreSQL');
    })().finally(() => map!.delete(eventId));
    map.set(eventId, p);
  }
  return p;
}

export async function ensurePrimed(ctx: DomainContext, eventId: string): Promise<void> {
  if (!(await ctx.store.isPrimed(eventId))) await primeEvent(ctx, eventId);
}
