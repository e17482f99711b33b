// The admin console's list of orders, optionally for one event, oldest first,
// keyset-paged so rows added while an admin pages through are never doubled.
import { listOrderRows, type OrderRow } from '@holdfast/db';
import type { DomainContext } from './context';
import type { HoldItem } from './hold-view';
import { decodeAdminCursor } from './admin-cursor';
import { encodeCursor, type Page } from './paging';

/** The contract's Order object. */
export interface OrderView {
  id: string;
  number: string;
  eventId: string;
  customerId: string;
  holdId: string;
  status: 'confirmed';
  items: HoldItem[];
  totalCents: number;
  currency: string;
  paymentReference: string;
  createdAt: string;
}

export function orderFromRow(row: OrderRow): OrderView {
  return {
    id: row.id,
    number: row.number,
    eventId: row.eventId,
    customerId: row.customerId,
    holdId: row.holdId,
    status: 'confirmed',
    items: row.items.map((i): HoldItem =>
      i.seatId
        ? { seatId: i.seatId, label: i.label, tier: i.tier ?? '', priceCents: i.priceCents, quantity: 1 }
        : { ticketTypeId: i.ticketTypeId ?? '', name: i.label, priceCents: i.priceCents, quantity: i.quantity },
    ),
    totalCents: row.totalCents,
    currency: row.currency,
    paymentReference: row.paymentReference,
    createdAt: row.createdAt.toISOString(),
  };
}

export async function adminListOrders(
  ctx: DomainContext,
  q: { eventId?: string; limit: number; cursor?: string },
): Promise<Page<OrderView>> {
  const c = q.cursor ? decodeAdminCursor(q.cursor, 'uuid') : undefined;
  const rows = await listOrderRows(ctx.db, { eventId: q.eventId }, q.limit + 1, c && { at: c.createdAt, id: c.id });
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(orderFromRow),
    nextCursor: rows.length > q.limit && last ? encodeCursor(last.createdAt, last.id) : null,
  };
}
