// A paid Stripe event becomes an order through the one confirm use-case, once per event id; a
// payment that cannot become an order is recorded refund_required with a reason and an audit entry.
// A payment without a holdId is not holdfast's (another product on the account): recorded ignored.
import {
  findEarlierPayment, findOrderByHold, findPayment, insertPayment, lockHold, lockPaymentsOfHold, recordAudit, runTransaction, UniqueViolation,
} from '@holdfast/db';
import { confirmHold, type ConfirmOptions } from './confirm-hold';
import type { DomainContext } from './context';
import { AppError, errors } from './errors';
import { findAnyHold } from './holds';
import { eventOfHoldId } from './ids';
import { orderFromRow, type Order } from './orders';
import { paymentFromRow } from './admin-payments';
import { recordWebhookEvent } from './webhook-events';

/** What a handled Stripe event says was paid, mapped as the contract says. */
export interface StripePayment {
  /** Stripe's event id (`evt_...`): processed once. */
  providerEventId: string;
  holdId: string | null;
  /** The payment intent id (or the checkout session id when it has none). */
  reference: string;
  amountCents: number;
  /** As Stripe sends it: lower case. */
  currency: string;
}

export type StripeOutcome =
  | { kind: 'confirmed'; order: Order; created: boolean }
  | { kind: 'duplicate' }
  | { kind: 'refund_required'; reason: string; error: AppError }
  /** No holdId: not a holdfast payment. Recorded IGNORED (admins see it), never as owed a refund. */
  | { kind: 'not_ours'; reason: string; error: AppError };

/** Refusals of the confirm use-case that mean "this payment cannot become an order". */
const NOT_CONFIRMABLE: Record<string, string> = {
  HOLD_NOT_FOUND: 'unknown hold',
  HOLD_EXPIRED: 'hold expired and its seats or tickets are no longer available',
  HOLD_NOT_ACTIVE: 'hold was released',
  LIMIT_EXCEEDED: "the customer would own more than the event's maxTicketsPerCustomer",
};

/**
 * Applies a paid event. Exactly once per event id: a recorded id answers
 * `duplicate`; concurrent deliveries of one event either meet on the hold's
 * row lock (the second finds the order the first made, with the same payment
 * reference) or on payments.provider_event_id (the second refund record is
 * refused and rolled back with its audit entry). One charge refused under two
 * event ids (a Checkout payment's two events) is recorded refund_required once:
 * the other event answers `duplicate`. Every outcome is committed before this
 * returns, so the webhook answers only after the work is durable.
 */
export async function applyStripePayment(
  ctx: DomainContext, payment: StripePayment, options: ConfirmOptions = {},
): Promise<StripeOutcome> {
  // A full confirm backlog refuses the delivery at once (503 OVERLOADED): Stripe retries it later.
  ctx.confirms.assertRoom();
  // Recorded before: this event (delivered again), or another event of the same charge that was
  // refused (the charge is owed its one refund, and never makes an order afterwards: the seats
  // coming back since would sell it twice over, an order and a refund for one payment).
  if (await findEarlierPayment(ctx.db, { provider: 'stripe', ...payment })) return { kind: 'duplicate' };
  const refuse = (error: AppError, reason: string) => recordRefundRequired(ctx, payment, error, reason);

  if (!payment.holdId) return recordIgnored(ctx, payment, 'no holdId in the payment metadata: not a holdfast payment');
  const hold = await findAnyHold(ctx, payment.holdId);
  if (!hold) return refuse(errors.holdNotFound(), NOT_CONFIRMABLE.HOLD_NOT_FOUND!);
  const currency = payment.currency.toUpperCase();
  if (currency !== hold.currency) {
    const reason = `currency ${currency} does not match the hold's ${hold.currency}`;
    return refuse(errors.paymentRejected(reason), reason);
  }
  if (payment.amountCents < hold.totalCents) {
    const reason = `amount ${payment.amountCents} is below the hold's total ${hold.totalCents}`;
    return refuse(errors.paymentRejected(reason), reason);
  }

  try {
    const result = await confirmHold(ctx, {
      holdId: hold.id,
      payment: {
        provider: 'stripe', providerEventId: payment.providerEventId, reference: payment.reference,
        amountCents: payment.amountCents, currency,
      },
    }, options);
    if (!result.created && result.order.paymentReference !== payment.reference) {
      // Paid twice: the hold is an order already, bought with another payment.
      const reason = `hold already confirmed by payment ${result.order.paymentReference}`;
      return refuse(errors.holdAlreadyConfirmed(), reason);
    }
    return { kind: 'confirmed', ...result };
  } catch (err) {
    if (err instanceof AppError && NOT_CONFIRMABLE[err.code]) return refuse(err, NOT_CONFIRMABLE[err.code]!);
    throw err;
  }
}

async function recordRefundRequired(
  ctx: DomainContext, payment: StripePayment, error: AppError, reason: string,
): Promise<StripeOutcome> {
  const eventId = payment.holdId ? eventOfHoldId(payment.holdId) : null;
  let applied: Order | 'duplicate' | null = null;
  try {
    applied = await runTransaction(ctx.db, async (tx) => {
      // A payment already applied to the hold's order (the same payment reference, e.g. the session's
      // event and the payment intent's) is never owed a refund. The hold's row lock orders this check
      // after any confirm of the hold in flight.
      if (payment.holdId && eventId && (await lockHold(tx, payment.holdId))) {
        const order = await findOrderByHold(tx, payment.holdId);
        if (order && order.paymentReference === payment.reference) return orderFromRow(order);
      }
      // Another event of the same charge, refused at the same time, recorded its refund first: owed once.
      if (payment.holdId) {
        await lockPaymentsOfHold(tx, payment.holdId);
        if (await findEarlierPayment(tx, { provider: 'stripe', ...payment })) return 'duplicate' as const;
      }
      const paymentId = await insertPayment(tx, {
        provider: 'stripe',
        providerEventId: payment.providerEventId,
        reference: payment.reference,
        holdId: payment.holdId,
        amountCents: payment.amountCents,
        currency: payment.currency.toUpperCase(),
        status: 'REFUND_REQUIRED',
        reason,
        eventId,
      });
      // The seller's systems hear of it (webhooks), in this same transaction.
      const recorded = await findPayment(tx, paymentId);
      if (recorded) await recordWebhookEvent(tx, 'payment.refund_required', { payment: paymentFromRow(recorded) }, payment.holdId);
      await recordAudit(tx, {
        actor: 'stripe', action: 'payment.refund_required', eventId, holdId: payment.holdId, reason,
        details: { providerEventId: payment.providerEventId, reference: payment.reference, amountCents: payment.amountCents },
      });
      return null;
    });
  } catch (err) {
    // A concurrent delivery of the same event recorded it first.
    if (err instanceof UniqueViolation) return { kind: 'duplicate' };
    throw err;
  }
  if (applied === 'duplicate') return { kind: 'duplicate' };
  if (applied) return { kind: 'confirmed', order: applied, created: false };
  ctx.log.warn({ providerEventId: payment.providerEventId, holdId: payment.holdId, reason }, 'payment recorded as refund_required');
  return { kind: 'refund_required', reason, error };
}

/** A payment that is not holdfast's: kept (IGNORED, with its reason) for an admin to see, once per event id. */
async function recordIgnored(ctx: DomainContext, payment: StripePayment, reason: string): Promise<StripeOutcome> {
  try {
    await runTransaction(ctx.db, (tx) => insertPayment(tx, {
      provider: 'stripe', providerEventId: payment.providerEventId, reference: payment.reference, holdId: null,
      amountCents: payment.amountCents, currency: payment.currency.toUpperCase(), status: 'IGNORED', reason, eventId: null,
    }));
  } catch (err) {
    if (err instanceof UniqueViolation) return { kind: 'duplicate' };
    throw err;
  }
  ctx.log.info({ providerEventId: payment.providerEventId, reason }, 'payment recorded as ignored');
  return { kind: 'not_ours', reason, error: errors.holdNotFound() };
}
