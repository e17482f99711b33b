import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { TestApi } from './test-api';
import { sleepUntil } from './wait';

export const rid = (prefix: string) => `${prefix}_${randomBytes(10).toString('hex')}`;

/** A customer holds these seats; fails the test unless the hold is created. */
export async function holdSeats(api: TestApi, eventId: string, customerId: string, seatIds: string[]) {
  const res = await api.call('POST', `/v1/events/${eventId}/holds`, { token: api.token('customer', customerId), body: { seatIds } });
  if (res.status !== 201) throw new Error(`hold failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.hold as { id: string; totalCents: number; currency: string; expiresAt: string; customerId: string };
}

export async function holdTickets(api: TestApi, eventId: string, customerId: string, ticketTypeId: string, quantity: number) {
  const res = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: api.token('customer', customerId), body: { ticketTypeId, quantity },
  });
  if (res.status !== 201) throw new Error(`hold failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.hold as { id: string; totalCents: number; currency: string; expiresAt: string; customerId: string };
}

/** Waits until the hold's expiresAt has passed. */
export async function waitUntilExpired(hold: { expiresAt: string }): Promise<void> {
  await sleepUntil(hold.expiresAt, 150);
}

export function confirmVia(api: TestApi, holdId: string, paymentReference = rid('ref')) {
  return api.call('POST', `/v1/holds/${holdId}/confirm`, { token: api.token('service', 'integrator'), body: { paymentReference } });
}

export function paymentIntentEvent(opts: { holdId?: string; amount: number; currency: string; intentId?: string; eventId?: string }) {
  return {
    id: opts.eventId ?? rid('evt'),
    object: 'event',
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: {
      object: {
        id: opts.intentId ?? rid('pi'), object: 'payment_intent', status: 'succeeded',
        amount: opts.amount, amount_received: opts.amount, currency: opts.currency,
        metadata: opts.holdId ? { holdId: opts.holdId } : {},
      },
    },
  };
}

export function checkoutSessionEvent(opts: {
  holdId: string; amount: number; currency: string; paymentIntent: string | null; sessionId?: string;
  /** Stripe's `payment_status`: 'paid' unless told ('unpaid' for a delayed method such as SEPA). */
  paymentStatus?: 'paid' | 'unpaid' | 'no_payment_required';
  type?: 'checkout.session.completed' | 'checkout.session.async_payment_succeeded' | 'checkout.session.async_payment_failed';
}) {
  return {
    id: rid('evt'),
    object: 'event',
    type: opts.type ?? 'checkout.session.completed',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: {
      object: {
        id: opts.sessionId ?? rid('cs'), object: 'checkout.session', payment_status: opts.paymentStatus ?? 'paid',
        payment_intent: opts.paymentIntent, amount_total: opts.amount, currency: opts.currency,
        metadata: { holdId: opts.holdId },
      },
    },
  };
}

/** Stripe's own test helper signs the payload, as Stripe would. */
export function sign(payload: string, secret: string, timestamp?: number): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
}

/** Delivers a raw payload to the webhook with the given signature header (none when undefined). */
export function deliver(api: TestApi, payload: string, signature: string | undefined) {
  return api.call('POST', '/v1/webhooks/stripe', {
    raw: payload,
    headers: { 'content-type': 'application/json; charset=utf-8', ...(signature !== undefined ? { 'stripe-signature': signature } : {}) },
  });
}

/** Signs and delivers an event object with the configured webhook secret. */
export function deliverEvent(api: TestApi, event: object) {
  const payload = JSON.stringify(event);
  return deliver(api, payload, sign(payload, api.config.stripeWebhookSecret));
}

/** Money is bigint in PostgreSQL: the helpers hand amounts back as numbers, as the API shows them. */
const cents = (v: bigint | null) => (v === null ? null : Number(v));

export async function paymentsOfHold(api: TestApi, holdId: string) {
  const rows = await api.rt.db.payment.findMany({ where: { holdId }, orderBy: { receivedAt: 'asc' } });
  return rows.map((r) => ({ ...r, amountCents: cents(r.amountCents) }));
}

export async function ordersOfHold(api: TestApi, holdId: string) {
  const rows = await api.rt.db.order.findMany({ where: { holdId } });
  return rows.map((r) => ({ ...r, totalCents: Number(r.totalCents) }));
}
