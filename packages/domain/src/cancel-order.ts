// An admin cancels an order: PostgreSQL puts its seats and tickets back and owes its payment a
// refund, in one audited transaction; then Redis hands them back, to the waiting lists first.
import { cancelOrderRows, lockOrder, recordAudit, runTransaction } from '@holdfast/db';
import type { DomainContext } from './context';
import { errors } from './errors';
import { holdContents } from './hold-view';
import { isUuid } from './ids';
import { orderFromRow, itemFromRow, type Order } from './orders';
import { paymentFromRow } from './admin-payments';
import { recordWebhookEvent } from './webhook-events';

export interface CancelOrderInput {
  reason: string;
  /** The admin refunded at the provider already: the payment reads refunded, not owed. */
  refunded?: boolean;
}

/**
 * Cancels a confirmed order (a cancelled one is answered as it is). In one
 * transaction: the order reads `cancelled`, its seats are AVAILABLE, its tickets
 * leave the sold counts, its customer's sold count goes down, its applied
 * payment becomes refund_required (refunded when marked so; a
 * payment.refund_required webhook event either way), and an `order.cancelled`
 * audit entry. Then Redis: the sold set and counters follow, and what came back
 * is offered to the waiting lists in the same script (cancel-order-7.lua). If
 * Redis cannot be reached then, the event's next load and reconciliation bring
 * it in line with PostgreSQL.
 */
export async function cancelOrder(ctx: DomainContext, adminId: string, orderId: string, input: CancelOrderInput): Promise<Order> {
  if (!isUuid(orderId)) throw errors.orderNotFound();
  const by = `admin:${adminId}`;
  const outcome = await runTransaction(ctx.db, async (tx) => {
    const order = await lockOrder(tx, orderId);
    if (!order) throw errors.orderNotFound();
    if (order.status === 'cancelled') return { order, changed: false };
    const payments = await cancelOrderRows(tx, {
      orderId, eventId: order.eventId, customerId: order.customerId, by, reason: input.reason, at: new Date(), refunded: input.refunded ?? false,
    });
    await recordAudit(tx, {
      actor: by, action: 'order.cancelled', eventId: order.eventId, holdId: order.holdId, orderId, reason: input.reason,
      details: { refunded: input.refunded ?? false, payments: payments.map((p) => p.id), totalCents: order.totalCents },
    });
    const cancelled = (await lockOrder(tx, orderId))!;
    for (const p of payments) {
      await recordWebhookEvent(tx, 'payment.refund_required', { payment: paymentFromRow(p), order: orderFromRow(cancelled) }, order.holdId);
    }
    return { order: cancelled, changed: true };
  });
  const { order } = outcome;
  if (outcome.changed) {
    const { seatIds, ticketTypeId, quantity } = holdContents(order.items.map(itemFromRow));
    try {
      const r = await ctx.store.cancelOrder({ eventId: order.eventId, holdId: order.holdId, customerId: order.customerId, seatIds, ticketTypeId, quantity });
      if (r.offers) ctx.persister.notify(order.eventId);
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message, orderId }, 'cancelled order not yet given back in Redis; reconciliation will');
    }
    ctx.log.info({ orderId, eventId: order.eventId }, 'order cancelled by an admin');
  }
  return orderFromRow(order);
}
