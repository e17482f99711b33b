import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { errorCodes } from '@holdfast/contracts';
import { errors, type AppError } from '@holdfast/domain';
import { startApi, type TestApi } from '@holdfast/test-kit';
import { fullOpenApiDocument } from '../src/openapi-document';
import { checkResponse, ROUTE_TABLE } from '../src/route-table';
import { routesOf } from './routes-of';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
/** The project's own API reference, written for integrators. */
const REFERENCE = path.join(ROOT, 'docs/http-api.md');

let api: TestApi;
beforeAll(async () => { api = await startApi(); });
afterAll(async () => { await api.close(); });

const docRoutes = (doc: { paths: Record<string, Record<string, unknown>> }) =>
  Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)).sort();

/** Runs @seriousme/openapi-schema-validator (ESM-only, so in its own node process) on a document. */
async function validate(doc: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'openapi-'));
  const file = path.join(dir, 'doc.json');
  writeFileSync(file, JSON.stringify(doc));
  const cli = path.join(ROOT, 'node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
  try {
    const { stdout } = await run(process.execPath, [cli, file]);
    return JSON.parse(stdout);
  } catch (err) {
    return JSON.parse((err as { stdout: string }).stdout);
  } finally {
    // The test's own temporary folder goes with it: a run leaves nothing in the system's tmp.
    rmSync(dir, { recursive: true, force: true });
  }
}

test('when /openapi.json is fetched, then it validates as OpenAPI 3.1 (and the validator does refuse a broken one)', async () => {
  const res = await api.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  expect(res.body.openapi).toBe('3.1.0');
  const result = await validate(res.body);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  const broken = { ...res.body, paths: { ...res.body.paths, '/x': { get: { responses: { 200: { content: 7 } } } } } };
  expect((await validate(broken)).valid).toBe(false);
});

test('when the app\'s routers are read, then they serve exactly the route table\'s entries, and /openapi.json documents exactly those', async () => {
  const served = routesOf(api.rt.app);
  const table = ROUTE_TABLE.map((e) => `${e.method.toUpperCase()} ${e.path}`).sort();
  expect(new Set(table).size).toBe(table.length);
  expect(served).toEqual(table);
  expect(docRoutes((await api.call('GET', '/openapi.json')).body)).toEqual(table);
  expect(served.length).toBeGreaterThanOrEqual(15);
});

test('when every entry of the route table is called without a token and with each role it does not allow, then it answers 401 and 403 before reading the body, and a public one is reached', async () => {
  const ROLES = ['customer', 'service', 'admin'] as const;
  const tried: string[] = [];
  for (const e of ROUTE_TABLE) {
    const path = e.path.replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000');
    const method = e.method.toUpperCase();
    if (!e.roles) {
      const res = await api.call(method, path);
      expect({ endpoint: `${method} ${e.path}`, message: res.body?.error?.message }).not.toEqual({ endpoint: `${method} ${e.path}`, message: 'No such endpoint.' });
      continue;
    }
    // A body that is not even JSON (fetch sends none with a GET): refused 401/403 all the same, so it was never read.
    const raw = method === 'GET' ? undefined : '{not json';
    const anonymous = await api.call(method, path, { raw });
    expect({ endpoint: `${method} ${e.path}`, status: anonymous.status, code: anonymous.body.error.code }).toEqual({ endpoint: `${method} ${e.path}`, status: 401, code: 'UNAUTHORIZED' });
    for (const role of ROLES.filter((r) => !e.roles!.includes(r))) {
      const res = await api.call(method, path, { token: api.token(role), raw });
      expect({ endpoint: `${method} ${e.path}`, role, status: res.status, code: res.body.error.code }).toEqual({ endpoint: `${method} ${e.path}`, role, status: 403, code: 'FORBIDDEN' });
    }
    tried.push(`${method} ${e.path}`);
  }
  expect(tried.length).toBeGreaterThanOrEqual(20);
});

test('when an answer differs from what the route table documents, then the check every API test runs throws, saying how', () => {
  const hold = {
    id: 'h_1', eventId: 'e', customerId: 'c', status: 'active', createdAt: '2027-01-01T00:00:00.000Z', expiresAt: '2027-01-01T00:10:00.000Z',
    items: [{ ticketTypeId: 't', name: 'GA', priceCents: 100, quantity: 1 }], totalCents: 100, currency: 'USD', orderId: null, releasedBy: null, extensions: 0,
  };
  const json = 'application/json; charset=utf-8';
  // As documented: no throw.
  checkResponse('GET', '/v1/holds/h_1?x=1', { status: 200, body: { hold }, contentType: json });
  checkResponse('GET', '/v1/holds/h_1', { status: 404, body: { error: { code: 'HOLD_NOT_FOUND', message: 'No such hold.' } }, contentType: json });
  checkResponse('GET', '/docs', { status: 200, body: '<!doctype html>', contentType: 'text/html; charset=utf-8' });
  checkResponse('GET', '/no/such/path', { status: 404, body: { error: { code: 'NOT_FOUND', message: 'No such endpoint.' } }, contentType: json });
  // A field of the wrong type, a missing field, a field the contract does not name.
  expect(() => checkResponse('GET', '/v1/holds/h_1', { status: 200, body: { hold: { ...hold, totalCents: '100' } }, contentType: json }))
    .toThrow(/GET \/v1\/holds\/h_1 → 200: the body does not match the documented schema \(hold\.totalCents: /);
  const { extensions: _gone, ...lacking } = hold;
  expect(() => checkResponse('GET', '/v1/holds/h_1', { status: 200, body: { hold: lacking }, contentType: json })).toThrow(/hold\.extensions/);
  expect(() => checkResponse('GET', '/v1/holds/h_1', { status: 200, body: { hold: { ...hold, secret: 1 } }, contentType: json }))
    .toThrow(/a field the documented schema does not name: body\.hold\.secret/);
  expect(() => checkResponse('GET', '/v1/holds/h_1', { status: 200, body: { hold: { ...hold, items: [{ seatId: 's', label: 'A-1-1' }] } }, contentType: json }))
    .toThrow(/does not match/);
  // An error answer without the error body; a status the endpoint does not document; another content type.
  expect(() => checkResponse('POST', '/v1/events/e/holds', { status: 409, body: { code: 'SOLD_OUT' }, contentType: json })).toThrow(/409: the body does not match/);
  expect(() => checkResponse('GET', '/v1/holds/h_1', { status: 418, body: { error: { code: 'TEAPOT', message: '' } }, contentType: json }))
    .toThrow(/status 418 is not documented for GET \/v1\/holds\/\{holdId\}/);
  expect(() => checkResponse('GET', '/v1/holds/h_1', { status: 200, body: '<html>', contentType: 'text/html' })).toThrow(/documented as JSON, answered text\/html/);
  expect(() => checkResponse('GET', '/metrics', { status: 200, body: '{}', contentType: json })).toThrow(/documented as text\/plain, answered application\/json/);
  expect(() => checkResponse('DELETE', '/no/such/path', { status: 404, body: 'Not Found', contentType: 'text/html' })).toThrow(/documented as JSON/);
});

test('when demo mode is off, then neither the router nor the document has the demo-token endpoint', async () => {
  const prod = await startApi({ DEMO_MODE: 'false', JWT_SECRET: 'x'.repeat(32), STRIPE_WEBHOOK_SECRET: 'whsec_test_secret' });
  try {
    const doc = (await prod.call('GET', '/openapi.json')).body;
    expect(docRoutes(doc)).toEqual(routesOf(prod.rt.app));
    expect(doc.paths['/v1/auth/demo-token']).toBeUndefined();
  } finally {
    await prod.close();
  }
});

/** The endpoints the reference documents: its headings of the form `METHOD /path`. */
function referenceRoutes(text: string): string[] {
  return [...text.matchAll(/^#{2,4} `(GET|POST|PUT|PATCH|DELETE) (\/[^`\s]*)`\s*$/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
}

test('when the API reference is read, then it documents every route the router serves and /openapi.json lists, and no other', async () => {
  const reference = referenceRoutes(readFileSync(REFERENCE, 'utf8'));
  expect(new Set(reference).size).toBe(reference.length);
  const served = routesOf(api.rt.app);
  const documented = docRoutes((await api.call('GET', '/openapi.json')).body);
  expect(served.filter((r) => !reference.includes(r))).toEqual([]);
  expect(reference.filter((r) => !served.includes(r))).toEqual([]);
  expect(documented.filter((r) => !reference.includes(r))).toEqual([]);
  expect(reference.filter((r) => !documented.includes(r))).toEqual([]);
});

test('when the reference is checked by its own reader, then a missing or extra heading is seen', () => {
  const text = readFileSync(REFERENCE, 'utf8');
  const all = referenceRoutes(text);
  expect(all.length).toBeGreaterThanOrEqual(25);
  expect(referenceRoutes(text.replace('#### `GET /healthz`', 'GET /healthz'))).toEqual(all.filter((r) => r !== 'GET /healthz'));
  expect(referenceRoutes(`${text}\n#### \`PATCH /v1/nothing\`\n`)).toContain('PATCH /v1/nothing');
});

test('when the reference names error codes, then every code the API can answer with is among them', () => {
  const text = readFileSync(REFERENCE, 'utf8');
  const codes = new Set([...text.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => `${m[1]} ${m[2]}`));
  for (const make of Object.values(errors)) {
    const e = (make as (...a: unknown[]) => AppError)([], 1, 1);
    expect(codes).toContain(`${e.code} ${e.status}`);
  }
  for (const extra of ['NOT_FOUND 404', 'INTERNAL 500', 'PAYLOAD_TOO_LARGE 413']) expect(codes).toContain(extra);
});

test('when the domain\'s errors and the middleware\'s are listed, then the document\'s ErrorCode enum names exactly their codes', async () => {
  const made = new Set(Object.values(errors).map((make) => (make as (...a: unknown[]) => AppError)([], 1, 1).code));
  for (const extra of ['NOT_FOUND', 'INTERNAL', 'PAYLOAD_TOO_LARGE']) made.add(extra);
  expect([...errorCodes].sort()).toEqual([...made].sort());
  const doc = (await api.call('GET', '/openapi.json')).body;
  expect(doc.components.schemas.ErrorCode.enum).toEqual([...errorCodes]);
  expect(doc.components.schemas.Error.properties.error.properties.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
  // An answer with a code outside the list is not what the document says.
  expect(() => checkResponse('GET', '/v1/holds/h_1', { status: 404, body: { error: { code: 'TEAPOT', message: '' } }, contentType: 'application/json' }))
    .toThrow(/does not match/);
});

test('when the document is rendered without a server, then it is the one a demo-mode API serves', async () => {
  expect(fullOpenApiDocument()).toEqual((await api.call('GET', '/openapi.json')).body);
});

test('when /docs is opened, then it is a self-contained HTML page naming every documented path', async () => {
  const res = await api.call('GET', '/docs');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
  const html: string = res.body;
  const doc = (await api.call('GET', '/openapi.json')).body;
  for (const p of Object.keys(doc.paths)) expect(html).toContain(p.replace(/&/g, '&amp;'));
  for (const name of Object.keys(doc.components.schemas)) expect(html).toContain(`id="schema-${name}"`);
  expect(html).not.toMatch(/<script|<link|<img|@import|src=|https?:\/\//i);
});
