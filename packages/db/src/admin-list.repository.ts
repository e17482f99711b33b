import type { Prisma } from '@prisma/client';
import type { DbClient } from './event.repository';
import { translated } from './errors';
import { orderRow, orderSelect, type OrderRow } from './order.repository';
import { paymentRow, type PaymentRow, type PaymentStatusDb } from './payment.repository';

/**
 * The admin console's lists. Every list is keyset-paged in a total order that
 * ends with the id, so a page never repeats or skips a row that existed when the
 * previous page was read, whatever is inserted in between.
 */

/** Keyset position after the row (createdAt, id): rows strictly later in that order. */
function after(field: 'createdAt' | 'at' | 'receivedAt', key?: { at: Date; id: string }) {
  if (!key) return undefined;
  return { OR: [{ [field]: { gt: key.at } }, { [field]: key.at, id: { gt: key.id } }] };
}

export async function listOrderRows(
  db: DbClient,
  filter: { eventId?: string; search?: string },
  limit: number,
  key?: { at: Date; id: string },
): Promise<OrderRow[]> {
  const where: Prisma.OrderWhereInput = { eventId: filter.eventId };
  if (filter.search) {
    // An order number (or part of one), a customer id, or a seat's label (section-row-number).
    const q = filter.search;
    where.OR = [
      { number: { contains: q, mode: 'insensitive' } },
      { customerId: q },
      { items: { some: { label: { equals: q, mode: 'insensitive' } } } },
    ];
  }
  const page = after('createdAt', key) as Prisma.OrderWhereInput | undefined;
  const rows = await translated(() =>
    db.order.findMany({
      where: page ? { AND: [where, page] } : where,
      select: orderSelect,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
    }),
  );
  return rows.map(orderRow);
}

/**
 * Payments, refund-required ones first, then by (receivedAt, id). The key
 * carries the status too: PostgreSQL sorts the enum in declaration order
 * (IGNORED < APPLIED < REFUND_REQUIRED), so `status desc` puts refunds first, ignored ones last.
 */
export async function listPaymentRows(
  db: DbClient,
  filter: { status?: PaymentStatusDb },
  limit: number,
  key?: { status: PaymentStatusDb; at: Date; id: string },
): Promise<PaymentRow[]> {
  const where: Prisma.PaymentWhereInput = { status: filter.status };
  let page: Prisma.PaymentWhereInput | undefined;
  if (key) {
    const sameStatus = { AND: [{ status: key.status }, after('receivedAt', key) as Prisma.PaymentWhereInput] };
    const later: PaymentStatusDb[] = key.status === 'REFUND_REQUIRED' ? ['APPLIED', 'IGNORED'] : key.status === 'APPLIED' ? ['IGNORED'] : [];
    page = later.length ? { OR: [sameStatus, { status: { in: later } }] } : sameStatus;
  }
  const rows = await translated(() =>
    db.payment.findMany({
      where: page ? { AND: [where, page] } : where,
      orderBy: [{ status: 'desc' }, { receivedAt: 'asc' }, { id: 'asc' }],
      take: limit,
    }),
  );
  return rows.map(paymentRow);
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
