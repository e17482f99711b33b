import { randomUUID } from 'node:crypto';
import type { DbClient } from './event.repository';
import { translated } from './errors';
import { money } from './money';

export interface OrderItemRow {
  seatId: string | null;
  ticketTypeId: string | null;
  label: string;
  tier: string | null;
  priceCents: number;
  quantity: number;
}

export interface OrderRow {
  id: string;
  number: string;
  eventId: string;
  customerId: string;
  holdId: string;
  status: string;
  totalCents: number;
  currency: string;
  paymentReference: string;
  createdAt: Date;
  items: OrderItemRow[];
  /** Set when an admin cancelled the order (status 'cancelled'). */
  cancelledAt?: Date | null;
}

export interface NewOrder {
  id: string;
  eventId: string;
  customerId: string;
  holdId: string;
  totalCents: number;
  currency: string;
  paymentReference: string;
  createdAt: Date;
  items: OrderItemRow[];
}

/** The columns an order is read with, everywhere it is read (its items in order). */
export const orderSelect = {
  id: true, number: true, eventId: true, customerId: true, holdId: true, status: true, totalCents: true,
  currency: true, paymentReference: true, createdAt: true, cancelledAt: true,
  items: {
    select: { seatId: true, ticketTypeId: true, label: true, tier: true, priceCents: true, quantity: true },
    orderBy: { position: 'asc' },
  },
} as const;

/**
 * The seat fence: sells exactly these seats to the order, only those still
 * AVAILABLE. Returns how many it sold; anything short of seatIds.length means
 * another order has some of them and the caller must roll back.
 */
export function sellSeats(tx: DbClient, eventId: string, orderId: string, seatIds: string[]): Promise<number> {
  if (!seatIds.length) return Promise.resolve(0);
  return translated(() => tx.$executeRaw`
    UPDATE seats SET status = 'SOLD', order_id = ${orderId}::uuid
    WHERE event_id = ${eventId}::uuid AND id = ANY(${seatIds}::uuid[]) AND status = 'AVAILABLE'`);
}

/**
 * The general-admission fence: adds `quantity` to the type's sold count only
 * while it stays within capacity. Returns 1 when it did, 0 when it would oversell.
 */
export function sellTickets(tx: DbClient, eventId: string, ticketTypeId: string, quantity: number): Promise<number> {
  return translated(() => tx.$executeRaw`
    UPDATE ticket_types SET sold = sold + ${quantity}
    WHERE id = ${ticketTypeId}::uuid AND event_id = ${eventId}::uuid AND sold + ${quantity} <= capacity`);
}

/**
 * Inserts the order and its items. The order carries a placeholder number
 * (unique, never shown) until assignOrderNumber replaces it as the last write
 * of the transaction. order_items.seat_id is unique: a second fence.
 */
export async function insertOrder(tx: DbClient, order: NewOrder): Promise<void> {
  const items = order.items;
  // One statement for the order and its items (raw SQL: the confirm path is CPU-bound in the client).
  await translated(() => tx.$executeRaw`
    WITH o AS (
      INSERT INTO orders (id, number, event_id, customer_id, hold_id, total_cents, currency, payment_reference, created_at)
      VALUES (${order.id}::uuid, ${`pending-${order.id}`}, ${order.eventId}::uuid, ${order.customerId}, ${order.holdId},
              ${order.totalCents}::bigint, ${order.currency}, ${order.paymentReference}, ${order.createdAt.toISOString()}::timestamptz)
      RETURNING id
    )
    INSERT INTO order_items (id, order_id, seat_id, ticket_type_id, label, tier, price_cents, quantity, position)
    SELECT u.id, o.id, u.seat_id, u.ticket_type_id, u.label, u.tier, u.price_cents, u.quantity, u.position
    FROM o, unnest(${items.map(() => randomUUID())}::uuid[], ${items.map((i) => i.seatId)}::uuid[],
                   ${items.map((i) => i.ticketTypeId)}::uuid[], ${items.map((i) => i.label)}::text[],
                   ${items.map((i) => i.tier)}::text[], ${items.map((i) => i.priceCents)}::bigint[],
                   ${items.map((i) => i.quantity)}::int[], ${items.map((_, position) => position)}::int[])
         AS u(id, seat_id, ticket_type_id, label, tier, price_cents, quantity, position)`);
}

/**
 * Takes the next number of the year and writes it on the order, in one
 * statement. The upsert creates the year's row race-free (the first order of a
 * year is as safe as the thousandth) and locks it until the transaction ends.
 */
export async function assignOrderNumber(tx: DbClient, orderId: string, year: number, prefix = 'HF'): Promise<string> {
  const rows = await translated(() => tx.$queryRaw<{ number: string }[]>`
    WITH n AS (
      INSERT INTO order_sequences (year, last_value) VALUES (${year}, 1)
      ON CONFLICT (year) DO UPDATE SET last_value = order_sequences.last_value + 1
      RETURNING last_value
    )
    UPDATE orders SET number = ${`${prefix}-${year}-`} || lpad(n.last_value::text, greatest(6, length(n.last_value::text)), '0')
    FROM n WHERE orders.id = ${orderId}::uuid
    RETURNING orders.number`);
  const number = rows[0]?.number;
  if (!number) throw new Error(`order ${orderId} vanished before it got a number`);
  return number;
}

/** An order as Prisma reads it (money as bigint) made an OrderRow. */
export function orderRow(r: Omit<OrderRow, 'totalCents' | 'items'> & {
  totalCents: bigint | number; items: (Omit<OrderItemRow, 'priceCents'> & { priceCents: bigint | number })[];
}): OrderRow {
  return { ...r, totalCents: money(r.totalCents), items: r.items.map((i) => ({ ...i, priceCents: money(i.priceCents) })) };
}

export async function findOrder(db: DbClient, id: string): Promise<OrderRow | null> {
  const r = await translated(() => db.order.findUnique({ where: { id }, select: orderSelect }));
  return r && orderRow(r);
}

export async function findOrderByHold(db: DbClient, holdId: string): Promise<OrderRow | null> {
  const r = await translated(() => db.order.findUnique({ where: { holdId }, select: orderSelect }));
  return r && orderRow(r);
}
