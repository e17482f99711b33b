// The admin console's new endpoints through HTTP: the sales numbers of an event,
// orders searched by number, customer or seat, a refund marked once with who,
// when and a note (audited), and the queue dashboard behind the admin role.
import { seatGrid, startApi, useTestApi, confirmVia, deliverEvent, holdSeats, holdTickets, paymentIntentEvent, paymentsOfHold, rid } from '@holdfast/test-kit';

const suite = useTestApi();
const { newEvent } = suite;
const admin = () => suite.api.token('admin', 'box-office');

test('when seats and tickets are held and sold, then the sales numbers per tier and ticket type, revenue and per-minute counts say so', async () => {
  const seats = [...seatGrid(['A'], 1, 4, 'front', 9000), ...seatGrid(['B'], 1, 6, 'back', 4000)];
  const { event, seats: map } = await newEvent({ seats, ticketTypes: [{ name: 'Standing', priceCents: 2500, capacity: 50 }] });
  const tt = event.ticketTypes[0].id;
  const front = map.filter((s) => s.tier === 'front');
  const back = map.filter((s) => s.tier === 'back');
  const sold = await holdSeats(suite.api, event.id, rid('a'), [front[0]!.id, front[1]!.id]);
  await holdSeats(suite.api, event.id, rid('b'), [back[0]!.id]);
  const ga = await holdTickets(suite.api, event.id, rid('c'), tt, 3);
  await holdTickets(suite.api, event.id, rid('d'), tt, 4);
  expect((await confirmVia(suite.api, sold.id)).status).toBe(201);
  expect((await confirmVia(suite.api, ga.id)).status).toBe(201);
  await suite.api.rt.ctx.persister.flush();

  const res = await suite.api.call('GET', `/v1/admin/events/${event.id}/sales`, { token: admin() });
  expect(res.status).toBe(200);
  const s = res.body.sales;
  expect(s).toMatchObject({ eventId: event.id, currency: 'USD', orders: 2, revenueCents: 2 * 9000 + 3 * 2500 });
  expect(s.tiers).toEqual([
    { tier: 'front', total: 4, sold: 2, held: 0, available: 2, revenueCents: 18000 },
    { tier: 'back', total: 6, sold: 0, held: 1, available: 5, revenueCents: 0 },
  ]);
  expect(s.ticketTypes).toEqual([{ id: tt, name: 'Standing', capacity: 50, sold: 3, held: 4, available: 43, revenueCents: 7500 }]);
  const perMinute = s.perMinute as { holds: number; orders: number }[];
  expect(perMinute.reduce((t, m) => t + m.holds, 0)).toBe(4);
  expect(perMinute.reduce((t, m) => t + m.orders, 0)).toBe(2);

  expect((await suite.api.call('GET', `/v1/admin/events/${event.id}/sales`, { token: suite.api.token('customer') })).status).toBe(403);
  const unknown = await suite.api.call('GET', '/v1/admin/events/00000000-0000-4000-8000-000000000000/sales', { token: admin() });
  expect([unknown.status, unknown.body.error?.code]).toEqual([404, 'EVENT_NOT_FOUND']);
});

test('when an admin searches orders by order number, customer or seat label, then exactly the matching orders come back', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['S'], 2, 3) });
  const alice = rid('alice');
  const bob = rid('bob');
  const a = await holdSeats(suite.api, event.id, alice, [seats[0]!.id]);
  const b = await holdSeats(suite.api, event.id, bob, [seats[4]!.id, seats[5]!.id]);
  const orderA = (await confirmVia(suite.api, a.id)).body.order;
  const orderB = (await confirmVia(suite.api, b.id)).body.order;
  const search = async (q: string) => {
    const r = await suite.api.call('GET', `/v1/admin/orders?eventId=${event.id}&q=${encodeURIComponent(q)}`, { token: admin() });
    expect(r.status).toBe(200);
    return r.body.orders.map((o: { id: string }) => o.id);
  };
  expect(await search(orderA.number)).toEqual([orderA.id]);
  expect(await search(orderB.number.toLowerCase())).toEqual([orderB.id]);
  expect(await search(bob)).toEqual([orderB.id]);
  expect(await search(seats[5]!.label)).toEqual([orderB.id]);
  expect(await search('s-1-1')).toEqual([orderA.id]);
  expect(await search('nobody-at-all')).toEqual([]);
  const bad = await suite.api.call('GET', '/v1/admin/orders?q=', { token: admin() });
  expect([bad.status, bad.body.error?.details.fields[0].path]).toEqual([400, 'q']);
});

test('when an admin marks a refund-required payment refunded, then who, when and the note are recorded once and audited; applied or unknown ones are refused', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 2, 'standard', 3000) });
  const hold = await holdSeats(suite.api, event.id, rid('payer'), [seats[0]!.id]);
  // A payment of the wrong amount cannot pay for the hold: it is recorded as owed a refund.
  expect((await deliverEvent(suite.api, paymentIntentEvent({ holdId: hold.id, amount: 1, currency: 'usd' }))).status).toBe(200);
  const [payment] = await paymentsOfHold(suite.api, hold.id);
  expect(payment?.status).toBe('REFUND_REQUIRED');
  const paid = await holdSeats(suite.api, event.id, rid('payer'), [seats[1]!.id]);
  await confirmVia(suite.api, paid.id);
  const applied = await deliverEvent(suite.api, paymentIntentEvent({ holdId: paid.id, amount: 3000, currency: 'usd' }));
  expect(applied.status).toBe(200);

  const mark = (id: string, body: unknown, token = admin()) => suite.api.call('POST', `/v1/admin/payments/${id}/refund`, { token, body });
  for (const body of [{}, { note: '' }, { note: 'x', by: 'me' }]) {
    expect((await mark(payment!.id, body)).body.error?.code).toBe('VALIDATION_FAILED');
  }
  expect((await mark(payment!.id, { note: 'x' }, suite.api.token('service'))).status).toBe(403);
  const before = Date.now();
  const res = await mark(payment!.id, { note: 'Refunded in the Stripe dashboard, re_123' });
  expect(res.status).toBe(200);
  expect(res.body.payment).toMatchObject({
    id: payment!.id, status: 'refund_required',
    refund: { by: 'admin:box-office', note: 'Refunded in the Stripe dashboard, re_123', at: expect.any(String) },
  });
  expect(Date.parse(res.body.payment.refund.at)).toBeGreaterThanOrEqual(before - 1000);
  const again = await mark(payment!.id, { note: 'twice' });
  expect([again.status, again.body.error?.code, again.body.error?.details]).toEqual([409, 'PAYMENT_NOT_REFUNDABLE', { reason: 'already_refunded' }]);
  const appliedRow = (await paymentsOfHold(suite.api, paid.id)).find((p) => p.status === 'APPLIED');
  if (appliedRow) expect((await mark(appliedRow.id, { note: 'no' })).body.error?.details).toEqual({ reason: 'not_owed' });
  expect((await mark('00000000-0000-4000-8000-000000000000', { note: 'x' })).body.error?.code).toBe('PAYMENT_NOT_FOUND');
  expect((await mark('not-a-uuid', { note: 'x' })).body.error?.code).toBe('PAYMENT_NOT_FOUND');

  const audit = await suite.api.call('GET', `/v1/admin/audit?eventId=${event.id}`, { token: admin() });
  const entries = audit.body.entries.filter((e: { action: string }) => e.action === 'payment.refunded');
  expect(entries).toEqual([expect.objectContaining({ actor: 'admin:box-office', holdId: hold.id, reason: 'Refunded in the Stripe dashboard, re_123' })]);
  const row = (await paymentsOfHold(suite.api, hold.id))[0]!;
  expect(row.refundNote).toBe('Refunded in the Stripe dashboard, re_123');
});

test('when /admin/queues is opened, then only the admin role gets the dashboard: by bearer header or by the cookie the admin page trades its token for', async () => {
  const url = `${suite.api.url}/admin/queues/`;
  expect((await fetch(url)).status).toBe(401);
  expect((await fetch(url, { headers: { authorization: `Bearer ${suite.api.token('customer')}` } })).status).toBe(403);
  expect((await fetch(url, { headers: { cookie: `hf_queues=${suite.api.token('service')}` } })).status).toBe(403);
  expect((await fetch(url, { headers: { cookie: 'hf_queues=forged.token.here' } })).status).toBe(401);
  // A cookie that is not valid percent-encoding: no token, the same 401 (the error body for an API call).
  const undecodable = await fetch(`${suite.api.url}/admin/queues/api/queues`, { headers: { cookie: 'hf_queues=%' } });
  expect({ status: undecodable.status, code: ((await undecodable.json()) as { error: { code: string } }).error.code }).toEqual({ status: 401, code: 'UNAUTHORIZED' });
  const apiCall = await fetch(`${suite.api.url}/admin/queues/api/queues`, { headers: { authorization: `Bearer ${suite.api.token('customer')}` } });
  expect(apiCall.status).toBe(403);

  const page = await fetch(url, { headers: { authorization: `Bearer ${admin()}` } });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('holdfast queues');
  const redirect = await fetch(`${suite.api.url}/admin/queues`, { headers: { authorization: `Bearer ${admin()}` }, redirect: 'manual' });
  expect([redirect.status, redirect.headers.get('location')]).toEqual([302, '/admin/queues/']);

  const session = await suite.api.call('POST', '/v1/admin/queues/session', { token: admin() });
  expect(session.status).toBe(200);
  const cookie = session.headers.get('set-cookie')!;
  expect(cookie).toMatch(/^hf_queues=[^;]+; Path=\/admin\/queues; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
  const withCookie = await fetch(`${suite.api.url}/admin/queues/api/queues?activeQueue=holdfast-expiry&page=1&jobsPerPage=10`, {
    headers: { cookie: cookie.split(';')[0]! },
  });
  expect(withCookie.status).toBe(200);
  const names = ((await withCookie.json()) as { queues: { name: string }[] }).queues.map((q) => q.name).sort();
  expect(names).toEqual(['holdfast-expiry', 'holdfast-maintenance', 'holdfast-webhooks']);
  expect((await suite.api.call('POST', '/v1/admin/queues/session', { token: suite.api.token('customer') })).status).toBe(403);
});

test('when the queue dashboard cookie is handed out, then it is Secure outside demo mode and not in demo mode (plain http on loopback)', async () => {
  const demo = await suite.api.call('POST', '/v1/admin/queues/session', { token: admin() });
  expect(suite.api.config.demoMode).toBe(true);
  expect(demo.headers.get('set-cookie')).not.toMatch(/;\s*Secure/i);

  const production = await startApi({ DEMO_MODE: 'false', JWT_SECRET: 'a-secret-of-the-non-demo-api-0123', STRIPE_WEBHOOK_SECRET: 'whsec_non_demo_api_secret' });
  try {
    expect(production.config.demoMode).toBe(false);
    const session = await production.call('POST', '/v1/admin/queues/session', { token: production.token('admin') });
    expect(session.status).toBe(200);
    expect(session.headers.get('set-cookie')).toMatch(/^hf_queues=[^;]+; Path=\/admin\/queues; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/);
  } finally {
    await production.close();
  }
});
