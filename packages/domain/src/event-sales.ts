// The sales dashboard's numbers for one event: sold (PostgreSQL), held (Redis, live
// leases only) and available per tier and ticket type, revenue, holds and orders per minute.
import type { salesObject, z } from '@holdfast/contracts';
import { salesCounts } from '@holdfast/db';
import type { DomainContext } from './context';
import { errors } from './errors';
import { isUuid } from './ids';
import { waitlistNumbers } from './waitlist';

/** The contract's Sales object. */
export type EventSales = z.output<typeof salesObject>;

/** How far back the per-minute counts go. */
const WINDOW_MINUTES = 30;

export async function eventSales(ctx: DomainContext, eventId: string): Promise<EventSales> {
  if (!isUuid(eventId)) throw errors.eventNotFound();
  const catalog = await ctx.catalog.get(eventId);
  if (!catalog) throw errors.eventNotFound();
  const now = Date.now();
  const [counts, states, live, waiting] = await Promise.all([
    salesCounts(ctx.db, eventId, new Date(now - WINDOW_MINUTES * 60_000)),
    ctx.store.seatStates(eventId),
    ctx.store.readAvailability(eventId, catalog.event.ticketTypes.map((t) => t.id)),
    waitlistNumbers(ctx, eventId),
  ]);
  const lines = [...waiting.byScope];
  const heldPerTier = new Map<string, number>();
  for (const seatId of states.held) {
    const seat = catalog.seatById.get(seatId);
    if (seat && !states.sold.has(seatId)) heldPerTier.set(seat.tier, (heldPerTier.get(seat.tier) ?? 0) + 1);
  }
  return {
    eventId,
    currency: catalog.event.currency,
    asOf: new Date(now).toISOString(),
    orders: counts.orders,
    revenueCents: counts.revenueCents,
    tiers: counts.tiers.map((t) => {
      const held = Math.min(heldPerTier.get(t.tier) ?? 0, t.total - t.sold);
      return { ...t, held, available: t.total - t.sold - held };
    }),
    ticketTypes: counts.ticketTypes.map((t) => {
      const free = t.capacity - t.sold;
      const available = Math.max(0, Math.min(free, live?.get(t.id) ?? free));
      return {
        id: t.id, name: t.name, capacity: t.capacity, sold: t.sold, held: free - available, available,
        revenueCents: t.sold * t.priceCents,
      };
    }),
    perMinute: counts.perMinute.map((m) => ({ minute: m.minute.toISOString(), holds: m.holds, orders: m.orders })),
    waitlist: {
      waiting: waiting.waiting,
      offered: waiting.offered,
      tiers: lines.filter(([s]) => s.startsWith('t:')).map(([s, n]) => ({ tier: s.slice(2), ...n })),
      ticketTypes: lines.filter(([s]) => s.startsWith('tt:')).map(([s, n]) => ({ id: s.slice(3), ...n })),
    },
  };
}
