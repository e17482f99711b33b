import type { DbClient } from './event.repository';
import { translated } from './errors';
import { money } from './money';

export interface SalesCounts {
  /** Seats per tier: how many, how many sold, and the revenue of the sold ones. */
  tiers: { tier: string; total: number; sold: number; revenueCents: number }[];
  /** Ticket types with what was sold of each. */
  ticketTypes: { id: string; name: string; capacity: number; sold: number; priceCents: number }[];
  orders: number;
  revenueCents: number;
  /** Holds taken and orders made per minute since `since` (minutes with neither are absent). */
  perMinute: { minute: Date; holds: number; orders: number }[];
}

/** An event's sales numbers as PostgreSQL has them (a handful of aggregate queries). */
export async function salesCounts(db: DbClient, eventId: string, since: Date): Promise<SalesCounts> {
  return translated(async () => {
    const [tiers, ticketTypes, totals, perMinute] = await Promise.all([
      db.$queryRaw<{ tier: string; total: number; sold: number; revenueCents: bigint }[]>`
        SELECT tier, count(*)::int AS total, (count(*) FILTER (WHERE status = 'SOLD'))::int AS sold,
               COALESCE(sum(price_cents) FILTER (WHERE status = 'SOLD'), 0)::bigint AS "revenueCents"
        FROM seats WHERE event_id = ${eventId}::uuid GROUP BY tier ORDER BY min(price_cents) DESC, tier`,
      db.ticketType.findMany({
        where: { eventId }, select: { id: true, name: true, capacity: true, sold: true, priceCents: true }, orderBy: { position: 'asc' },
      }),
      db.$queryRaw<{ orders: number; revenueCents: bigint }[]>`
        SELECT count(*)::int AS orders, COALESCE(sum(total_cents), 0)::bigint AS "revenueCents"
        FROM orders WHERE event_id = ${eventId}::uuid AND status <> 'cancelled'`,
      db.$queryRaw<{ minute: Date; holds: number; orders: number }[]>`
        SELECT minute, sum(holds)::int AS holds, sum(orders)::int AS orders FROM (
          SELECT date_trunc('minute', created_at) AS minute, 1 AS holds, 0 AS orders
            FROM holds WHERE event_id = ${eventId}::uuid AND created_at >= ${since.toISOString()}::timestamptz
          UNION ALL
          SELECT date_trunc('minute', created_at), 0, 1
            FROM orders WHERE event_id = ${eventId}::uuid AND created_at >= ${since.toISOString()}::timestamptz
        ) m GROUP BY minute ORDER BY minute`,
    ]);
    return {
      tiers: tiers.map((t) => ({ ...t, revenueCents: money(t.revenueCents) })),
      ticketTypes: ticketTypes.map((t) => ({ ...t, priceCents: money(t.priceCents) })),
      orders: totals[0]?.orders ?? 0, revenueCents: money(totals[0]?.revenueCents ?? 0), perMinute,
    };
  });
}
