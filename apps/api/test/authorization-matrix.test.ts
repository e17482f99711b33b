import jwt from 'jsonwebtoken';
import { createTestEvent, dropTestEvent, dropTestWebhooks, seatGrid, useTestApi } from '@holdfast/test-kit';
import { routesOf } from './routes-of';

const PRINCIPALS = ['none', 'forged', 'expired', 'otherCustomer', 'service', 'customer', 'admin'] as const;
type Who = (typeof PRINCIPALS)[number];

/**
 * The contract's answer for every endpoint and caller, in PRINCIPALS order:
 * no token, forged (another secret), expired, another customer, service, the
 * owning customer, admin. Public endpoints ignore tokens. The test fails when
 * the router serves an endpoint this table does not list.
 */
const PAGE: [number, number, number, number, number, number, number] = [0, 0, 0, 0, 0, 0, 0];
const EXPECTED: Record<string, [number, number, number, number, number, number, number]> = {
  'GET /healthz': [200, 200, 200, 200, 200, 200, 200],
  'GET /readyz': [200, 200, 200, 200, 200, 200, 200],
  'GET /metrics': [200, 200, 200, 200, 200, 200, 200],
  'GET /openapi.json': [200, 200, 200, 200, 200, 200, 200],
  'GET /docs': [200, 200, 200, 200, 200, 200, 200],
  'POST /v1/auth/demo-token': [200, 200, 200, 200, 200, 200, 200],
  'GET /v1/events': [200, 200, 200, 200, 200, 200, 200],
  'GET /v1/events/{eventId}': [200, 200, 200, 200, 200, 200, 200],
  'GET /v1/events/{eventId}/seats': [200, 200, 200, 200, 200, 200, 200],
  'GET /v1/events/{eventId}/stream': [200, 200, 200, 200, 200, 200, 200],
  'POST /v1/admin/events': [401, 401, 401, 403, 403, 403, 201],
  'POST /v1/events/{eventId}/holds': [401, 401, 401, 201, 403, 201, 403],
  'GET /v1/holds/{holdId}': [401, 401, 401, 404, 200, 200, 200],
  'DELETE /v1/holds/{holdId}': [401, 401, 401, 404, 403, 200, 403],
  'POST /v1/holds/{holdId}/confirm': [401, 401, 401, 403, 201, 403, 200],
  'GET /v1/orders/{orderId}': [401, 401, 401, 404, 200, 200, 200],
  'POST /v1/webhooks/stripe': [400, 400, 400, 400, 400, 400, 400],
  'POST /v1/demo/holds/{holdId}/pay': [401, 401, 401, 404, 403, 201, 403],
  'GET /v1/admin/holds': [401, 401, 401, 403, 403, 403, 200],
  'POST /v1/admin/reconcile': [401, 401, 401, 403, 403, 403, 202],
  'GET /v1/admin/reconcile/last': [401, 401, 401, 403, 403, 403, 200],
  // The pages are public; 404 (with the error body) when apps/web is not built.
  'GET /': PAGE,
  'GET /admin': PAGE,
  'DELETE /v1/admin/holds/{holdId}': [401, 401, 401, 403, 403, 403, 200],
  'GET /v1/admin/orders': [401, 401, 401, 403, 403, 403, 200],
  'GET /v1/admin/payments': [401, 401, 401, 403, 403, 403, 200],
  'GET /v1/admin/audit': [401, 401, 401, 403, 403, 403, 200],
  'POST /v1/holds/{holdId}/extend': [401, 401, 401, 404, 403, 200, 200],
  'PATCH /v1/admin/events/{eventId}': [401, 401, 401, 403, 403, 403, 200],
  'GET /v1/admin/events/{eventId}/sales': [401, 401, 401, 403, 403, 403, 200],
  // No payment has this id: the admin gets past authorization to the 404.
  'POST /v1/admin/payments/{paymentId}/refund': [401, 401, 401, 403, 403, 403, 404],
  'POST /v1/admin/queues/session': [401, 401, 401, 403, 403, 403, 200],
  // The dashboard (its redirect to /admin/queues/ followed).
  'GET /admin/queues': [401, 401, 401, 403, 403, 403, 200],
  'POST /v1/events/{eventId}/queue': [401, 401, 401, 200, 403, 200, 403],
  'GET /v1/events/{eventId}/queue/me': [401, 401, 401, 200, 403, 200, 403],
  'GET /v1/admin/events/{eventId}/queue': [401, 401, 401, 403, 403, 403, 200],
  'PATCH /v1/admin/events/{eventId}/queue': [401, 401, 401, 403, 403, 403, 200],
  // The owner is in line already (200: the same entry); another customer joins (201).
  'POST /v1/events/{eventId}/waitlist': [401, 401, 401, 201, 403, 200, 403],
  'GET /v1/events/{eventId}/waitlist/me': [401, 401, 401, 200, 403, 200, 403],
  'DELETE /v1/events/{eventId}/waitlist/{entryId}': [401, 401, 401, 404, 403, 200, 403],
  'GET /v1/admin/events/{eventId}/waitlist': [401, 401, 401, 403, 403, 403, 200],
  'DELETE /v1/admin/events/{eventId}/waitlist/{entryId}': [401, 401, 401, 403, 403, 403, 200],
  'POST /v1/admin/orders/{orderId}/cancel': [401, 401, 401, 403, 403, 403, 200],
  'POST /v1/admin/webhooks': [401, 401, 401, 403, 403, 403, 201],
  'GET /v1/admin/webhooks': [401, 401, 401, 403, 403, 403, 200],
  'PATCH /v1/admin/webhooks/{webhookId}': [401, 401, 401, 403, 403, 403, 200],
  'GET /v1/admin/webhooks/{webhookId}/deliveries': [401, 401, 401, 403, 403, 403, 200],
  'DELETE /v1/admin/webhooks/{webhookId}': [401, 401, 401, 403, 403, 403, 200],
};

const { api } = useTestApi();

test('when the router is compared with the matrix, then every served endpoint has a row', () => {
  expect(routesOf(api.rt.app)).toEqual(Object.keys(EXPECTED).sort());
});

test('when every endpoint is called as each kind of caller, then each answers the status the contract gives', async () => {
  const { event } = await createTestEvent(api, {
    maxHoldExtensions: 3, seats: seatGrid(['A'], 1, 4), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 100 }],
  });
  // An event with a waiting room, for its endpoints.
  const { event: room } = await createTestEvent(api, {
    ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10 }],
    waitingRoom: { admitPerMinute: 60, maxActive: 10, passSeconds: 60, preQueueSeconds: 0 },
  });
  // A sold-out event (its one ticket held), for the waiting list's endpoints.
  const { event: soldOut } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 1 }] });
  const created: string[] = [room.id, soldOut.id];
  const webhooks: string[] = [];
  const owner = `owner-${Date.now()}`;
  const secret = api.config.jwtSecret!;
  const tokens: Record<Who, string | undefined> = {
    none: undefined,
    forged: jwt.sign({ sub: 'admin-1', role: 'admin' }, `${secret}-forged`, { algorithm: 'HS256' }),
    expired: jwt.sign({ sub: 'admin-1', role: 'admin', exp: Math.floor(Date.now() / 1000) - 60 }, secret, { algorithm: 'HS256' }),
    otherCustomer: api.token('customer', `other-${Date.now()}`),
    service: api.token('service', 'integrator-1'),
    customer: api.token('customer', owner),
    admin: api.token('admin', 'admin-1'),
  };
  const newHold = async () => {
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, {
      token: tokens.customer, body: { ticketTypeId: event.ticketTypes[0].id, quantity: 1 },
    });
    if (res.status !== 201) throw new Error(`hold: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.hold.id as string;
  };
  const readHold = await newHold();
  const must = async (res: Awaited<ReturnType<typeof api.call>>, status: number, what: string) => {
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const gaLine = { ticketTypeId: soldOut.ticketTypes[0].id, quantity: 1 };
  await must(await api.call('POST', `/v1/events/${soldOut.id}/holds`, { token: api.token('customer', `holder-${Date.now()}`), body: gaLine }), 201, 'sold-out hold');
  const ownEntry = (await must(await api.call('POST', `/v1/events/${soldOut.id}/waitlist`, { token: tokens.customer, body: gaLine }), 201, 'own entry')).entry.id;
  const removedEntry = (await must(await api.call('POST', `/v1/events/${soldOut.id}/waitlist`, {
    token: api.token('customer', `third-${Date.now()}`), body: gaLine,
  }), 201, 'entry to remove')).entry.id;
  // Webhook endpoints: a public address (no private one is accepted), subscribed to nothing that fires here.
  const newWebhook = async () => {
    const { webhook } = await must(await api.call('POST', '/v1/admin/webhooks', {
      token: tokens.admin, body: { url: 'https://93.184.216.34/matrix', events: ['waitlist.offer_expired'] },
    }), 201, 'webhook');
    webhooks.push(webhook.id);
    return webhook.id as string;
  };
  const patchedWebhook = await newWebhook();
  const deletedWebhook = await newWebhook();
  const requests: Record<string, () => Promise<{ method: string; path: string; body?: unknown; stream?: boolean }>> = {
    'GET /healthz': async () => ({ method: 'GET', path: '/healthz' }),
    'GET /': async () => ({ method: 'GET', path: '/' }),
    'GET /admin': async () => ({ method: 'GET', path: '/admin' }),
    'POST /v1/admin/reconcile': async () => ({ method: 'POST', path: '/v1/admin/reconcile', body: {} }),
    'GET /v1/admin/reconcile/last': async () => ({ method: 'GET', path: '/v1/admin/reconcile/last' }),
    'GET /readyz': async () => ({ method: 'GET', path: '/readyz' }),
    'GET /metrics': async () => ({ method: 'GET', path: '/metrics' }),
    'GET /openapi.json': async () => ({ method: 'GET', path: '/openapi.json' }),
    'GET /docs': async () => ({ method: 'GET', path: '/docs' }),
    'POST /v1/auth/demo-token': async () => ({ method: 'POST', path: '/v1/auth/demo-token', body: { customerId: 'demo-1' } }),
    'GET /v1/events': async () => ({ method: 'GET', path: '/v1/events?limit=1' }),
    'GET /v1/events/{eventId}': async () => ({ method: 'GET', path: `/v1/events/${event.id}` }),
    'GET /v1/events/{eventId}/seats': async () => ({ method: 'GET', path: `/v1/events/${event.id}/seats` }),
    'GET /v1/events/{eventId}/stream': async () => ({ method: 'GET', path: `/v1/events/${event.id}/stream`, stream: true }),
    'POST /v1/admin/events': async () => ({
      method: 'POST', path: '/v1/admin/events', body: { name: 'Matrix', startsAt: '2027-01-01T19:00:00Z', seats: seatGrid(['M'], 1, 1) },
    }),
    'POST /v1/events/{eventId}/holds': async () => ({
      method: 'POST', path: `/v1/events/${event.id}/holds`, body: { ticketTypeId: event.ticketTypes[0].id, quantity: 1 },
    }),
    'GET /v1/holds/{holdId}': async () => ({ method: 'GET', path: `/v1/holds/${readHold}` }),
    'GET /v1/admin/holds': async () => ({ method: 'GET', path: `/v1/admin/holds?eventId=${event.id}` }),
    'GET /v1/admin/orders': async () => ({ method: 'GET', path: `/v1/admin/orders?eventId=${event.id}` }),
    'GET /v1/admin/payments': async () => ({ method: 'GET', path: '/v1/admin/payments?limit=1' }),
    'GET /v1/admin/audit': async () => ({ method: 'GET', path: `/v1/admin/audit?eventId=${event.id}` }),
    'PATCH /v1/admin/events/{eventId}': async () => ({ method: 'PATCH', path: `/v1/admin/events/${event.id}`, body: { name: 'Matrix renamed' } }),
    'GET /v1/admin/events/{eventId}/sales': async () => ({ method: 'GET', path: `/v1/admin/events/${event.id}/sales` }),
    'POST /v1/admin/payments/{paymentId}/refund': async () => ({
      method: 'POST', path: '/v1/admin/payments/00000000-0000-4000-8000-000000000000/refund', body: { note: 'matrix' },
    }),
    'POST /v1/admin/queues/session': async () => ({ method: 'POST', path: '/v1/admin/queues/session' }),
    'GET /admin/queues': async () => ({ method: 'GET', path: '/admin/queues' }),
    'POST /v1/events/{eventId}/queue': async () => ({ method: 'POST', path: `/v1/events/${room.id}/queue` }),
    'GET /v1/events/{eventId}/queue/me': async () => ({ method: 'GET', path: `/v1/events/${room.id}/queue/me` }),
    'GET /v1/admin/events/{eventId}/queue': async () => ({ method: 'GET', path: `/v1/admin/events/${room.id}/queue` }),
    'PATCH /v1/admin/events/{eventId}/queue': async () => ({ method: 'PATCH', path: `/v1/admin/events/${room.id}/queue`, body: { paused: false } }),
    'POST /v1/events/{eventId}/waitlist': async () => ({ method: 'POST', path: `/v1/events/${soldOut.id}/waitlist`, body: gaLine }),
    'GET /v1/events/{eventId}/waitlist/me': async () => ({ method: 'GET', path: `/v1/events/${soldOut.id}/waitlist/me` }),
    'DELETE /v1/events/{eventId}/waitlist/{entryId}': async () => ({ method: 'DELETE', path: `/v1/events/${soldOut.id}/waitlist/${ownEntry}` }),
    'GET /v1/admin/events/{eventId}/waitlist': async () => ({ method: 'GET', path: `/v1/admin/events/${soldOut.id}/waitlist` }),
    'DELETE /v1/admin/events/{eventId}/waitlist/{entryId}': async () => ({
      method: 'DELETE', path: `/v1/admin/events/${soldOut.id}/waitlist/${removedEntry}`, body: { reason: 'matrix' },
    }),
    'POST /v1/admin/webhooks': async () => ({ method: 'POST', path: '/v1/admin/webhooks', body: { url: 'https://93.184.216.34/matrix', events: ['waitlist.offer_expired'] } }),
    'GET /v1/admin/webhooks': async () => ({ method: 'GET', path: '/v1/admin/webhooks?limit=1' }),
    'PATCH /v1/admin/webhooks/{webhookId}': async () => ({ method: 'PATCH', path: `/v1/admin/webhooks/${patchedWebhook}`, body: { enabled: false } }),
    'GET /v1/admin/webhooks/{webhookId}/deliveries': async () => ({ method: 'GET', path: `/v1/admin/webhooks/${patchedWebhook}/deliveries` }),
    'DELETE /v1/admin/webhooks/{webhookId}': async () => ({ method: 'DELETE', path: `/v1/admin/webhooks/${deletedWebhook}` }),
  };
  // The releasing endpoints get a fresh hold per row; the successful caller comes last in PRINCIPALS order.
  const extended = await newHold();
  requests['POST /v1/holds/{holdId}/extend'] = async () => ({ method: 'POST', path: `/v1/holds/${extended}/extend` });
  const ownRelease = await newHold();
  const adminRelease = await newHold();
  const confirmHold = await newHold();
  const paidHold = await newHold();
  const orderHold = await newHold();
  const confirmed = await api.call('POST', `/v1/holds/${orderHold}/confirm`, { token: tokens.service, body: { paymentReference: 'pi_matrix' } });
  if (confirmed.status !== 201) throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  requests['POST /v1/holds/{holdId}/confirm'] = async () => ({ method: 'POST', path: `/v1/holds/${confirmHold}/confirm`, body: { paymentReference: 'pi_1' } });
  requests['GET /v1/orders/{orderId}'] = async () => ({ method: 'GET', path: `/v1/orders/${confirmed.body.order.id}` });
  const cancelled = await must(await api.call('POST', `/v1/holds/${await newHold()}/confirm`, { token: tokens.service, body: { paymentReference: 'pi_matrix_cancel' } }), 201, 'confirm to cancel');
  requests['POST /v1/admin/orders/{orderId}/cancel'] = async () => ({ method: 'POST', path: `/v1/admin/orders/${cancelled.order.id}/cancel`, body: { reason: 'matrix' } });
  // Tokens mean nothing to the webhook: only Stripe's signature does, and this one has none.
  requests['POST /v1/webhooks/stripe'] = async () => ({ method: 'POST', path: '/v1/webhooks/stripe', body: { id: 'evt_1', type: 'payment_intent.succeeded', data: { object: {} } } });
  requests['POST /v1/demo/holds/{holdId}/pay'] = async () => ({ method: 'POST', path: `/v1/demo/holds/${paidHold}/pay` });
  requests['DELETE /v1/holds/{holdId}'] = async () => ({ method: 'DELETE', path: `/v1/holds/${ownRelease}` });
  requests['DELETE /v1/admin/holds/{holdId}'] = async () => ({ method: 'DELETE', path: `/v1/admin/holds/${adminRelease}`, body: { reason: 'matrix' } });

  try {
    const got: Record<string, number[]> = {};
    for (const endpoint of Object.keys(EXPECTED)) {
      const build = requests[endpoint];
      if (!build) throw new Error(`no request for ${endpoint}`);
      got[endpoint] = [];
      for (const who of PRINCIPALS) {
        const req = await build();
        if (req.stream) {
          // An event stream never ends: read its status, then hang up.
          const abort = new AbortController();
          const headers: Record<string, string> = tokens[who] ? { authorization: `Bearer ${tokens[who]}` } : {};
          const r = await fetch(api.url + req.path, { headers, signal: abort.signal });
          got[endpoint]!.push(r.status);
          abort.abort();
          continue;
        }
        const res = await api.call(req.method, req.path, { token: tokens[who], body: req.body });
        if (res.status >= 400) {
          expect(res.body.error).toEqual(expect.objectContaining({ code: expect.stringMatching(/^[A-Z_]+$/), message: expect.any(String) }));
        }
        if (res.status === 201 && res.body.event) created.push(res.body.event.id);
        if (res.status === 201 && res.body.webhook) webhooks.push(res.body.webhook.id);
        got[endpoint]!.push(res.status);
      }
    }
    for (const page of ['GET /', 'GET /admin']) {
      const statuses = got[page]!;
      expect([200, 404]).toContain(statuses[0]);
      expect(statuses).toEqual(Array(7).fill(statuses[0]));
      got[page] = PAGE;
    }
    expect(got).toEqual(EXPECTED);
  } finally {
    for (const id of webhooks) await api.call('DELETE', `/v1/admin/webhooks/${id}`, { token: tokens.admin });
    await dropTestWebhooks(api, webhooks);
    await dropTestEvent(api, event.id);
    for (const id of created) await dropTestEvent(api, id);
  }
});
