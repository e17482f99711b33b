import type { DbClient } from './event.repository';
import { translated } from './errors';
import { findOrder, type OrderRow } from './order.repository';
import { paymentRow, type PaymentRow } from './payment.repository';

/** Locks an order's row for the rest of the transaction; null when there is none. */
export async function lockOrder(tx: DbClient, orderId: string): Promise<OrderRow | null> {
  const locked = await translated(() => tx.$queryRawUnsafe<{ id: string }[]>(
    'SELECT id::text AS id FROM orders WHERE id = $1::uuid FOR UPDATE', orderId));
  return locked.length ? findOrder(tx, orderId) : null;
}

export interface OrderCancellation {
  orderId: string;
  eventId: string;
  customerId: string;
  by: string;
  reason: string;
  at: Date;
  /** The admin refunded at the provider already: the payment is marked refunded too. */
  refunded: boolean;
}

/**
 * Cancels a confirmed order in the caller's transaction: the order reads
 * cancelled, its lines are set aside (their seats no longer theirs), its seats
 * are AVAILABLE again, its tickets leave their type's sold count, its customer's
 * sold count (customer_sales, the limit fence) goes down by what it held, and its
 * applied payments are owed a refund (marked refunded when `refunded`).
 * Returns the payments now owed (or refunded).
 */
export async function cancelOrderRows(tx: DbClient, c: OrderCancellation): Promise<PaymentRow[]> {
  return translated(async () => {
    await tx.$executeRawUnsafe(`
      UPDATE orders SET status = 'cancelled', cancelled_at = $2::timestamptz, cancelled_by = $3, cancel_reason = $4
      WHERE id = $1::uuid`, c.orderId, c.at.toISOString(), c.by, c.reason);
    const lines = await tx.$queryRawUnsafe<{ tickets: number }[]>(`
      WITH lines AS (
        UPDATE order_items SET cancelled = true WHERE order_id = $1::uuid AND NOT cancelled
        RETURNING seat_id, ticket_type_id, quantity),
      types AS (
        UPDATE ticket_types t SET sold = t.sold - l.q
        FROM (SELECT ticket_type_id, sum(quantity)::int AS q FROM lines WHERE ticket_type_id IS NOT NULL GROUP BY 1) l
        WHERE t.id = l.ticket_type_id RETURNING t.id),
      freed AS (
        UPDATE seats SET status = 'AVAILABLE', order_id = NULL WHERE order_id = $1::uuid RETURNING id)
      SELECT COALESCE(sum(CASE WHEN seat_id IS NOT NULL THEN 1 ELSE quantity END), 0)::int AS tickets FROM lines`, c.orderId);
    const tickets = lines[0]?.tickets ?? 0;
    if (tickets > 0) {
      await tx.$executeRawUnsafe(`
        UPDATE customer_sales SET sold = sold - $3 WHERE event_id = $1::uuid AND customer_id = $2`, c.eventId, c.customerId, tickets);
    }
    const ids = await tx.$queryRawUnsafe<{ id: string }[]>(`
      UPDATE payments SET status = 'REFUND_REQUIRED', reason = $2,
        refunded_by = CASE WHEN $3 THEN $4 END, refunded_at = CASE WHEN $3 THEN $5::timestamptz END,
        refund_note = CASE WHEN $3 THEN $2 END
      WHERE order_id = $1::uuid AND status = 'APPLIED' RETURNING id::text AS id`,
    c.orderId, `order cancelled: ${c.reason}`, c.refunded, c.by, c.at.toISOString());
    const rows = await tx.payment.findMany({ where: { id: { in: ids.map((r) => r.id) } } });
    return rows.map(paymentRow);
  });
}
