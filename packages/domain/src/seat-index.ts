// The free-seat index best available is decided on (hold-best-12.lua): built in
// Redis from the catalog (PostgreSQL) and the seat keys when an event is primed,
// and checked against them again by reconciliation.
import type { FreeSeatSync, IndexedSeat, TierRange } from '@holdfast/hold-store';
import type { DomainContext } from './context';
import type { Catalog } from './event-catalog';

export interface SeatIndexLayout {
  seats: IndexedSeat[];
  tiers: TierRange[];
}

/** By the catalog's tiers: a catalog made again for new settings keeps its seats and their layout. */
const layouts = new WeakMap<Catalog['tiers'], SeatIndexLayout>();

/**
 * Ranks every seat by tier (by name), then price, section, row (as numbers) and
 * number: the catalog's tiers are sorted that way already. Seats never change
 * after an event is created, so every process computes the same ranks.
 */
export function seatIndexLayout(catalog: Catalog): SeatIndexLayout {
  let layout = layouts.get(catalog.tiers);
  if (layout) return layout;
  const seats: IndexedSeat[] = [];
  const tiers: TierRange[] = [];
  const rowIds = new Map<string, number>();
  for (const tier of [...catalog.tiers.keys()].sort()) {
    const lo = seats.length;
    for (const s of catalog.tiers.get(tier)!) {
      const rowKey = `${s.section}\u0000${s.row}`;
      let rowId = rowIds.get(rowKey);
      if (rowId === undefined) rowIds.set(rowKey, (rowId = rowIds.size));
      seats.push({ id: s.id, rank: seats.length, rowId, number: s.number, priceCents: s.priceCents, label: s.label });
    }
    tiers.push({ tier, lo, hi: seats.length - 1 });
  }
  layout = { seats, tiers };
  layouts.set(catalog.tiers, layout);
  return layout;
}

export interface SeatIndexSync {
  /** The index was not complete (new event, or Redis lost it): it was built. */
  rebuilt: boolean;
  /** Free seats missing from the free set, added (drift when the index was complete). */
  missing: number;
  /** Taken or sold seats found in the free set, removed (drift when the index was complete). */
  extra: number;
  /** Seats whose lease had lapsed by time, given back (not drift). */
  lapsed: number;
}

const CHUNK = 2000;
const inflight = new WeakMap<DomainContext, Map<string, Promise<SeatIndexSync>>>();

/**
 * Builds or repairs the event's free-seat index, chunk by chunk (each chunk is
 * atomic against holds and ends of holds). Concurrent callers in one process
 * share one run. A no-op for events without seats.
 */
export function syncSeatIndex(ctx: DomainContext, eventId: string): Promise<SeatIndexSync> {
  let map = inflight.get(ctx);
  if (!map) inflight.set(ctx, (map = new Map()));
  let p = map.get(eventId);
  if (!p) {
    p = (async () => {
      const out: SeatIndexSync = { rebuilt: false, missing: 0, extra: 0, lapsed: 0 };
      const catalog = await ctx.catalog.get(eventId);
      if (!catalog || catalog.seats.length === 0) return out;
      const { seats, tiers } = seatIndexLayout(catalog);
      for (let i = 0; i < seats.length; i += CHUNK) {
        const last = i + CHUNK >= seats.length ? { tiers, seatCount: seats.length } : null;
        const r: FreeSeatSync = await ctx.store.syncFreeSeats(eventId, seats.slice(i, i + CHUNK), last);
        if (i === 0) out.rebuilt = !r.wasComplete;
        out.missing += r.added;
        out.extra += r.removed;
        out.lapsed += r.lapsed;
      }
      if (out.rebuilt) ctx.log.info({ eventId, seats: seats.length }, 'built the free-seat index in Redis');
      return out;
    })().finally(() => map!.delete(eventId));
    map.set(eventId, p);
  }
  return p;
}
