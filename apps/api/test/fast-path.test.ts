import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { checkResponse } from '../src';
import { HOLD_ID_PATTERN } from '@holdfast/contracts';
import { expectInvariants, seatGrid, useTestApi, waitFor, type TestApi } from '@holdfast/test-kit';
import { requestFingerprint } from '../src/middleware/idempotency';

// The lean path for hot endpoints (apps/api/src/fast-path.ts) against the Express
// steps: the same requests to two APIs, one with HTTP_FAST_PATH on (the default)
// and one with it off, each on an event of its own of the same shape. Every
// answer must be the same (status, headers, body with ids and times blanked),
// and the fast API must have served exactly the plain requests and passed on the rest.

const ORIGIN = 'https://shop.example';
const env = { CORS_ORIGINS: ORIGIN, HOLD_RATE_LIMIT_PER_MINUTE: '1000' };
const fast = useTestApi(env);
const express = useTestApi({ ...env, HTTP_FAST_PATH: 'false' });

interface Sent {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** Send the body in chunks (Transfer-Encoding: chunked) instead of with a Content-Length. */
  chunked?: boolean;
}

/** One request exactly as written (node:http, so Content-Length, encodings and chunking are the test's). */
function send(api: TestApi, r: RawRequest): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
    const headers: Record<string, string | number> = { ...r.headers };
    if (body && !r.chunked) headers['content-length'] ??= body.length;
    const key = r.headers?.['idempotency-key'];
    const bearerToken = /^Bearer (.+)$/.exec(String(r.headers?.authorization ?? ''))?.[1];
    if (key !== undefined && bearerToken) api.trackIdempotencyKey(bearerToken, String(key)); // its Redis key goes at close
    const req = http.request(`${api.url}${r.path}`, { method: r.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (body && r.chunked) {
      req.write(body.subarray(0, 5));
      req.end(body.subarray(5));
    } else req.end(body);
  });
}

/** The answer with what differs between two events and two moments blanked. */
function normalized(sent: Sent) {
  const text = sent.text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID')
    .replace(new RegExp(HOLD_ID_PATTERN.source.slice(1, -1), 'g'), 'HOLD_ID')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, 'TIME')
    .replace(/HF-\d{4}-\d+/g, 'ORDER_NUMBER');
  const headers = Object.entries(sent.headers)
    .filter(([name]) => !['date', 'x-request-id', 'content-length'].includes(name))
    .sort(([a], [b]) => a.localeCompare(b));
  return { status: sent.status, headers, body: text };
}

interface Sale {
  api: TestApi;
  eventId: string;
  seatIds: string[];
  /** A new buyer's token (each hold its own buyer: no per-customer limit in the way). */
  customer(): string;
  service: string;
  /** One buyer for the requests with an Idempotency-Key (a key is scoped to its principal). */
  keyed: { sub: string; token: string };
}

async function saleOn(suite: typeof fast): Promise<Sale> {
  const sub = `fp-keyed-${randomUUID()}`;
  // Seats 0-29 standard, 30-39 premium (the best-available hold takes premium ones).
  const { event, seats } = await suite.newEvent({ seats: [...seatGrid(['A'], 1, 30), ...seatGrid(['B'], 1, 10, 'premium')] });
  return {
    api: suite.api, eventId: event.id, seatIds: seats.map((s) => s.id),
    customer: () => suite.api.token('customer', `fp-${randomUUID()}`), service: suite.api.token('service'),
    keyed: { sub, token: suite.api.token('customer', sub) },
  };
}

const json = { 'content-type': 'application/json' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Sends a request built for each API's own sale to both, checks the answers agree and says which path the fast API took. */
async function both(build: (s: Sale) => RawRequest, sales: { fast: Sale; express: Sale }) {
  const before = { ...fastStats() };
  const a = await send(sales.fast.api, build(sales.fast));
  const after = fastStats();
  const b = await send(sales.express.api, build(sales.express));
  expect(normalized(a)).toEqual(normalized(b));
  for (const s of [a, b]) expect(Number(s.headers['content-length'] ?? Buffer.byteLength(s.text))).toBe(Buffer.byteLength(s.text));
  expect(express.api.rt.app.locals.fastPath).toEqual({ served: 0, passed: 0 });
  const way = after.served > before.served ? 'served' : after.passed > before.passed ? 'passed' : 'not a fast endpoint';
  return { way, status: a.status, body: a.text ? (JSON.parse(a.text) as Record<string, any>) : null, headers: a.headers }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const fastStats = () => fast.api.rt.app.locals.fastPath as { served: number; passed: number };

describe('when the same hold requests reach the lean path and the Express steps', () => {
  let sales: { fast: Sale; express: Sale };
  beforeAll(async () => {
    sales = { fast: await saleOn(fast), express: await saleOn(express) };
  });
  afterAll(async () => {
    await expectInvariants(fast.api.rt.db, sales.fast.eventId);
    await expectInvariants(express.api.rt.db, sales.express.eventId);
  });

  const hold = (seat: number, headers: Record<string, string | number> = {}) => (s: Sale): RawRequest => ({
    method: 'POST', path: `/v1/events/${s.eventId}/holds`, headers: { ...json, ...bearer(s.customer()), ...headers },
    body: JSON.stringify({ seatIds: [s.seatIds[seat]] }),
  });

  test.each([
    ['a plain hold', hold(0), 201],
    ['a hold of a seat already held', hold(0), 409],
    ['a hold with a query string (the endpoint parses none)', (s: Sale) => ({ ...hold(1)(s), path: `/v1/events/${s.eventId}/holds?utm=1` }), 201],
    ['a hold with charset=utf-8', hold(2, { 'content-type': 'application/json; charset=utf-8' }), 201],
    ['a hold whose body starts with a byte-order mark', (s: Sale) => ({ ...hold(3)(s), body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ seatIds: [s.seatIds[3]] }))]) }), 201],
    ['a best-available hold', (s: Sale) => ({ ...hold(0)(s), body: JSON.stringify({ tier: 'premium', quantity: 2 }) }), 201],
    ['no token', (s: Sale) => ({ ...hold(4)(s), headers: json }), 401],
    ['a service token', (s: Sale) => ({ ...hold(4)(s), headers: { ...json, ...bearer(s.service) } }), 403],
    ['a body that is not JSON', (s: Sale) => ({ ...hold(4)(s), body: '{"seatIds": [' }), 400],
    ['a JSON string (not an object)', (s: Sale) => ({ ...hold(4)(s), body: '  "seatIds"' }), 400],
    ['a JSON array', (s: Sale) => ({ ...hold(4)(s), body: ' \n[]' }), 400],
    ['an empty object', (s: Sale) => ({ ...hold(4)(s), body: '{}' }), 400],
    ['an unknown field', (s: Sale) => ({ ...hold(4)(s), body: JSON.stringify({ seatIds: [s.seatIds[4]], note: 'x' }) }), 400],
    ['whitespace only', (s: Sale) => ({ ...hold(4)(s), body: '   ' }), 400],
    ['an unknown event', (s: Sale) => ({ ...hold(4)(s), path: `/v1/events/${randomUUID()}/holds` }), 404],
    ['an event id that is no uuid', (s: Sale) => ({ ...hold(4)(s), path: '/v1/events/not-a-uuid/holds' }), 404],
    ['an allowed Origin (CORS)', hold(5, { origin: ORIGIN }), 201],
    ['another Origin', hold(6, { origin: 'https://elsewhere.example' }), 201],
    ['a well-formed X-Request-Id', hold(7, { 'x-request-id': 'abc-123' }), 201],
  ] as const)('%s: the same answer, served by the lean path', async (_what, build, status) => {
    const r = await both(build, sales);
    expect([r.way, r.status]).toEqual(['served', status]);
  });

  // Requests with an Idempotency-Key, each key sent by one buyer to both APIs: the first
  // request, the same again (replayed), another body, a key not valid, one still running.
  const KEY = `k-${randomUUID()}`;
  const RUNNING = `k-running-${randomUUID()}`;
  const keyedHold = (seat: number, key: string) => (s: Sale): RawRequest => ({
    ...hold(seat, { 'idempotency-key': key })(s), headers: { ...json, ...bearer(s.keyed.token), 'idempotency-key': key },
  });
  beforeAll(async () => {
    for (const s of [sales.fast, sales.express]) {
      const fingerprint = requestFingerprint('POST', `/v1/events/${s.eventId}/holds`, { seatIds: [s.seatIds[22]] });
      expect((await s.api.rt.ctx.idempotency.begin(`customer:${s.keyed.sub}`, RUNNING, fingerprint)).kind).toBe('started');
    }
  });
  test.each([
    ['an Idempotency-Key', keyedHold(20, KEY), 201, null],
    ['the same key and body again', keyedHold(20, KEY), 201, 'true'],
    ['the same key with another body', keyedHold(21, KEY), 422, null],
    ['a key that is not valid', keyedHold(21, 'k'.repeat(256)), 400, null],
    ['a key whose first request still runs', keyedHold(22, RUNNING), 409, null],
  ] as const)('%s: the same answer, served by the lean path', async (_what, build, status, replayed) => {
    const r = await both(build, sales);
    expect([r.way, r.status, r.headers['idempotent-replayed'] ?? null]).toEqual(['served', status, replayed]);
  });

  test.each([
    ['text/plain', hold(10, { 'content-type': 'text/plain' }), 400],
    ['a gzip body', (s: Sale) => ({ ...hold(15, { 'content-encoding': 'gzip' })(s), body: gzipSync(JSON.stringify({ seatIds: [s.seatIds[15]] })) }), 201],
    ['a body its gzip header does not describe', (s: Sale) => ({ ...hold(19, { 'content-encoding': 'gzip' })(s), body: JSON.stringify({ seatIds: [s.seatIds[19]] }) }), 400],
    ['a chunked body', (s: Sale) => ({ ...hold(16)(s), chunked: true }), 201],
    ['an empty body', (s: Sale) => ({ ...hold(17, { 'content-length': 0 })(s), body: '' }), 400],
    ['a body over 100 KiB', (s: Sale) => ({ ...hold(18)(s), body: JSON.stringify({ seatIds: [s.seatIds[18]], pad: 'x'.repeat(110_000) }) }), 413],
  ] as const)('%s: passed on to the Express steps, the same answer', async (_what, build, status) => {
    const r = await both(build, sales);
    expect([r.way, r.status]).toEqual(['passed', status]);
  });

  // Another form of the path is not the lean path's at all: Express matches it as it always has.
  test.each([
    ['a trailing slash', (s: Sale) => ({ ...hold(12)(s), path: `/v1/events/${s.eventId}/holds/` }), 201],
    ['capital letters in the path', (s: Sale) => ({ ...hold(13)(s), path: `/V1/Events/${s.eventId}/HOLDS` }), 201],
    ['a percent-encoded id', (s: Sale) => ({ ...hold(14)(s), path: `/v1/events/${s.eventId.replace('-', '%2D')}/holds` }), 201],
  ] as const)('%s: left to Express\'s router, the same answer', async (_what, build, status) => {
    const r = await both(build, sales);
    expect([r.way, r.status]).toEqual(['not a fast endpoint', status]);
  });

  test('when the lean path answers, then the duration histogram counts it under the route Express names', async () => {
    const metrics = await fetch(`${fast.api.url}/metrics`).then((r) => r.text());
    const line = /^holdfast_http_request_duration_seconds_count\{method="POST",route="\/v1\/events\/:eventId\/holds",status="201"\} (\d+)/m.exec(metrics);
    expect(Number(line?.[1])).toBeGreaterThanOrEqual(8);
  });
});

describe('when the same confirms reach the lean path and the Express steps', () => {
  let sales: { fast: Sale; express: Sale };
  const holdIds = new Map<Sale, string[]>();
  beforeAll(async () => {
    sales = { fast: await saleOn(fast), express: await saleOn(express) };
    for (const s of [sales.fast, sales.express]) {
      const ids: string[] = [];
      for (const seat of [0, 1, 2, 3]) {
        const r = await s.api.call('POST', `/v1/events/${s.eventId}/holds`, { token: s.customer(), body: { seatIds: [s.seatIds[seat]] } });
        ids.push(r.body.hold.id as string);
      }
      holdIds.set(s, ids);
    }
  });
  afterAll(async () => {
    await expectInvariants(fast.api.rt.db, sales.fast.eventId);
    await expectInvariants(express.api.rt.db, sales.express.eventId);
  });

  const confirm = (hold: number, token: 'service' | 'customer' | 'none' = 'service', extra: Partial<RawRequest> = {}) => (s: Sale): RawRequest => ({
    method: 'POST',
    path: `/v1/holds/${holdIds.get(s)![hold]}/confirm`,
    headers: { ...json, ...(token === 'none' ? {} : bearer(token === 'service' ? s.service : s.customer())), ...extra.headers },
    body: JSON.stringify({ paymentReference: `pay-${hold}` }),
    ...(extra.path ? { path: extra.path } : {}),
  });

  test.each([
    ['a confirm', confirm(0), 201],
    ['the same confirm again', confirm(0), 200],
    ['a customer token', confirm(1, 'customer'), 403],
    ['no token', confirm(1, 'none'), 401],
    ['an unknown hold', (s: Sale) => ({ ...confirm(1)(s), path: `/v1/holds/hld_${'0'.repeat(32)}/confirm` }), 404],
    ['a malformed hold id', (s: Sale) => ({ ...confirm(1)(s), path: '/v1/holds/hld_zz/confirm' }), 404],
    ['a body without paymentReference', (s: Sale) => ({ ...confirm(1)(s), body: '{}' }), 400],
    ['an Idempotency-Key', confirm(3, 'service', { headers: { 'idempotency-key': `k-${randomUUID()}` } }), 201],
  ] as const)('%s: the same answer, served by the lean path', async (_what, build, status) => {
    const r = await both(build, sales);
    expect([r.way, r.status]).toEqual(['served', status]);
    if (status === 201) checkResponse('POST', '/v1/holds/x/confirm', { status: r.status, body: r.body, contentType: r.headers['content-type'] ?? null });
  });

  test.each([
    ['a query string (the endpoint parses an empty one)', (s: Sale) => ({ ...confirm(2)(s), path: `/v1/holds/${holdIds.get(s)![2]}/confirm?x=1` }), 400],
  ] as const)('%s: passed on to the Express steps, the same answer', async (_what, build, status) => {
    const r = await both(build, sales);
    expect([r.way, r.status]).toEqual(['passed', status]);
  });
});

test('when a buyer hangs up halfway through a hold body on the lean path, then nothing is held and the seat can be held next', async () => {
  const sale = await saleOn(fast);
  const before = fastStats().served;
  await new Promise<void>((resolve) => {
    const req = http.request(`${sale.api.url}/v1/events/${sale.eventId}/holds`, {
      method: 'POST', agent: false, headers: { ...json, ...bearer(sale.customer()), 'content-length': 200 },
    });
    req.on('error', () => resolve());
    req.write(`{"seatIds": ["${sale.seatIds[0]}"`);
    setTimeout(() => {
      req.destroy();
      resolve();
    }, 100);
  });
  await waitFor('the lean path to take the request', () => fastStats().served > before, { timeoutMs: 5000 });
  const next = await sale.api.call('POST', `/v1/events/${sale.eventId}/holds`, { token: sale.customer(), body: { seatIds: [sale.seatIds[0]] } });
  expect(next.status).toBe(201);
  // Only the second request's hold is ever written.
  await waitFor('the hold to be written', async () => {
    const rows = await sale.api.rt.db.$queryRaw<{ id: string }[]>`SELECT id FROM holds WHERE event_id = ${sale.eventId}::uuid`;
    return rows.length === 1 && rows[0]!.id === next.body.hold.id;
  }, { timeoutMs: 10_000 });
  await expectInvariants(sale.api.rt.db, sale.eventId);
});
