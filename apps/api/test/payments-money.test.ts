// Issue 15, money: no order without money received, no refund_required for a payment that made an
// order, and a payment that is not holdfast's is recorded as ignored, not as a refund.
import { expectInvariants, seatGrid, useTestApi, checkoutSessionEvent, deliverEvent, holdSeats, ordersOfHold, paymentIntentEvent, paymentsOfHold, rid, waitUntilExpired } from '@holdfast/test-kit';

const suite = useTestApi();
const { newEvent } = suite;

test('when checkout.session.completed arrives unpaid (a delayed method), then no order; async_payment_succeeded then confirms it', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 4200) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const sessionId = rid('cs');
  const completed = checkoutSessionEvent({
    holdId: hold.id, amount: 4200, currency: 'usd', paymentIntent: 'pi_sepa_1', sessionId, paymentStatus: 'unpaid',
  });
  expect((await deliverEvent(suite.api, completed)).status).toBe(200);
  expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(0);
  expect(await paymentsOfHold(suite.api, hold.id)).toHaveLength(0);
  const read = await suite.api.call('GET', `/v1/holds/${hold.id}`, { token: suite.api.token('customer', 'buyer-1') });
  expect(read.body.hold.status).toBe('active');

  const succeeded = checkoutSessionEvent({
    holdId: hold.id, amount: 4200, currency: 'usd', paymentIntent: 'pi_sepa_1', sessionId,
    type: 'checkout.session.async_payment_succeeded',
  });
  expect((await deliverEvent(suite.api, succeeded)).status).toBe(200);
  const orders = await ordersOfHold(suite.api, hold.id);
  expect(orders).toHaveLength(1);
  expect(orders[0]!.paymentReference).toBe('pi_sepa_1');
  const payments = await paymentsOfHold(suite.api, hold.id);
  expect(payments).toHaveLength(1);
  expect(payments[0]).toMatchObject({ status: 'APPLIED', providerEventId: succeeded.id, amountCents: 4200 });
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when async_payment_failed arrives, then no order and no payment: the hold stays active and runs out as usual', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 4200) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const failed = checkoutSessionEvent({
    holdId: hold.id, amount: 4200, currency: 'usd', paymentIntent: 'pi_sepa_2', paymentStatus: 'unpaid',
    type: 'checkout.session.async_payment_failed',
  });
  expect((await deliverEvent(suite.api, failed)).status).toBe(200);
  expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(0);
  expect(await paymentsOfHold(suite.api, hold.id)).toHaveLength(0);
  const read = await suite.api.call('GET', `/v1/holds/${hold.id}`, { token: suite.api.token('customer', 'buyer-1') });
  expect(read.body.hold.status).toBe('active');
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when a completed session says paid but an unpaid one or a no-payment one arrives for a priced hold, then only money received confirms', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1, 'standard', 4200) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const free = checkoutSessionEvent({
    holdId: hold.id, amount: 4200, currency: 'usd', paymentIntent: null, paymentStatus: 'no_payment_required',
  });
  expect((await deliverEvent(suite.api, free)).status).toBe(200);
  expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(0);
  const payments = await paymentsOfHold(suite.api, hold.id);
  expect(payments.filter((p) => p.status === 'APPLIED')).toHaveLength(0);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when a paid event carries no holdId (another product on the account), then it is recorded ignored, never refund_required', async () => {
  const ev = paymentIntentEvent({ amount: 1000, currency: 'usd' });
  expect((await deliverEvent(suite.api, ev)).status).toBe(200);
  const row = await suite.api.rt.db.payment.findUnique({ where: { providerEventId: ev.id } });
  expect(row).toMatchObject({ status: 'IGNORED', holdId: null, orderId: null, reference: ev.data.object.id });
  expect(row!.reason).toMatch(/no holdId/);
  const audit = await suite.api.rt.db.auditEntry.findMany({ where: { action: 'payment.refund_required', details: { path: ['providerEventId'], equals: ev.id } } });
  expect(audit).toHaveLength(0);
  // Visible to admins, filtered as ignored.
  const list = await suite.api.call('GET', '/v1/admin/payments?status=ignored&limit=1000', { token: suite.api.token('admin') });
  expect(list.status).toBe(200);
  expect(list.body.payments.find((p: { id: string }) => p.id === row!.id)).toMatchObject({ status: 'ignored', holdId: null });
  // Delivered again: processed once.
  expect((await deliverEvent(suite.api, ev)).status).toBe(200);
  expect(await suite.api.rt.db.payment.count({ where: { providerEventId: ev.id } })).toBe(1);
  await suite.api.rt.db.payment.delete({ where: { providerEventId: ev.id } });
});

test('when the payment intent\'s and the session\'s events for one payment of an expired hold arrive together, then one order and no refund_required', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 1, seats: seatGrid(['A'], 2, 15, 'standard', 2500) });
  const holds = [];
  for (let i = 0; i < 30; i++) holds.push(await holdSeats(suite.api, event.id, `buyer-${i}`, [seats[i]!.id]));
  await waitUntilExpired(holds[holds.length - 1]!);
  const results = await Promise.all(holds.map(async (hold, i) => {
    const intentId = rid('pi');
    const pi = paymentIntentEvent({ holdId: hold.id, amount: 2500, currency: 'usd', intentId });
    const cs = checkoutSessionEvent({ holdId: hold.id, amount: 2500, currency: 'usd', paymentIntent: intentId });
    const pair = i % 2 ? [pi, cs] : [cs, pi];
    const answers = await Promise.all(pair.map((e) => deliverEvent(suite.api, e)));
    return { hold, intentId, answers };
  }));
  for (const { hold, intentId, answers } of results) {
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const orders = await ordersOfHold(suite.api, hold.id);
    expect(orders).toHaveLength(1);
    expect(orders[0]!.paymentReference).toBe(intentId);
    const payments = await paymentsOfHold(suite.api, hold.id);
    expect(payments.filter((p) => p.status === 'REFUND_REQUIRED')).toEqual([]);
    expect(payments.filter((p) => p.status === 'APPLIED')).toHaveLength(1);
  }
  // Every seat reads sold: no give-up freed a winner's leases.
  const map = await suite.api.call('GET', `/v1/events/${event.id}/seats`);
  expect(map.body.seats.map((s: { status: string }) => s.status)).toEqual(Array(30).fill('sold'));
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when the payment intent\'s and the session\'s events for one payment of a released hold arrive, together or one after the other, then the charge is recorded refund_required once', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 6, 'standard', 2500) });
  const holds = [];
  for (let i = 0; i < 6; i++) holds.push(await holdSeats(suite.api, event.id, `buyer-${i}`, [seats[i]!.id]));
  for (const [i, hold] of holds.entries()) {
    const res = await suite.api.call('DELETE', `/v1/holds/${hold.id}`, { token: suite.api.token('customer', `buyer-${i}`) });
    expect(res.status).toBe(200);
  }
  const results = await Promise.all(holds.map(async (hold, i) => {
    const intentId = rid('pi');
    const pi = paymentIntentEvent({ holdId: hold.id, amount: 2500, currency: 'usd', intentId });
    const cs = checkoutSessionEvent({ holdId: hold.id, amount: 2500, currency: 'usd', paymentIntent: intentId });
    const pair = i % 2 ? [pi, cs] : [cs, pi];
    // Half the pairs arrive together, half one after the other; then both are delivered again.
    const answers = i < 3 ? await Promise.all(pair.map((e) => deliverEvent(suite.api, e))) : [await deliverEvent(suite.api, pair[0]!), await deliverEvent(suite.api, pair[1]!)];
    for (const e of pair) answers.push(await deliverEvent(suite.api, e));
    return { hold, intentId, answers };
  }));
  for (const { hold, intentId, answers } of results) {
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(0);
    const payments = await paymentsOfHold(suite.api, hold.id);
    expect(payments.map((p) => ({ status: p.status, reference: p.reference, amountCents: p.amountCents })))
      .toEqual([{ status: 'REFUND_REQUIRED', reference: intentId, amountCents: 2500 }]);
    const audit = await suite.api.rt.db.auditEntry.findMany({ where: { action: 'payment.refund_required', holdId: hold.id } });
    expect(audit).toHaveLength(1);
  }
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when a charge was recorded refund_required and its hold\'s seat is free again when the charge\'s second event arrives, then no order is made of it', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 1, 'standard', 2500) });
  const first = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  await waitUntilExpired(first);
  // Another buyer holds the seat meanwhile: the charge's first event cannot become an order.
  const second = await holdSeats(suite.api, event.id, 'buyer-2', [seats[0]!.id]);
  const intentId = rid('pi');
  expect((await deliverEvent(suite.api, paymentIntentEvent({ holdId: first.id, amount: 2500, currency: 'usd', intentId }))).status).toBe(200);
  expect((await paymentsOfHold(suite.api, first.id)).map((p) => p.status)).toEqual(['REFUND_REQUIRED']);
  // The seat comes back; the same charge's session event arrives.
  expect((await suite.api.call('DELETE', `/v1/holds/${second.id}`, { token: suite.api.token('customer', 'buyer-2') })).status).toBe(200);
  const cs = checkoutSessionEvent({ holdId: first.id, amount: 2500, currency: 'usd', paymentIntent: intentId });
  expect((await deliverEvent(suite.api, cs)).status).toBe(200);
  expect(await ordersOfHold(suite.api, first.id)).toHaveLength(0);
  expect((await paymentsOfHold(suite.api, first.id)).map((p) => p.status)).toEqual(['REFUND_REQUIRED']);
  await expectInvariants(suite.api.rt.db, event.id);
});
