// Traces of one purchase (hold, confirm) and of an expiry job, from the real
// `npm start` (API and worker processes) into an OTLP/HTTP receiver the test
// runs; and, with no endpoint set, no OpenTelemetry SDK loaded at all.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createTestEvent, dropTestEvent, isolatedDatabaseUrl, seatGrid, ServerProcess, startApi, startOtlpReceiver, useOwnRedis, waitFor,
  type ReceivedSpan, type TestApi,
} from '@holdfast/test-kit';

const SECRET = 'tracing-test-jwt-secret-0123456789';
const PRELOAD = path.join(__dirname, 'fixtures', 'report-otel-modules.cjs');
const SERVER_KIND = 2;
const REPO_ROOT = path.join(__dirname, '../../..');

// The servers (and their workers) and this process's API share a Redis of the suite's own.
const ownRedis = useOwnRedis();
let dir: string;
let api: TestApi;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'holdfast-tracing-'));
  // In this process, only for the test's own events, tokens and clean-up.
  api = await startApi({ DATABASE_URL: isolatedDatabaseUrl('tracing'), JWT_SECRET: SECRET });
});
afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `npm start` with the module report preloaded into each of its processes; resolves once the API listens and the worker runs. */
async function startServer(report: string, env: Record<string, string>): Promise<{ server: ServerProcess; url: string }> {
  const server = ServerProcess.start({
    PORT: '0', DATABASE_URL: isolatedDatabaseUrl('tracing'), JWT_SECRET: SECRET, LOG_FORMAT: 'json', RECONCILE_EVERY_SECONDS: '3600',
    NODE_OPTIONS: `--require ${PRELOAD}`, OTEL_MODULES_REPORT: report, ...env,
  }, { detached: true });
  const port = await waitFor('the API to listen', () => /"port":(\d+)[^\n]*"msg":"holdfast API listening"/.exec(server.stdout)?.[1] ?? (server.child.exitCode !== null && 'exited'), { timeoutMs: 60_000, intervalMs: 100 });
  if (port === 'exited') throw new Error(`npm start exited: ${server.output}`);
  await waitFor('the worker to start', () => server.stdout.includes('"msg":"worker started"'), { timeoutMs: 60_000, intervalMs: 100 });
  return { server, url: `http://127.0.0.1:${port}` };
}

/** SIGTERM to the server's process, as an orchestrator's stop; resolves with the exit code (null if it had to be killed). */
async function stopGracefully(server: ServerProcess): Promise<number | null> {
  server.signalServer('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([server.exited, new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), 30_000)))]);
  clearTimeout(timer);
  return code === 'hung' ? null : code;
}

/** The @opentelemetry packages each process of `npm start` had loaded when it exited, by its entry file. */
function loadedPackages(report: string): Map<string, string[]> {
  const byEntry = new Map<string, string[]>();
  for (const line of readFileSync(report, 'utf8').trim().split('\n')) {
    const r = JSON.parse(line) as { argv: string[]; packages: string[] };
    const entry = r.argv.find((a) => /apps\/(server|worker)\/src\/main\.ts$/.test(a) && !a.includes('cli'));
    if (entry && !r.argv[0]!.includes('tsx')) byEntry.set(path.relative(REPO_ROOT, entry), r.packages);
  }
  return byEntry;
}

const traceId = () => randomBytes(16).toString('hex');
const traceparent = (trace: string) => `00-${trace}-${randomBytes(8).toString('hex')}-01`;

async function call(url: string, method: string, route: string, token: string, body: unknown, trace?: string) {
  const res = await fetch(url + route, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(trace ? { traceparent: traceparent(trace) } : {}) },
    body: JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads fields of the answer
  return { status: res.status, body: (await res.json()) as any };
}

/** The span's ancestors in `spans`, nearest first. */
function ancestors(spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (let p = spans.find((s) => s.spanId === span.parentSpanId); p; p = spans.find((s) => s.spanId === p!.parentSpanId)) out.push(p);
  return out;
}

const pathOf = (s: ReceivedSpan) => String(s.attributes['url.path'] ?? s.attributes['http.target'] ?? '').split('?')[0];

test('when OTEL_EXPORTER_OTLP_ENDPOINT is set, then a purchase and an expiry job arrive as traces: HTTP, Express, ioredis, pg and our own spans, with the job in the trace of the request that scheduled it', async () => {
  const receiver = await startOtlpReceiver({ keep: true });
  const report = path.join(dir, 'traced.jsonl');
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 3, seats: seatGrid(['A'], 1, 2) });
  let server: ServerProcess | undefined;
  try {
    const started = await startServer(report, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    server = started.server;
    expect(server.stdout).toContain('"msg":"exporting traces"');
    const [tHoldA, tConfirm, tHoldB, tEvent] = [traceId(), traceId(), traceId(), traceId()];
    // An Express request (not a fast-path one): the event, read through the router.
    expect((await fetch(`${started.url}/v1/events/${event.id}`, { headers: { traceparent: traceparent(tEvent) } })).status).toBe(200);
    const buyer = api.token('customer');
    const a = await call(started.url, 'POST', `/v1/events/${event.id}/holds`, buyer, { seatIds: [seats[0]!.id] }, tHoldA);
    expect(a.status).toBe(201);
    const confirmed = await call(started.url, 'POST', `/v1/holds/${a.body.hold.id}/confirm`, api.token('service'), { paymentReference: 'pi_tracing_1' }, tConfirm);
    expect(confirmed.status).toBe(201);
    const b = await call(started.url, 'POST', `/v1/events/${event.id}/holds`, api.token('customer'), { seatIds: [seats[1]!.id] }, tHoldB);
    expect(b.status).toBe(201);
    const [holdA, holdB] = [a.body.hold.id as string, b.body.hold.id as string];

    const spans = receiver.spans;
    // Hold B's expiry job: its own batch (`exp_<B>_1`), or A's when both were persisted together (`exp_<A>_2`).
    const jobSpan = await waitFor('the expiry job of hold B traced', () => spans.find((s) => s.name === 'job expire-holds'
      && [`exp_${holdB}_1`, `exp_${holdA}_2`].includes(String(s.attributes['messaging.message.id']))), { timeoutMs: 45_000, intervalMs: 200 });
    const scheduledIn = String(jobSpan.attributes['messaging.message.id']).startsWith(`exp_${holdB}`) ? tHoldB : tHoldA;
    await waitFor('the API\'s spans of that trace', () => spans.some((s) => s.traceId === scheduledIn && s.name === 'outbox.drain'), { timeoutMs: 20_000, intervalMs: 200 });
    const expired = await waitFor('hold B expired', async () => {
      const r = await api.call('GET', `/v1/holds/${holdB}`, { token: api.token('admin') });
      return r.body.hold?.status === 'expired' && r.body.hold;
    }, { timeoutMs: 20_000, intervalMs: 200 });
    expect(expired.status).toBe('expired');

    // The hold request: a server span, hold.script under it, the script's EVALSHA (ioredis) under that.
    const holdServer = spans.find((s) => s.traceId === tHoldA && s.kind === SERVER_KIND);
    expect(holdServer && { service: holdServer.service, path: pathOf(holdServer) }).toEqual({ service: 'holdfast-api', path: `/v1/events/${event.id}/holds` });
    // Served by the fast path, named by its route as Express's requests are.
    expect({ name: holdServer!.name, route: holdServer!.attributes['http.route'] }).toEqual({ name: 'POST /v1/events/:eventId/holds', route: '/v1/events/:eventId/holds' });
    const script = spans.find((s) => s.traceId === tHoldA && s.name === 'hold.script')!;
    expect(script).toBeDefined();
    expect(ancestors(spans, script).map((s) => s.spanId)).toContain(holdServer!.spanId);
    expect(script.attributes).toMatchObject({ 'holdfast.script': 'holdSeats', 'holdfast.hold.outcome': 'ok' });
    const evalsha = spans.filter((s) => s.scope.includes('ioredis') && s.parentSpanId === script.spanId);
    expect(evalsha.map((s) => s.name)).toContain('evalsha');

    // The confirm: its server span, confirm.batch (size 1) under it, pg statements under that.
    const confirmServer = spans.find((s) => s.traceId === tConfirm && s.kind === SERVER_KIND)!;
    expect(pathOf(confirmServer)).toBe(`/v1/holds/${holdA}/confirm`);
    expect(confirmServer.name).toBe('POST /v1/holds/:holdId/confirm');
    const batch = spans.find((s) => s.traceId === tConfirm && s.name === 'confirm.batch')!;
    expect(batch.attributes['holdfast.confirm.batch_size']).toBe(1);
    expect(ancestors(spans, batch).map((s) => s.spanId)).toContain(confirmServer.spanId);
    const statements = spans.filter((s) => s.scope.includes('instrumentation-pg') && ancestors(spans, s).some((p) => p.spanId === batch.spanId));
    expect(statements.length).toBeGreaterThan(0);

    // Express's own spans for a request the router served.
    expect(spans.some((s) => s.traceId === tEvent && s.scope.includes('instrumentation-express'))).toBe(true);

    // The expiry job: in the worker, a child of the API's outbox.drain, which the scheduling hold request started.
    expect(jobSpan.service).toBe('holdfast-worker');
    expect(jobSpan.traceId).toBe(scheduledIn);
    const drain = spans.find((s) => s.spanId === jobSpan.parentSpanId)!;
    expect(drain && { name: drain.name, service: drain.service }).toEqual({ name: 'outbox.drain', service: 'holdfast-api' });
    const scheduler = spans.find((s) => s.traceId === scheduledIn && s.kind === SERVER_KIND)!;
    expect(ancestors(spans, drain).map((s) => s.spanId)).toContain(scheduler.spanId);
    // The job's own work is traced under it (the expiry's PostgreSQL statements).
    expect(spans.some((s) => s.scope.includes('instrumentation-pg') && ancestors(spans, s).some((p) => p.spanId === jobSpan.spanId))).toBe(true);

    expect(await stopGracefully(server)).toBe(0);
    const loaded = loadedPackages(report);
    expect([...loaded.keys()].sort()).toEqual(['apps/server/src/main.ts', 'apps/worker/src/main.ts']);
    for (const packages of loaded.values()) expect(packages).toContain('@opentelemetry/sdk-trace-node');
  } finally {
    await server?.stop(5_000);
    await receiver.close();
    await dropTestEvent(api, event.id);
  }
}, 150_000);

test('when OTEL_EXPORTER_OTLP_ENDPOINT is not set, then no process of npm start loads the OpenTelemetry SDK, an exporter or an instrumentation (only the API package)', async () => {
  const report = path.join(dir, 'untraced.jsonl');
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 600, seats: seatGrid(['A'], 1, 1) });
  let server: ServerProcess | undefined;
  try {
    const started = await startServer(report, {});
    server = started.server;
    expect(server.stdout).not.toContain('exporting traces');
    const held = await call(started.url, 'POST', `/v1/events/${event.id}/holds`, api.token('customer'), { seatIds: [seats[0]!.id] }, traceId());
    expect(held.status).toBe(201);
    expect(await stopGracefully(server)).toBe(0);
    const loaded = loadedPackages(report);
    expect([...loaded.keys()].sort()).toEqual(['apps/server/src/main.ts', 'apps/worker/src/main.ts']);
    for (const packages of loaded.values()) expect(packages.filter((p) => p !== '@opentelemetry/api')).toEqual([]);
  } finally {
    await server?.stop(5_000);
    await dropTestEvent(api, event.id);
  }
}, 120_000);

test('when the compiled build (node apps/server/dist/main.js) runs with the endpoint set, then its instrumentations work there too: HTTP, Express, ioredis and pg spans, hold.script, and the worker\'s job span in the hold\'s trace', async () => {
  execFileSync('npm', ['run', 'build:server', '--silent'], { cwd: REPO_ROOT, stdio: 'pipe' });
  const receiver = await startOtlpReceiver({ keep: true });
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 2, seats: seatGrid(['A'], 1, 1) });
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/server/dist/main.js')], {
    cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    env: {
      ...process.env, PORT: '0', DATABASE_URL: isolatedDatabaseUrl('tracing'), JWT_SECRET: SECRET, LOG_FORMAT: 'json', LOG_LEVEL: 'info',
      WORKER_METRICS_PORT: '0', RECONCILE_EVERY_SECONDS: '3600', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    const port = await waitFor('the compiled API to listen', () => /"port":(\d+)[^\n]*"msg":"holdfast API listening"/.exec(out)?.[1] ?? (child.exitCode !== null && 'exited'), { timeoutMs: 60_000, intervalMs: 100 });
    if (port === 'exited') throw new Error(`the compiled server exited: ${out}`);
    const url = `http://127.0.0.1:${port}`;
    const [tEvent, tHold] = [traceId(), traceId()];
    expect((await fetch(`${url}/v1/events/${event.id}`, { headers: { traceparent: traceparent(tEvent) } })).status).toBe(200);
    const held = await call(url, 'POST', `/v1/events/${event.id}/holds`, api.token('customer'), { seatIds: [seats[0]!.id] }, tHold);
    expect(held.status).toBe(201);
    const spans = receiver.spans;
    const job = await waitFor('the expiry job traced in the hold\'s trace', () => spans.find((s) => s.traceId === tHold && s.name === 'job expire-holds'), { timeoutMs: 45_000, intervalMs: 200 });
    expect(job.service).toBe('holdfast-worker');
    // The API's spans come in batches of their own: the worker's job span may arrive first.
    const script = await waitFor('the hold script\'s span', () => spans.find((s) => s.traceId === tHold && s.name === 'hold.script'), { timeoutMs: 20_000, intervalMs: 200 });
    await waitFor('the API\'s spans of the hold\'s trace and of the event read', () => spans.some((s) => s.traceId === tHold && s.kind === SERVER_KIND)
      && spans.some((s) => s.traceId === tHold && s.scope.includes('instrumentation-pg'))
      && spans.some((s) => s.traceId === tEvent && s.scope.includes('instrumentation-express')), { timeoutMs: 20_000, intervalMs: 200 });
    expect(ancestors(spans, script).some((s) => s.kind === SERVER_KIND && pathOf(s) === `/v1/events/${event.id}/holds`)).toBe(true);
    expect(spans.some((s) => s.scope.includes('ioredis') && s.parentSpanId === script.spanId)).toBe(true);
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* gone */
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 20_000)))]);
    clearTimeout(timer);
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
    await receiver.close();
    await dropTestEvent(api, event.id);
  }
}, 150_000);

test('when the tracing settings are not valid (an endpoint that is not an http URL, the gRPC protocol), then start-up stops with one line naming the variable', async () => {
  const badEndpoint = ServerProcess.start({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' });
  expect(await badEndpoint.exited).toBe(1);
  expect(badEndpoint.stderr.trim()).toBe('holdfast: Invalid configuration: OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (the collector\'s OTLP/HTTP base, e.g. http://collector:4318)');
  const grpc = ServerProcess.start({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
  expect(await grpc.exited).toBe(1);
  expect(grpc.stderr.trim()).toBe('holdfast: Invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (gRPC is not supported)');
}, 60_000);

afterAll(() => ownRedis.stop());
