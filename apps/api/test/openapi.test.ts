import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { errors, type AppError } from '@holdfast/domain';
import { startApi, type TestApi } from '@holdfast/test-kit';
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
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'openapi-')), 'doc.json');
  writeFileSync(file, JSON.stringify(doc));
  const cli = path.join(ROOT, 'node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
  try {
    const { stdout } = await run(process.execPath, [cli, file]);
    return JSON.parse(stdout);
  } catch (err) {
    return JSON.parse((err as { stdout: string }).stdout);
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

test('when the router and the document are compared, then every route is documented and every documented route is served', async () => {
  const served = routesOf(api.rt.app);
  const doc = (await api.call('GET', '/openapi.json')).body;
  const documented = docRoutes(doc);
  expect(served.filter((r) => !documented.includes(r))).toEqual([]);
  expect(documented.filter((r) => !served.includes(r))).toEqual([]);
  expect(served.length).toBeGreaterThanOrEqual(15);
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
