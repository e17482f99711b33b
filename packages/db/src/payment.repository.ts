import { randomUUID } from 'node:crypto';
import type { DbClient } from './event.repository';
import { translated } from './errors';

export type PaymentStatusDb = 'APPLIED' | 'REFUND_REQUIRED';

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
}

/** Inserts a payment; a second row with the same provider event id is a UniqueViolation. */
export async function insertPayment(tx: DbClient, payment: NewPayment): Promise<string> {
  const id = randomUUID();
  await translated(() => tx.payment.create({ data: { id, ...payment } }));
  return id;
}

export function findPaymentByProviderEvent(db: DbClient, providerEventId: string): Promise<PaymentRow | null> {
  return translated(() => db.payment.findUnique({ where: { providerEventId } }));
}
