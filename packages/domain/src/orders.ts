// Reading an order: its owner, an integrator (service) or an admin sees it; any
// other customer gets the same 404 as for an id that does not exist.
import type { orderObject, z } from '@holdfast/contracts';
import { findOrder, type OrderItemRow, type OrderRow } from '@holdfast/db';
import type { DomainContext } from './context';
import { errors } from './errors';
import type { Principal } from './holds';
import type { HoldItem } from './hold-view';
import { isUuid } from './ids';

/** The contract's Order object. */
export type Order = z.output<typeof orderObject>;

/** An order line as the hold had it: a seat, or a quantity of one ticket type. */
export function itemFromRow(item: OrderItemRow): HoldItem {
  if (item.seatId) {
    return { seatId: item.seatId, label: item.label, tier: item.tier ?? '', priceCents: item.priceCents, quantity: 1 };
  }
  return { ticketTypeId: item.ticketTypeId ?? '', name: item.label, priceCents: item.priceCents, quantity: item.quantity };
}

/** The order line stored for a hold item. */
export function rowFromItem(item: HoldItem): OrderItemRow {
  return 'seatId' in item
    ? { seatId: item.seatId, ticketTypeId: null, label: item.label, tier: item.tier, priceCents: item.priceCents, quantity: 1 }
    : { seatId: null, ticketTypeId: item.ticketTypeId, label: item.name, tier: null, priceCents: item.priceCents, quantity: item.quantity };
}

export function orderFromRow(row: OrderRow): Order {
  return {
    id: row.id,
    number: row.number,
    eventId: row.eventId,
    customerId: row.customerId,
    holdId: row.holdId,
    status: row.status === 'cancelled' ? 'cancelled' : 'confirmed',
    items: row.items.map(itemFromRow),
    totalCents: row.totalCents,
    currency: row.currency,
    paymentReference: row.paymentReference,
    createdAt: row.createdAt.toISOString(),
    ...(row.status === 'cancelled' && row.cancelledAt ? { cancelledAt: row.cancelledAt.toISOString() } : {}),
  };
}

export async function getOrder(ctx: DomainContext, principal: Principal, orderId: string): Promise<Order> {
  if (!isUuid(orderId)) throw errors.orderNotFound();
  const row = await findOrder(ctx.db, orderId);
  if (!row || (principal.role === 'customer' && row.customerId !== principal.id)) throw errors.orderNotFound();
  return orderFromRow(row);
}
