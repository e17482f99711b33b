import net from 'node:net';
import os from 'node:os';
import { isolatedDatabaseUrl, ServerProcess, useOwnRedis, waitFor } from '@holdfast/test-kit';

// The servers below (and their workers) run on a Redis of this suite's own: the demo event they seed goes with it.
const ownRedis = useOwnRedis();

test('when Redis cannot be reached, then start-up stops with one line naming Redis and how to start it', async () => {
  const p = ServerProcess.start({ REDIS_URL: 'redis://127.0.0.1:6397' });
  expect(await p.exited).toBe(1);
  const lines = p.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^holdfast: Cannot reach Redis at 127\.0\.0\.1:6397 .*docker compose up -d redis/);
}, 60000);

test('when PostgreSQL cannot be reached, then start-up stops with one line naming PostgreSQL', async () => {
  const p = ServerProcess.start({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:5499/holdfast' });
  expect(await p.exited).toBe(1);
  expect(p.stderr.trim()).toMatch(/^holdfast: Cannot reach PostgreSQL at 127\.0\.0\.1:5499 [^\n]*$/);
}, 60000);

test('when --only names neither api nor worker, then start-up stops with one line saying so', async () => {
  const p = ServerProcess.start({}, { args: ['--only', 'both'] });
  expect(await p.exited).toBe(1);
  expect(p.stderr.trim()).toBe('holdfast: --only takes "api" or "worker", not "both"');
}, 60000);

test('when demo mode is off and JWT_SECRET is missing, then start-up stops naming the variable', async () => {
  const p = ServerProcess.start({ NODE_ENV: 'production', STRIPE_WEBHOOK_SECRET: 'whsec_test_123456' });
  expect(await p.exited).toBe(1);
  expect(p.stderr.trim()).toBe('holdfast: Missing configuration: JWT_SECRET must be set when demo mode is off');
}, 60000);

test('when started on a new database, then it creates it, migrates, serves with the worker beside it, and exits 0 on SIGTERM', async () => {
  const database = `holdfast_start_${process.pid}_${Date.now()}`;
  const url = `postgresql://postgres@127.0.0.1:5432/${database}`;
  const p = ServerProcess.start({ DATABASE_URL: url, PORT: '0', DEMO_MODE: 'true' });
  try {
    const port = await waitFor('the checkout page line', () => /checkout page at http:\/\/localhost:(\d+)\//.exec(p.stdout)?.[1], { timeoutMs: 60_000, intervalMs: 200 });
    expect(port).toBeDefined();
    const events = (await (await fetch(`http://127.0.0.1:${port}/v1/events`)).json()) as { events: { name: string }[] };
    expect(events.events.map((e: { name: string }) => e.name)).toEqual(['holdfast demo night']);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    await waitFor('the worker to start', () => p.stdout.includes('"msg":"worker started"'), { timeoutMs: 60_000, intervalMs: 200 });
    expect(p.stdout).toContain('"name":"holdfast-worker"');
    p.signalServer('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.stdout).toContain('"msg":"worker stopped"');
  } finally {
    p.child.kill('SIGKILL');
    const { Client } = await import('pg');
    const c = new Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/postgres' });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await c.end();
  }
}, 90000);

/**
 * Runs `npm start`'s entry point in a pseudo-terminal (util-linux `script`), as a
 * person does in a shell; resolves once both the API and the worker have logged.
 */
async function inTerminal(env: Record<string, string>): Promise<string> {
  const p = ServerProcess.start({ PORT: '0', DATABASE_URL: isolatedDatabaseUrl('terminal'), DEMO_MODE: 'true', ...env }, { terminal: true });
  // Terminal output: colours and carriage returns stripped.
  const text = () => p.stdout.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, ''); // eslint-disable-line no-control-regex -- ESC starts a colour
  try {
    await waitFor('the API and the worker to log', () => /holdfast API listening/.test(text()) && /worker started/.test(text()), { timeoutMs: 60_000, intervalMs: 200 });
  } finally {
    await p.stop(20_000);
  }
  return text();
}

test('when npm start runs in a terminal, then its log lines are human-readable, and LOG_FORMAT=json keeps JSON lines there', async () => {
  const pretty = await inTerminal({});
  const lines = pretty.split('\n').filter(Boolean);
  expect(lines.some((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(holdfast\): holdfast API listening \{"port":\d+,"demoMode":true\}$/.test(l))).toBe(true);
  expect(lines.some((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(holdfast-worker\): worker started/.test(l))).toBe(true);
  expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);

  const json = await inTerminal({ LOG_FORMAT: 'json' });
  const listening = json.split('\n').find((l) => l.includes('holdfast API listening'));
  expect(JSON.parse(listening!)).toMatchObject({ level: 30, name: 'holdfast', msg: 'holdfast API listening' });
}, 120000);

test('when LOG_FORMAT is not one of auto, json and pretty, then start-up stops naming it', async () => {
  const p = ServerProcess.start({ LOG_FORMAT: 'xml' });
  expect(await p.exited).toBe(1);
  expect(p.stderr.trim()).toMatch(/^holdfast: Invalid configuration: LOG_FORMAT /);
}, 60000);

/**
 * An address of this machine other than 127.0.0.1: its first non-loopback IPv4
 * address, or else 127.0.0.2 (Linux routes all of 127/8 to loopback, and a socket
 * bound to 127.0.0.1 alone refuses it just as it refuses the network).
 */
function otherAddress(): string {
  for (const list of Object.values(os.networkInterfaces())) {
    const found = list?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return found.address;
  }
  return '127.0.0.2';
}

/** Whether a TCP connection to host:port is accepted. */
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(3000);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
}

/**
 * Starts the API alone (`npm start -- --only api`) in a process group of its own
 * (tsx runs the server in a child process) and resolves once it listens, with its port.
 */
async function listeningApi(env: Record<string, string>, unset: string[] = []) {
  const p = ServerProcess.start({
    LOG_FORMAT: 'json', PORT: '0', DATABASE_URL: isolatedDatabaseUrl('terminal'), ...env,
    ...Object.fromEntries(unset.map((name) => [name, undefined])),
  }, { args: ['--only', 'api'], detached: true });
  const stop = () => p.stop(15_000);
  try {
    const port = await waitFor('the API to listen', () => {
      const line = p.output.split('\n').find((l) => l.includes('holdfast API listening'));
      return line ? (JSON.parse(line) as { port: number }).port : undefined;
    }, { timeoutMs: 60_000, intervalMs: 200 });
    return { port, out: () => p.output, stop };
  } catch (err) {
    await stop();
    throw new Error(`the API did not start: ${p.output} (${String(err)})`);
  }
}

test('when demo mode is on by default (no NODE_ENV=production, DEMO_MODE unset), then the API listens on loopback only and says so at start', async () => {
  const api = await listeningApi({ NODE_ENV: 'development' }, ['DEMO_MODE']);
  try {
    expect(await connects('127.0.0.1', api.port)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${api.port}/healthz`)).status).toBe(200);
    expect(await connects(otherAddress(), api.port)).toBe(false);
    expect(api.out()).toContain('holdfast: demo mode listens on 127.0.0.1 only (it hands out admin tokens); set DEMO_MODE=true to listen on every interface');
    await waitFor('the checkout page line', () => api.out().includes('checkout page at'), { timeoutMs: 30_000, intervalMs: 200 });
    expect(api.out()).toContain('checkout page at http://127.0.0.1:');
  } finally {
    await api.stop();
  }
}, 90000);

test('when DEMO_MODE=true is set explicitly, then the API listens on every interface and warns at start that demo tokens are served to anyone', async () => {
  const api = await listeningApi({ NODE_ENV: 'development', DEMO_MODE: 'true' });
  try {
    expect(await connects(otherAddress(), api.port)).toBe(true);
    const warning = api.out().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string })
      .find((l) => l.msg.startsWith('DEMO_MODE=true: listening on every interface'));
    expect(warning).toMatchObject({ level: 40 });
    expect(api.out()).not.toContain('listens on 127.0.0.1 only');
  } finally {
    await api.stop();
  }
}, 90000);

test('when demo mode is on by default with API_PROCESSES=2, then the API processes listen on loopback only too', async () => {
  const api = await listeningApi({ NODE_ENV: 'development', API_PROCESSES: '2' }, ['DEMO_MODE']);
  try {
    expect((await fetch(`http://127.0.0.1:${api.port}/healthz`)).status).toBe(200);
    expect(await connects(otherAddress(), api.port)).toBe(false);
    await waitFor('the loopback-only line', () => api.out().includes('listens on 127.0.0.1 only'), { timeoutMs: 30_000, intervalMs: 200 });
    expect(api.out()).toContain('holdfast: demo mode listens on 127.0.0.1 only');
  } finally {
    await api.stop();
  }
}, 120000);

afterAll(() => ownRedis.stop());
