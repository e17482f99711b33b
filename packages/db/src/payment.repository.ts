import { randomUUID } from 'node:crypto';
import type { DbClient } from './event.repository';
import { translated } from './errors';
import { moneyOrNull } from './money';

export type PaymentStatusDb = 'IGNORED' | 'APPLIED' | 'REFUND_REQUIRED';

export interface NewPayment {
  provider: string;
  /** The provider's event id (Stripe `evt_...`); unique, so an event is recorded once. */
  providerEventId?: string | null;
  reference: string;
  holdId?: string | null;
  amountCents?: number | null;
  currency?: string | null;
  status: PaymentStatusDb;
  reason?: string | null;
  orderId?: string | null;
  eventId?: string | null;
}

export interface PaymentRow extends Required<NewPayment> {
  id: string;
  receivedAt: Date;
  refundedBy: string | null;
  refundedAt: Date | null;
  refundNote: string | null;
}

/** A payment as Prisma reads it (money as bigint) made a PaymentRow. */
export function paymentRow(r: Omit<PaymentRow, 'amountCents'> & { amountCents: bigint | number | null }): PaymentRow {
  return { ...r, amountCents: moneyOrNull(r.amountCents) };
}

export async function findPayment(db: DbClient, id: string): Promise<PaymentRow | null> {
  const r = await translated(() => db.payment.findUnique({ where: { id } }));
  return r && paymentRow(r);
}

/**
 * Records that a refund-required payment was refunded at the provider, only if it
 * is owed one and not yet marked; returns the row, or null when it was not.
 */
export async function markPaymentRefunded(
  tx: DbClient, id: string, by: string, at: Date, note: string,
): Promise<PaymentRow | null> {
  return translated(async () => {
    const r = await tx.payment.updateMany({
      where: { id, status: 'REFUND_REQUIRED', refundedAt: null },
      data: { refundedBy: by, refundedAt: at, refundNote: note },
    });
    if (r.count !== 1) return null;
    const row = await tx.payment.findUnique({ where: { id } });
    return row && paymentRow(row);
  });
}

/** Inserts a payment; a second row with the same provider event id is a UniqueViolation. */
export async function insertPayment(tx: DbClient, payment: NewPayment): Promise<string> {
  const id = randomUUID();
  const p = payment;
  await translated(() => tx.$executeRaw`
    INSERT INTO payments (id, provider, provider_event_id, reference, hold_id, amount_cents, currency, status, reason, order_id, event_id)
    VALUES (${id}::uuid, ${p.provider}, ${p.providerEventId ?? null}, ${p.reference}, ${p.holdId ?? null},
            ${p.amountCents ?? null}::bigint, ${p.currency ?? null}, ${p.status}::"PaymentStatus", ${p.reason ?? null},
            ${p.orderId ?? null}::uuid, ${p.eventId ?? null}::uuid)`);
  return id;
}

/**
 * A payment recorded before for this one, in one query: the same provider event
 * (a delivery again), or, for a hold's payment, the refund_required record of the
 * same charge (provider and reference: one charge reaches holdfast as more than
 * one event, e.g. a Checkout payment's payment_intent.succeeded and
 * checkout.session.completed). Null when neither.
 */
export async function findEarlierPayment(
  db: DbClient, p: { provider: string; providerEventId: string; holdId: string | null; reference: string },
): Promise<PaymentRow | null> {
  const sameCharge = p.holdId ? [{ holdId: p.holdId, provider: p.provider, reference: p.reference, status: 'REFUND_REQUIRED' as const }] : [];
  const r = await translated(() => db.payment.findFirst({ where: { OR: [{ providerEventId: p.providerEventId }, ...sameCharge] } }));
  return r && paymentRow(r);
}

/**
 * Orders the transactions recording payments of one hold (until COMMIT), also
 * when PostgreSQL has no row of the hold to lock (an unknown hold id).
 */
export async function lockPaymentsOfHold(tx: DbClient, holdId: string): Promise<void> {
  await translated(() => tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended(${`payments:${holdId}`}, 0))) AS l`);
}

