import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import {
  emptyBody, emptyQuery, issuesToDetails, responses, stripeCheckoutSession, stripeEventEnvelope, stripePaymentIntent, z,
} from '@holdfast/contracts';
import { applyStripePayment, errors, getHold, type DomainContext, type StripeOutcome, type StripePayment } from '@holdfast/domain';
import { endpointOf } from '../endpoint';
import { err, forbidden, invalid, overloadedOrUnavailable, unauthorized, unavailable } from '../response-docs';

/** Stripe's default: a signature older than 5 minutes is refused (replays). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

export type StripeDeliveryResult = StripeOutcome | { kind: 'ignored'; type: string };

/**
 * Verifies a Stripe delivery over its raw bytes and applies it. Throws
 * INVALID_SIGNATURE (nothing recorded) for a missing, wrong, tampered or stale
 * signature. Both the webhook and the demo payment come through here.
 */
export async function receiveStripeEvent(
  ctx: DomainContext, secret: string, raw: Buffer, signature: string | undefined,
): Promise<StripeDeliveryResult> {
  if (!signature) throw errors.invalidSignature();
  // Stripe's check refuses old timestamps only; one more than the tolerance ahead of our clock
  // would stretch the replay window the same way, so it is refused too. Every t= is looked at:
  // Stripe's own parser takes the last one.
  for (const m of signature.matchAll(/(?:^|,)\s*t=([^,]*)/g)) {
    const t = Number(m[1]);
    if (Number.isFinite(t) && t - Date.now() / 1000 > SIGNATURE_TOLERANCE_SECONDS) throw errors.invalidSignature();
  }
  let event: unknown;
  try {
    event = Stripe.webhooks.constructEvent(raw, signature, secret, SIGNATURE_TOLERANCE_SECONDS);
  } catch (err) {
    // Only a correctly signed body that is not JSON is a validation failure; anything
    // else the check throws (e.g. an empty `v1=`, which Stripe's compare rejects with
    // a plain Error) is a wrong signature.
    if (err instanceof SyntaxError) throw errors.validation({ fields: [{ path: '(body)', message: 'the body is not valid JSON' }] });
    throw errors.invalidSignature();
  }
  // The contract: every correctly signed event answers 200. One whose shape holdfast cannot read
  // is logged (without the body) and acknowledged, since Stripe would only send it again.
  const envelope = stripeEventEnvelope.safeParse(event);
  if (!envelope.success) {
    ctx.log.warn({ details: issuesToDetails(envelope.error) }, 'signed Stripe event without an id, type or data.object');
    return { kind: 'ignored', type: 'unreadable' };
  }
  const payment = paymentOf(envelope.data);
  if (!payment) {
    if (envelope.data.type.startsWith('checkout.session.')) {
      ctx.log.info({ stripeEventId: envelope.data.id, type: envelope.data.type }, 'Stripe checkout event without money received: no order');
    }
    return { kind: 'ignored', type: envelope.data.type };
  }
  if ('unreadable' in payment) {
    ctx.log.warn({ stripeEventId: envelope.data.id, type: envelope.data.type, details: payment.unreadable }, 'signed Stripe event lacks the fields its type needs');
    return { kind: 'ignored', type: envelope.data.type };
  }
  return applyStripePayment(ctx, payment);
}

/** Checkout Session events that may carry money; `async_payment_failed` carries none and is acknowledged only. */
const SESSION_PAYMENT_TYPES = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

/**
 * The contract's field mapping for the handled types; null for any other type,
 * and for a session whose money has not arrived: a delayed method (SEPA, ACH,
 * bank transfer) completes the session `unpaid`, and only its
 * `async_payment_succeeded` (or a failure, which makes no order) follows.
 */
function paymentOf(event: z.output<typeof stripeEventEnvelope>): StripePayment | { unreadable: unknown } | null {
  const object = event.data.object;
  const holdIdOf = (metadata: Record<string, string> | null | undefined) => metadata?.holdId?.slice(0, 200) || null;
  if (event.type === 'payment_intent.succeeded') {
    const parsed = stripePaymentIntent.safeParse(object);
    if (!parsed.success) return { unreadable: issuesToDetails(parsed.error) };
    const pi = parsed.data;
    return {
      providerEventId: event.id, holdId: holdIdOf(pi.metadata), reference: pi.id,
      amountCents: pi.amount_received, currency: pi.currency,
    };
  }
  if (SESSION_PAYMENT_TYPES.has(event.type)) {
    const parsed = stripeCheckoutSession.safeParse(object);
    if (!parsed.success) return { unreadable: issuesToDetails(parsed.error) };
    const cs = parsed.data;
    // Compared against what was received, not what was owed: only a paid session has received amount_total.
    if (cs.payment_status === 'unpaid') return null;
    return {
      providerEventId: event.id, holdId: holdIdOf(cs.metadata), reference: cs.payment_intent ?? cs.id,
      amountCents: cs.payment_status === 'paid' ? cs.amount_total : 0, currency: cs.currency,
    };
  }
  return null;
}

export interface WebhookDeps {
  ctx: DomainContext;
  webhookSecret: string;
}

const endpoint = endpointOf<WebhookDeps>();

/**
 * POST /v1/webhooks/stripe. Its body is read raw (`signedBody`): the signature
 * is over the exact bytes Stripe sent. All work is committed before the answer,
 * so nothing can be lost after it.
 */
export const WEBHOOK_ENDPOINTS = [
  endpoint({
    method: 'post', path: '/v1/webhooks/stripe', operationId: 'stripeWebhook', tag: 'Confirming', query: emptyQuery, signedBody: stripeEventEnvelope,
    headers: [{ name: 'Stripe-Signature', required: true, description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed with STRIPE_WEBHOOK_SECRET; 300 s tolerance.' }],
    summary: 'Stripe events (`payment_intent.succeeded`, `checkout.session.completed` when paid, `checkout.session.async_payment_succeeded`); a paid event that cannot become an order is recorded as refund_required, one without a holdId as ignored; `async_payment_failed` makes no order.',
    responses: { 200: { description: 'received (also duplicates and unhandled types)', schema: responses.received }, 400: err('INVALID_SIGNATURE, or VALIDATION_FAILED'), 503: overloadedOrUnavailable },
    handler: async ({ req, res, deps }) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = req.headers['stripe-signature'];
      await receiveStripeEvent(deps.ctx, deps.webhookSecret, raw, typeof header === 'string' ? header : undefined);
      res.json({ received: true });
    },
  }),
];

/**
 * Demo mode only: the checkout page's "pay" button. Builds the
 * `payment_intent.succeeded` event Stripe would send for the hold, signs it
 * with the configured webhook secret and delivers it through the webhook's
 * own code path, then answers with the order (or the reason there is none).
 */
export const DEMO_PAYMENT_ENDPOINTS = [
  endpoint({
    method: 'post', path: '/v1/demo/holds/{holdId}/pay', operationId: 'demoPay', tag: 'Confirming', roles: ['customer'], query: emptyQuery,
    body: emptyBody,
    summary: 'Demo mode only: pay for your hold through the webhook\'s own code path (a signed payment_intent.succeeded).',
    responses: {
      201: { description: 'the order', schema: responses.order }, 200: { description: 'the order this hold already became', schema: responses.order },
      400: invalid, 401: unauthorized, 403: forbidden, 404: err('HOLD_NOT_FOUND'), 409: err('PAYMENT_REJECTED (recorded for a refund)'), 503: unavailable,
    },
    handler: async ({ req, res, deps: { ctx, webhookSecret }, params }) => {
      const hold = await getHold(ctx, req.principal!, params.holdId);
      // One payment intent per hold: paying twice finds the order the first payment made.
      const intentId = `pi_demo_${hold.id.slice(-24)}`;
      const payload = JSON.stringify({
        id: `evt_demo_${randomBytes(12).toString('hex')}`,
        object: 'event',
        type: 'payment_intent.succeeded',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        data: {
          object: {
            id: intentId, object: 'payment_intent', status: 'succeeded',
            amount: hold.totalCents, amount_received: hold.totalCents, currency: hold.currency.toLowerCase(),
            metadata: { holdId: hold.id },
          },
        },
      });
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
      const outcome = await receiveStripeEvent(ctx, webhookSecret, Buffer.from(payload), signature);
      if (outcome.kind === 'refund_required' || outcome.kind === 'not_ours') throw outcome.error;
      if (outcome.kind !== 'confirmed') throw new Error(`demo payment ended as ${outcome.kind}`);
      res.status(outcome.created ? 201 : 200).json({ order: outcome.order });
    },
  }),
];
