// Registering the seller's webhook receivers through HTTP: the secret shown once, the URL checked
// (https outside demo mode, no private address unless WEBHOOK_ALLOW_PRIVATE), list, disable,
// delete and deliveries, admin only and audited. Public receivers here are TEST-NET addresses:
// they pass the check and are never called (no worker runs on this suite's database).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '@holdfast/config';
import { dropTestEvent, dropTestWebhooks, startApi, useTestApi, type TestApi } from '@holdfast/test-kit';

const { api } = useTestApi();
const created: { id: string }[] = [];
let strict: TestApi;
let open: TestApi;

beforeAll(async () => {
  strict = await startApi({ DEMO_MODE: 'false', JWT_SECRET: 'x'.repeat(32), STRIPE_WEBHOOK_SECRET: 'whsec_test_secret' });
  open = await startApi({ DEMO_MODE: 'false', JWT_SECRET: 'x'.repeat(32), STRIPE_WEBHOOK_SECRET: 'whsec_test_secret', WEBHOOK_ALLOW_PRIVATE: 'true' });
});
afterAll(async () => {
  // useTestApi's API may be closed already: the endpoints go through this suite's own.
  const ids = created.map((c) => c.id);
  if (strict) {
    await dropTestWebhooks(strict, ids);
    await strict.close();
  }
  await open?.close();
});

async function register(a: TestApi, body: unknown, token = a.token('admin')) {
  const res = await a.call('POST', '/v1/admin/webhooks', { token, body });
  if (res.status === 201) created.push({ id: res.body.webhook.id });
  return res;
}

const PUBLIC = 'https://203.0.113.10/holdfast';

test('when an admin registers an https endpoint, then 201 answers it with its secret once, the list shows it without the secret, and the audit log names it', async () => {
  const admin = randomUUID();
  const res = await register(strict, { url: PUBLIC, events: ['order.confirmed', 'hold.expired'] }, strict.token('admin', admin));
  expect(res.status).toBe(201);
  const { webhook } = res.body;
  expect(webhook).toMatchObject({ url: PUBLIC, events: ['order.confirmed', 'hold.expired'], enabled: true });
  expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  const list = await strict.call('GET', '/v1/admin/webhooks?limit=1000', { token: strict.token('admin') });
  expect(list.status).toBe(200);
  const listed = list.body.webhooks.find((w: { id: string }) => w.id === webhook.id);
  expect(listed).toEqual({ id: webhook.id, url: PUBLIC, events: ['order.confirmed', 'hold.expired'], enabled: true, createdAt: webhook.createdAt });
  expect(JSON.stringify(list.body)).not.toContain(webhook.secret);
  const audit = await strict.rt.db.auditEntry.findMany({ where: { actor: `admin:${admin}` } });
  expect(audit.map((e) => [e.action, e.reason, e.details])).toEqual([
    ['webhook.created', PUBLIC, { webhookId: webhook.id, url: PUBLIC, events: ['order.confirmed', 'hold.expired'] }],
  ]);
  expect(JSON.stringify(audit)).not.toContain(webhook.secret);
});

test.each([
  'https://127.0.0.1/hook', 'https://127.1.2.3/hook', 'https://localhost/hook', 'https://10.0.0.5/hook', 'https://172.16.9.9/hook',
  'https://192.168.1.20/hook', 'https://100.64.0.1/hook', 'https://169.254.169.254/latest/meta-data', 'https://0.0.0.0/hook',
  'https://[::1]/hook', 'https://[fd00::1]/hook', 'https://[fe80::1]/hook', 'https://[::ffff:127.0.0.1]/hook', 'https://[::ffff:10.0.0.1]/hook',
])('when the URL %s is loopback, link-local or private, then registration answers 400 VALIDATION_FAILED naming url, and nothing is stored', async (url) => {
  const before = await strict.rt.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_endpoints WHERE url = ${url}`;
  const res = await register(strict, { url, events: ['order.confirmed'] });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_FAILED');
  expect(res.body.error.details.fields).toEqual([{ path: 'url', message: expect.stringMatching(/private address/) }]);
  const after = await strict.rt.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_endpoints WHERE url = ${url}`;
  expect(after[0]!.n).toBe(before[0]!.n);
});

test('when a host does not resolve, then registration answers 400 VALIDATION_FAILED naming url', async () => {
  const res = await register(strict, { url: 'https://no-such-host.invalid/hook', events: ['hold.released'] });
  expect(res.status).toBe(400);
  expect(res.body.error.details.fields).toEqual([{ path: 'url', message: expect.stringMatching(/does not resolve/) }]);
});

test('when demo mode is off, then a plain http URL is refused; in demo mode it is accepted (a public address)', async () => {
  const res = await register(strict, { url: 'http://203.0.113.10/hook', events: ['hold.released'] });
  expect(res.status).toBe(400);
  expect(res.body.error.details.fields).toEqual([{ path: 'url', message: expect.stringMatching(/must be an https URL/) }]);
  expect((await register(api, { url: 'http://203.0.113.10/hook', events: ['hold.released'] })).status).toBe(201);
  expect((await register(api, { url: 'http://127.0.0.1:9/hook', events: ['hold.released'] })).status).toBe(400);
});

test('when WEBHOOK_ALLOW_PRIVATE=true, then plain http and private addresses are accepted', async () => {
  for (const url of ['http://127.0.0.1:9/hook', 'http://10.1.2.3/hook', 'https://[::1]:8443/hook']) {
    const res = await register(open, { url, events: ['hold.expired'] });
    expect(res.status).toBe(201);
  }
});

test.each([
  ['no url', { events: ['order.confirmed'] }, 'url'],
  ['a url that is not one', { url: 'not a url', events: ['order.confirmed'] }, 'url'],
  ['another scheme', { url: 'ftp://203.0.113.10/x', events: ['order.confirmed'] }, 'url'],
  ['credentials in the url', { url: 'https://user:pw@203.0.113.10/x', events: ['order.confirmed'] }, 'url'],
  ['no events', { url: PUBLIC, events: [] }, 'events'],
  ['an unknown event type', { url: PUBLIC, events: ['order.shipped'] }, 'events.0'],
  ['an event type twice', { url: PUBLIC, events: ['hold.expired', 'hold.expired'] }, 'events'],
  ['an unknown field', { url: PUBLIC, events: ['hold.expired'], secret: 'mine' }, 'secret'],
  ['a url too long', { url: `https://203.0.113.10/${'a'.repeat(2000)}`, events: ['hold.expired'] }, 'url'],
])('when the body has %s, then registration answers 400 VALIDATION_FAILED naming the field', async (_what, body, path) => {
  const res = await register(api, body);
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_FAILED');
  expect(res.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(path);
});

test('when an admin disables, enables and deletes an endpoint, then each answers the endpoint, is audited, and an unknown id answers 404 WEBHOOK_NOT_FOUND', async () => {
  const admin = randomUUID();
  const token = api.token('admin', admin);
  const { webhook } = (await register(api, { url: PUBLIC, events: ['hold.released'] }, token)).body;
  const off = await api.call('PATCH', `/v1/admin/webhooks/${webhook.id}`, { token, body: { enabled: false } });
  expect(off.status).toBe(200);
  expect(off.body.webhook).toMatchObject({ id: webhook.id, enabled: false });
  expect(off.body.webhook.secret).toBeUndefined();
  expect((await api.call('PATCH', `/v1/admin/webhooks/${webhook.id}`, { token, body: { enabled: true } })).body.webhook.enabled).toBe(true);
  expect((await api.call('PATCH', `/v1/admin/webhooks/${webhook.id}`, { token, body: { enabled: 'no' } })).status).toBe(400);
  expect((await api.call('PATCH', `/v1/admin/webhooks/${webhook.id}`, { token, body: {} })).status).toBe(400);
  const deliveries = await api.call('GET', `/v1/admin/webhooks/${webhook.id}/deliveries`, { token });
  expect(deliveries.status).toBe(200);
  const del = await api.call('DELETE', `/v1/admin/webhooks/${webhook.id}`, { token });
  expect(del.status).toBe(200);
  expect(del.body.webhook.id).toBe(webhook.id);
  for (const [method, path, body] of [
    ['DELETE', `/v1/admin/webhooks/${webhook.id}`, undefined], ['PATCH', `/v1/admin/webhooks/${webhook.id}`, { enabled: false }],
    ['GET', `/v1/admin/webhooks/${webhook.id}/deliveries`, undefined], ['GET', '/v1/admin/webhooks/not-a-uuid/deliveries', undefined],
  ] as const) {
    const res = await api.call(method, path, { token, body });
    expect([path, res.status, res.body.error.code]).toEqual([path, 404, 'WEBHOOK_NOT_FOUND']);
  }
  const audit = await api.rt.db.auditEntry.findMany({ where: { actor: `admin:${admin}` }, orderBy: { at: 'asc' } });
  expect(audit.map((e) => e.action)).toEqual(['webhook.created', 'webhook.disabled', 'webhook.enabled', 'webhook.deleted']);
});

test('when a customer or a service calls the webhook endpoints, then 403 FORBIDDEN, and without a token 401', async () => {
  for (const role of ['customer', 'service'] as const) {
    const token = api.token(role);
    expect((await api.call('POST', '/v1/admin/webhooks', { token, body: { url: PUBLIC, events: ['hold.expired'] } })).status).toBe(403);
    expect((await api.call('GET', '/v1/admin/webhooks', { token })).status).toBe(403);
  }
  expect((await api.call('GET', '/v1/admin/webhooks')).status).toBe(401);
});

test('when a customer releases a hold and an endpoint subscribes to hold.released, then the event (the hold as the API answers it) and a pending delivery are recorded', async () => {
  const token = api.token('admin');
  const { webhook } = (await register(api, { url: PUBLIC, events: ['hold.released'] }, token)).body;
  const ev = await api.call('POST', '/v1/admin/events', {
    token, body: { name: 'webhook release', startsAt: new Date(Date.now() + 86400_000).toISOString(), currency: 'EUR',
      holdTtlSeconds: 600, seats: [{ section: 'A', row: '1', number: 1, tier: 'std', priceCents: 1000 }] },
  });
  expect(ev.status).toBe(201);
  try {
    const customer = api.token('customer');
    const seats = await api.call('GET', `/v1/events/${ev.body.event.id}/seats`, { token: customer });
    const hold = await api.call('POST', `/v1/events/${ev.body.event.id}/holds`, { token: customer, body: { seatIds: [seats.body.seats[0].id] } });
    expect(hold.status).toBe(201);
    const released = await api.call('DELETE', `/v1/holds/${hold.body.hold.id}`, { token: customer });
    expect(released.status).toBe(200);
    const deliveries = await api.call('GET', `/v1/admin/webhooks/${webhook.id}/deliveries`, { token });
    expect(deliveries.body.deliveries).toEqual([expect.objectContaining({ type: 'hold.released', status: 'pending', attempts: [], finishedAt: null })]);
    const [event] = await api.rt.db.$queryRaw<{ data: unknown; ordering_key: string }[]>`
      SELECT data, ordering_key FROM webhook_events WHERE id = ${deliveries.body.deliveries[0].eventId}::uuid`;
    expect(event).toEqual({ data: { hold: released.body.hold }, ordering_key: hold.body.hold.id });
  } finally {
    await dropTestEvent(api, ev.body.event.id);
  }
});

test('when the WEBHOOK_* settings are read, then plain http follows demo mode or WEBHOOK_ALLOW_PRIVATE, and a bad value stops start-up naming the variable', () => {
  const prod = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), STRIPE_WEBHOOK_SECRET: 'whsec_test_secret' };
  expect(loadConfig(prod).webhooks).toEqual({
    allowPrivate: false, allowHttp: false, timeoutMs: 10_000, retryBaseMs: 10_000, retryMaxDelayMs: 3_600_000, retryWindowMs: 86_400_000, dispatchEveryMs: 1000, retentionMs: 30 * 86_400_000,
  });
  expect(loadConfig({ ...prod, WEBHOOK_ALLOW_PRIVATE: 'true' }).webhooks).toMatchObject({ allowPrivate: true, allowHttp: true });
  expect(loadConfig({ NODE_ENV: 'test' }).webhooks).toMatchObject({ allowPrivate: false, allowHttp: true });
  expect(() => loadConfig({ ...prod, WEBHOOK_ALLOW_PRIVATE: 'maybe' })).toThrow(/WEBHOOK_ALLOW_PRIVATE/);
  expect(() => loadConfig({ ...prod, WEBHOOK_TIMEOUT_MS: '0' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
});

test('when an endpoint is deleted while a release records its event, then the release succeeds and the deleted endpoint gets no delivery', async () => {
  const res = await register(api, { url: `${PUBLIC}/deleted-meanwhile`, events: ['hold.released'] });
  expect(res.status).toBe(201);
  const webhookId = res.body.webhook.id as string;
  const { event } = await api.call('POST', '/v1/admin/events', {
    token: api.token('admin'),
    body: { name: 'Delete race', startsAt: '2027-01-01T19:00:00Z', ticketTypes: [{ name: 'GA', priceCents: 500, capacity: 5 }] },
  }).then((r) => r.body);
  const customer = api.token('customer', `delete-race-${randomUUID()}`);
  try {
    const held = await api.call('POST', `/v1/events/${event.id}/holds`, { token: customer, body: { ticketTypeId: event.ticketTypes[0].id, quantity: 1 } });
    expect(held.status).toBe(201);
    await api.rt.ctx.persister.flush([event.id]);
    // The delete has taken the endpoint's row and not committed yet (an admin's delete in flight).
    const client = new pg.Client({ connectionString: api.config.databaseUrl });
    await client.connect();
    let released: Promise<{ status: number }>;
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM webhook_endpoints WHERE id = $1::uuid', [webhookId]);
      released = api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token: customer });
      await new Promise((r) => setTimeout(r, 300));
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    expect((await released).status).toBe(200);
    expect(await api.rt.db.webhookDelivery.count({ where: { endpointId: webhookId } })).toBe(0);
    expect((await api.call('GET', `/v1/holds/${held.body.hold.id}`, { token: customer })).body.hold.status).toBe('released');
  } finally {
    await dropTestEvent(api, event.id);
  }
});
