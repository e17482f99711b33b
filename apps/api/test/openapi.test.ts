import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startApi, type TestApi } from './harness';
import { routesOf } from './routes-of';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const CONTRACT = path.resolve(ROOT, '../shared/api-contract.md');

/**
 * Contract paths whose routes another issue is still building on this branch:
 * this list may only hold paths the router does not serve; once one is served,
 * the test below fails until it is documented and taken off this list.
 */
const NOT_YET_ROUTED: string[] = [];

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

test('when the contract is read, then each of its paths is in the document or (not yet routed here) in neither', async () => {
  expect(existsSync(CONTRACT)).toBe(true);
  const text = readFileSync(CONTRACT, 'utf8');
  const contract = [...new Set([...text.matchAll(/`(GET|POST|DELETE|PUT|PATCH) (\/[^`\s?]*)/g)].map((m) => `${m[1]} ${m[2]}`))].sort();
  expect(contract.length).toBeGreaterThanOrEqual(20);
  const doc = (await api.call('GET', '/openapi.json')).body;
  const documented = docRoutes(doc);
  const served = routesOf(api.rt.app);
  const missing = contract.filter((r) => !documented.includes(r));
  expect(missing.sort()).toEqual([...NOT_YET_ROUTED].sort());
  for (const r of NOT_YET_ROUTED) expect(served).not.toContain(r);
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
