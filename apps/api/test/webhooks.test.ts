import { holdIdOf } from '@holdfast/contracts';
import { expectInvariants, seatGrid, startApi, useTestApi, checkoutSessionEvent, confirmVia, deliver, deliverEvent, holdSeats, holdTickets, ordersOfHold, paymentIntentEvent, paymentsOfHold, rid, sign, waitUntilExpired } from '@holdfast/test-kit';

const suite = useTestApi();
const { newEvent } = suite;

async function auditOf(holdId: string) {
  return suite.api.rt.db.auditEntry.findMany({ where: { holdId } });
}

/** A refund_required payment with its audit entry, and no order for the hold. */
async function expectRefundRequired(holdId: string, providerEventId: string, reason: RegExp) {
  expect(await ordersOfHold(suite.api, holdId)).toHaveLength(0);
  const payments = await paymentsOfHold(suite.api, holdId);
  expect(payments).toHaveLength(1);
  expect(payments[0]).toMatchObject({ provider: 'stripe', providerEventId, status: 'REFUND_REQUIRED', orderId: null });
  expect(payments[0]!.reason).toMatch(reason);
  const audit = await auditOf(holdId);
  expect(audit).toHaveLength(1);
  expect(audit[0]).toMatchObject({ actor: 'stripe', action: 'payment.refund_required', reason: payments[0]!.reason });
}

test('when payment_intent.succeeded pays an active hold, then 200 received and the hold becomes an order', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 2, 'standard', 3000) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id, seats[1]!.id]);
  const ev = paymentIntentEvent({ holdId: hold.id, amount: 6000, currency: 'usd' });
  const res = await deliverEvent(suite.api, ev);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ received: true });
  const orders = await ordersOfHold(suite.api, hold.id);
  expect(orders).toHaveLength(1);
  expect(orders[0]!.paymentReference).toBe(ev.data.object.id);
  const payments = await paymentsOfHold(suite.api, hold.id);
  expect(payments).toHaveLength(1);
  expect(payments[0]).toMatchObject({
    provider: 'stripe', providerEventId: ev.id, reference: ev.data.object.id, status: 'APPLIED',
    amountCents: 6000, currency: 'USD', orderId: orders[0]!.id,
  });
  const read = await suite.api.call('GET', `/v1/holds/${hold.id}`, { token: suite.api.token('customer', 'buyer-1') });
  expect(read.body.hold).toMatchObject({ status: 'confirmed', orderId: orders[0]!.id });
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when checkout.session.completed pays a hold, then the payment reference is its payment_intent, or the session id when null', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 2, 'standard', 1500) });
  const withIntent = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const withoutIntent = await holdSeats(suite.api, event.id, 'buyer-2', [seats[1]!.id]);
  const a = checkoutSessionEvent({ holdId: withIntent.id, amount: 1500, currency: 'usd', paymentIntent: 'pi_from_session' });
  const b = checkoutSessionEvent({ holdId: withoutIntent.id, amount: 1500, currency: 'usd', paymentIntent: null, sessionId: 'cs_only' });
  expect((await deliverEvent(suite.api, a)).status).toBe(200);
  expect((await deliverEvent(suite.api, b)).status).toBe(200);
  expect((await ordersOfHold(suite.api, withIntent.id))[0]!.paymentReference).toBe('pi_from_session');
  expect((await ordersOfHold(suite.api, withoutIntent.id))[0]!.paymentReference).toBe('cs_only');
  // Stripe also sends payment_intent.succeeded for the same payment: the same reference, no second charge.
  const pi = paymentIntentEvent({ holdId: withIntent.id, amount: 1500, currency: 'usd', intentId: 'pi_from_session' });
  expect((await deliverEvent(suite.api, pi)).status).toBe(200);
  expect(await paymentsOfHold(suite.api, withIntent.id)).toHaveLength(1);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when an integrator confirms and Stripe pays the same hold at once, then one order; a losing Stripe payment is refund_required', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 1200) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const ev = paymentIntentEvent({ holdId: hold.id, amount: 1200, currency: 'usd' });
  const [service, stripe] = await Promise.all([confirmVia(suite.api, hold.id, 'integrator-capture'), deliverEvent(suite.api, ev)]);
  expect(stripe.status).toBe(200);
  expect([200, 201]).toContain(service.status);
  const orders = await ordersOfHold(suite.api, hold.id);
  expect(orders).toHaveLength(1);
  const payments = await paymentsOfHold(suite.api, hold.id);
  if (orders[0]!.paymentReference === 'integrator-capture') {
    expect(service.status).toBe(201);
    expect(payments.map((p) => p.status).sort()).toEqual(['APPLIED', 'REFUND_REQUIRED']);
  } else {
    expect(service.status).toBe(200);
    expect(service.body.order.paymentReference).toBe(ev.data.object.id);
    expect(payments.map((p) => p.status)).toEqual(['APPLIED']);
  }
  await expectInvariants(suite.api.rt.db, event.id);
});

describe('signatures', () => {
  test('when the signature is missing, wrong, stale, malformed or the body was tampered with, then 400 INVALID_SIGNATURE and nothing is recorded', async () => {
    const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 1000) });
    const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
    const secret = suite.api.config.stripeWebhookSecret;
    const ev = paymentIntentEvent({ holdId: hold.id, amount: 1000, currency: 'usd' });
    const payload = JSON.stringify(ev);
    const now = Math.floor(Date.now() / 1000);
    const tampered = JSON.stringify({ ...ev, data: { object: { ...ev.data.object, amount_received: 999999 } } });
    const attempts: [string, string, string | undefined][] = [
      ['missing', payload, undefined],
      ['empty', payload, ''],
      ['wrong secret', payload, sign(payload, 'whsec_not_the_configured_secret')],
      ['stale (10 minutes old)', payload, sign(payload, secret, now - 600)],
      ['from the future', payload, sign(payload, secret, now + 600)],
      ['tampered body', tampered, sign(payload, secret)],
      ['garbage header', payload, 'garbage'],
      ['no v1 scheme', payload, sign(payload, secret).replace('v1=', 'v0=')],
      // Stripe's parser takes the last t=: an early one in front must not hide a future one.
      ['a past t= in front of one from the future', payload, `t=1,${sign(payload, secret, now + 600)}`],
    ];
    for (const [what, body, header] of attempts) {
      const res = await deliver(suite.api, body, header);
      expect({ what, status: res.status, code: res.body?.error?.code }).toEqual({ what, status: 400, code: 'INVALID_SIGNATURE' });
    }
    // A body its Content-Encoding does not describe cannot even be read: 400, not a 500.
    const notGzip = await suite.api.call('POST', '/v1/webhooks/stripe', {
      raw: payload, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'stripe-signature': sign(payload, secret) },
    });
    expect({ status: notGzip.status, code: notGzip.body?.error?.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    expect(await suite.api.rt.db.payment.count({ where: { providerEventId: ev.id } })).toBe(0);
    expect(await paymentsOfHold(suite.api, hold.id)).toHaveLength(0);
    expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(0);
    expect(await auditOf(hold.id)).toHaveLength(0);
    const read = await suite.api.call('GET', `/v1/holds/${hold.id}`, { token: suite.api.token('service') });
    expect(read.body.hold.status).toBe('active');

    // The same event, correctly signed, is then accepted: the refusals above were about the signature.
    expect((await deliver(suite.api, payload, sign(payload, secret))).status).toBe(200);
    expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(1);
    await expectInvariants(suite.api.rt.db, event.id);
  });

  test('when a signature is within the 300 s tolerance, then it is accepted', async () => {
    const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 1000) });
    const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
    const payload = JSON.stringify(paymentIntentEvent({ holdId: hold.id, amount: 1000, currency: 'usd' }));
    const res = await deliver(suite.api, payload, sign(payload, suite.api.config.stripeWebhookSecret, Math.floor(Date.now() / 1000) - 240));
    expect(res.status).toBe(200);
    expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(1);
  });
});

test('when one event is delivered 10 times at once and again later, then it is processed once: one order, one payment', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 2000) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const payload = JSON.stringify(paymentIntentEvent({ holdId: hold.id, amount: 2000, currency: 'usd' }));
  const header = sign(payload, suite.api.config.stripeWebhookSecret);
  const results = await Promise.all(Array.from({ length: 10 }, () => deliver(suite.api, payload, header)));
  expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
  expect((await deliver(suite.api, payload, header)).status).toBe(200);
  expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(1);
  expect(await paymentsOfHold(suite.api, hold.id)).toHaveLength(1);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when a refund-required event is delivered 10 times at once, then one refund_required payment and one audit entry', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 2000) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const ev = paymentIntentEvent({ holdId: hold.id, amount: 1999, currency: 'usd' });
  const payload = JSON.stringify(ev);
  const header = sign(payload, suite.api.config.stripeWebhookSecret);
  const results = await Promise.all(Array.from({ length: 10 }, () => deliver(suite.api, payload, header)));
  expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
  await expectRefundRequired(hold.id, ev.id, /below the hold's total/);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when a late payment arrives after the seat was re-held and sold to someone else, then no order and refund_required', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 1, 'standard', 2500) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  await waitUntilExpired(hold);
  const other = await holdSeats(suite.api, event.id, 'buyer-2', [seats[0]!.id]);
  expect((await confirmVia(suite.api, other.id)).status).toBe(201);
  const ev = paymentIntentEvent({ holdId: hold.id, amount: 2500, currency: 'usd' });
  const res = await deliverEvent(suite.api, ev);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ received: true });
  await expectRefundRequired(hold.id, ev.id, /expired/);
  const read = await suite.api.call('GET', `/v1/holds/${hold.id}`, { token: suite.api.token('service') });
  expect(read.body.hold.status).toBe('expired');
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when a late payment arrives while the seat is re-held (not yet sold) by someone else, then refund_required and their hold stands', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 1, 'standard', 2500) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  await waitUntilExpired(hold);
  const other = await holdSeats(suite.api, event.id, 'buyer-2', [seats[0]!.id]);
  const ev = paymentIntentEvent({ holdId: hold.id, amount: 2500, currency: 'usd' });
  expect((await deliverEvent(suite.api, ev)).status).toBe(200);
  await expectRefundRequired(hold.id, ev.id, /expired/);
  expect((await confirmVia(suite.api, other.id)).status).toBe(201);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when a late payment arrives and the seat is still free, then the hold is confirmed', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 1, 'standard', 2500) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  await waitUntilExpired(hold);
  const ev = paymentIntentEvent({ holdId: hold.id, amount: 2500, currency: 'usd' });
  expect((await deliverEvent(suite.api, ev)).status).toBe(200);
  const orders = await ordersOfHold(suite.api, hold.id);
  expect(orders).toHaveLength(1);
  expect((await paymentsOfHold(suite.api, hold.id))[0]).toMatchObject({ status: 'APPLIED', providerEventId: ev.id });
  const map = await suite.api.call('GET', `/v1/events/${event.id}/seats`);
  expect(map.body.seats[0].status).toBe('sold');
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when the amount is below the hold total or the currency differs, then refund_required and no order', async () => {
  const { event } = await newEvent({ currency: 'EUR', ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10 }] });
  const tt = event.ticketTypes[0];
  const under = await holdTickets(suite.api, event.id, 'buyer-1', tt.id, 2);
  const wrong = await holdTickets(suite.api, event.id, 'buyer-2', tt.id, 2);
  const e1 = paymentIntentEvent({ holdId: under.id, amount: 1999, currency: 'eur' });
  const e2 = paymentIntentEvent({ holdId: wrong.id, amount: 2000, currency: 'usd' });
  expect((await deliverEvent(suite.api, e1)).status).toBe(200);
  expect((await deliverEvent(suite.api, e2)).status).toBe(200);
  await expectRefundRequired(under.id, e1.id, /amount 1999 is below the hold's total 2000/);
  await expectRefundRequired(wrong.id, e2.id, /currency USD does not match the hold's EUR/);
  expect((await suite.api.rt.db.ticketType.findUnique({ where: { id: tt.id } }))!.sold).toBe(0);
  // Paying more than the total is accepted (the surplus is the merchant's to settle).
  const over = await holdTickets(suite.api, event.id, 'buyer-3', tt.id, 1);
  expect((await deliverEvent(suite.api, paymentIntentEvent({ holdId: over.id, amount: 1500, currency: 'eur' }))).status).toBe(200);
  expect(await ordersOfHold(suite.api, over.id)).toHaveLength(1);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when the hold is unknown, released, or already paid by another payment, then refund_required; with no holdId, ignored', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 2, 'standard', 1000) });
  const unknown = holdIdOf(event.id, 'a'.repeat(24));
  const e1 = paymentIntentEvent({ holdId: unknown, amount: 1000, currency: 'usd' });
  expect((await deliverEvent(suite.api, e1)).status).toBe(200);
  await expectRefundRequired(unknown, e1.id, /unknown hold/);

  const e2 = paymentIntentEvent({ amount: 1000, currency: 'usd' });
  expect((await deliverEvent(suite.api, e2)).status).toBe(200);
  const noHold = await suite.api.rt.db.payment.findUnique({ where: { providerEventId: e2.id } });
  // Not holdfast's payment (issue 15): recorded ignored, not refund_required (payments-money.test.ts).
  expect(noHold).toMatchObject({ status: 'IGNORED', holdId: null });
  await suite.api.rt.db.payment.delete({ where: { providerEventId: e2.id } });

  const released = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  await suite.api.call('DELETE', `/v1/holds/${released.id}`, { token: suite.api.token('customer', 'buyer-1') });
  const e3 = paymentIntentEvent({ holdId: released.id, amount: 1000, currency: 'usd' });
  expect((await deliverEvent(suite.api, e3)).status).toBe(200);
  await expectRefundRequired(released.id, e3.id, /released/);

  const paid = await holdSeats(suite.api, event.id, 'buyer-2', [seats[1]!.id]);
  expect((await confirmVia(suite.api, paid.id, 'captured-by-integrator')).status).toBe(201);
  const e4 = paymentIntentEvent({ holdId: paid.id, amount: 1000, currency: 'usd' });
  expect((await deliverEvent(suite.api, e4)).status).toBe(200);
  const payments = await paymentsOfHold(suite.api, paid.id);
  expect(payments.map((p) => p.status).sort()).toEqual(['APPLIED', 'REFUND_REQUIRED']);
  expect(payments.find((p) => p.status === 'REFUND_REQUIRED')!.reason).toBe('hold already confirmed by payment captured-by-integrator');
  expect(await ordersOfHold(suite.api, paid.id)).toHaveLength(1);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when a signed event has a type holdfast does not handle or an unreadable object, then 200 and nothing is recorded', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 1000) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const other = { ...paymentIntentEvent({ holdId: hold.id, amount: 1000, currency: 'usd' }), type: 'charge.refunded' };
  const noAmount = paymentIntentEvent({ holdId: hold.id, amount: 1000, currency: 'usd' }) as { id: string; data: { object: Record<string, unknown> } };
  delete noAmount.data.object.amount_received;
  for (const ev of [other, noAmount, { id: rid('evt'), type: 'payment_intent.succeeded' }]) {
    const res = await deliverEvent(suite.api, ev);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
  }
  expect(await paymentsOfHold(suite.api, hold.id)).toHaveLength(0);
  expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(0);
  // A correctly signed body that is not JSON at all is refused.
  const notJson = 'not json';
  const res = await deliver(suite.api, notJson, sign(notJson, suite.api.config.stripeWebhookSecret));
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_FAILED');
});

describe('demo payment', () => {
  test('when the owner pays a hold in demo mode, then 201 with the order, 200 with the same order when paid again', async () => {
    const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 4000) });
    const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
    const token = suite.api.token('customer', 'buyer-1');
    const first = await suite.api.call('POST', `/v1/demo/holds/${hold.id}/pay`, { token });
    expect(first.status).toBe(201);
    expect(first.body.order).toMatchObject({ holdId: hold.id, totalCents: 4000, customerId: 'buyer-1' });
    expect(first.body.order.paymentReference).toMatch(/^pi_demo_/);
    const payments = await paymentsOfHold(suite.api, hold.id);
    expect(payments[0]!.providerEventId).toMatch(/^evt_demo_/);
    const again = await suite.api.call('POST', `/v1/demo/holds/${hold.id}/pay`, { token, body: {} });
    expect(again.status).toBe(200);
    expect(again.body.order).toEqual(first.body.order);
    expect(await paymentsOfHold(suite.api, hold.id)).toHaveLength(1);
    await expectInvariants(suite.api.rt.db, event.id);
  });

  test('when someone else, a service or a bad body pays the demo way, then 404, 403 or 400 and nothing is recorded', async () => {
    const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 4000) });
    const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
    const path = `/v1/demo/holds/${hold.id}/pay`;
    const stranger = await suite.api.call('POST', path, { token: suite.api.token('customer', 'buyer-2') });
    expect([stranger.status, stranger.body.error.code]).toEqual([404, 'HOLD_NOT_FOUND']);
    const service = await suite.api.call('POST', path, { token: suite.api.token('service') });
    expect(service.status).toBe(403);
    const bad = await suite.api.call('POST', path, { token: suite.api.token('customer', 'buyer-1'), body: { amount: 1 } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(await paymentsOfHold(suite.api, hold.id)).toHaveLength(0);
  });

  test('when the demo pays an expired hold whose seat is gone, then 409 HOLD_EXPIRED and a refund_required payment', async () => {
    const { event, seats } = await newEvent({ holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 1, 'standard', 4000) });
    const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
    await waitUntilExpired(hold);
    await holdSeats(suite.api, event.id, 'buyer-2', [seats[0]!.id]);
    const res = await suite.api.call('POST', `/v1/demo/holds/${hold.id}/pay`, { token: suite.api.token('customer', 'buyer-1') });
    expect([res.status, res.body.error.code]).toEqual([409, 'HOLD_EXPIRED']);
    const payments = await paymentsOfHold(suite.api, hold.id);
    expect(payments.map((p) => p.status)).toEqual(['REFUND_REQUIRED']);
    await expectInvariants(suite.api.rt.db, event.id);
  });

  test('when demo mode is off, then the demo payment path does not exist', async () => {
    const prod = await startApi({ DEMO_MODE: 'false', JWT_SECRET: 'a-test-secret-of-some-length', STRIPE_WEBHOOK_SECRET: 'whsec_test_secret' });
    try {
      const res = await prod.call('POST', '/v1/demo/holds/hld_x/pay', { token: prod.token('customer', 'c') });
      expect(res.status).toBe(404);
    } finally {
      await prod.close();
    }
  });
});

test('when PostgreSQL is unreachable, then the webhook, confirm and order read answer 503 (Stripe will retry; nothing is lost)', async () => {
  const down = await startApi({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:5499/holdfast_nowhere' });
  try {
    const holdId = holdIdOf('1'.repeat(32), '2'.repeat(24));
    const payload = JSON.stringify(paymentIntentEvent({ holdId, amount: 100, currency: 'usd' }));
    const hook = await deliver(down, payload, sign(payload, down.config.stripeWebhookSecret));
    const confirm = await confirmVia(down, holdId);
    const order = await down.call('GET', '/v1/orders/00000000-0000-4000-8000-000000000000', { token: down.token('admin') });
    for (const res of [hook, confirm, order]) {
      expect([res.status, res.body.error.code, res.body.error.details]).toEqual([503, 'SERVICE_UNAVAILABLE', { dependency: 'PostgreSQL' }]);
    }
  } finally {
    await down.close();
  }
});

test('when the header carries several v1 signatures and one of them is right, then the event is accepted', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 1000) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const payload = JSON.stringify(paymentIntentEvent({ holdId: hold.id, amount: 1000, currency: 'usd' }));
  const good = sign(payload, suite.api.config.stripeWebhookSecret);
  const t = /t=(\d+)/.exec(good)![1];
  const v1 = /v1=([0-9a-f]+)/.exec(good)![1];
  const res = await deliver(suite.api, payload, `t=${t},v1=${'0'.repeat(64)},v1=${v1}`);
  expect(res.status).toBe(200);
  expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(1);
  await expectInvariants(suite.api.rt.db, event.id);
});
