import type { Prisma } from '@prisma/client';
import type { DbClient } from './event.repository';
import { translated } from './errors';

/**
 * The admin console's lists. Every list is keyset-paged in a total order that
 * ends with the id, so a page never repeats or skips a row that existed when the
 * previous page was read, whatever is inserted in between.
 */

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
}

const orderSelect = {
  id: true, number: true, eventId: true, customerId: true, holdId: true, status: true, totalCents: true,
  currency: true, paymentReference: true, createdAt: true,
  items: {
    select: { seatId: true, ticketTypeId: true, label: true, tier: true, priceCents: true, quantity: true },
    orderBy: { position: 'asc' },
  },
} as const;

/** Keyset position after the row (createdAt, id): rows strictly later in that order. */
function after(field: 'createdAt' | 'at' | 'receivedAt', key?: { at: Date; id: string }) {
  if (!key) return undefined;
  return { OR: [{ [field]: { gt: key.at } }, { [field]: key.at, id: { gt: key.id } }] };
}

export function listOrderRows(
  db: DbClient,
  filter: { eventId?: string },
  limit: number,
  key?: { at: Date; id: string },
): Promise<OrderRow[]> {
  const where: Prisma.OrderWhereInput = { eventId: filter.eventId };
  const page = after('createdAt', key) as Prisma.OrderWhereInput | undefined;
  return translated(() =>
    db.order.findMany({
      where: page ? { AND: [where, page] } : where,
      select: orderSelect,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
    }),
  );
}

export type PaymentStatusDb = 'APPLIED' | 'REFUND_REQUIRED';

export interface PaymentRow {
  id: string;
  provider: string;
  reference: string;
  holdId: string | null;
  amountCents: number | null;
  currency: string | null;
  status: PaymentStatusDb;
  reason: string | null;
  orderId: string | null;
  receivedAt: Date;
}

const paymentSelect = {
  id: true, provider: true, reference: true, holdId: true, amountCents: true, currency: true, status: true,
  reason: true, orderId: true, receivedAt: true,
} as const;

/**
 * Payments, refund-required ones first, then by (receivedAt, id). The key
 * carries the status too: PostgreSQL sorts the enum in declaration order
 * (APPLIED < REFUND_REQUIRED), so `status desc` puts refunds first.
 */
export function listPaymentRows(
  db: DbClient,
  filter: { status?: PaymentStatusDb },
  limit: number,
  key?: { status: PaymentStatusDb; at: Date; id: string },
): Promise<PaymentRow[]> {
  const where: Prisma.PaymentWhereInput = { status: filter.status };
  let page: Prisma.PaymentWhereInput | undefined;
  if (key) {
    const sameStatus = { AND: [{ status: key.status }, after('receivedAt', key) as Prisma.PaymentWhereInput] };
    page = key.status === 'REFUND_REQUIRED' ? { OR: [sameStatus, { status: 'APPLIED' }] } : sameStatus;
  }
  return translated(() =>
    db.payment.findMany({
      where: page ? { AND: [where, page] } : where,
      select: paymentSelect,
      orderBy: [{ status: 'desc' }, { receivedAt: 'asc' }, { id: 'asc' }],
      take: limit,
    }),
  );
}

export interface AuditRow {
  id: string;
  at: Date;
  actor: string;
  action: string;
  eventId: string | null;
  holdId: string | null;
  orderId: string | null;
  reason: string | null;
}

export function listAuditRows(
  db: DbClient,
  filter: { eventId?: string },
  limit: number,
  key?: { at: Date; id: string },
): Promise<AuditRow[]> {
  const where: Prisma.AuditEntryWhereInput = { eventId: filter.eventId };
  const page = after('at', key) as Prisma.AuditEntryWhereInput | undefined;
  return translated(() =>
    db.auditEntry.findMany({
      where: page ? { AND: [where, page] } : where,
      select: { id: true, at: true, actor: true, action: true, eventId: true, holdId: true, orderId: true, reason: true },
      orderBy: [{ at: 'asc' }, { id: 'asc' }],
      take: limit,
    }),
  );
}
