import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isolatedDatabaseUrl } from '@holdfast/test-kit';

const root = path.resolve(__dirname, '../../..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

function run(env: Record<string, string>) {
  const child = spawn(tsx, [path.join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', WORKER_METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

test('when Redis cannot be reached, then start-up stops with one line naming Redis and how to start it', async () => {
  const p = run({ REDIS_URL: 'redis://127.0.0.1:6397' });
  expect(await p.exited).toBe(1);
  const lines = p.err().trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^holdfast: Cannot reach Redis at 127\.0\.0\.1:6397 .*docker compose up -d redis/);
}, 60000);

test('when PostgreSQL cannot be reached, then start-up stops with one line naming PostgreSQL', async () => {
  const p = run({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:5499/holdfast' });
  expect(await p.exited).toBe(1);
  expect(p.err().trim()).toMatch(/^holdfast: Cannot reach PostgreSQL at 127\.0\.0\.1:5499 [^\n]*$/);
}, 60000);

test('when --only names neither api nor worker, then start-up stops with one line saying so', async () => {
  const child = spawn(tsx, [path.join(root, 'apps/server/src/main.ts'), '--only', 'both'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  expect(await new Promise((r) => child.on('exit', r))).toBe(1);
  expect(stderr.trim()).toBe('holdfast: --only takes "api" or "worker", not "both"');
}, 60000);

test('when demo mode is off and JWT_SECRET is missing, then start-up stops naming the variable', async () => {
  const p = run({ NODE_ENV: 'production', STRIPE_WEBHOOK_SECRET: 'whsec_test_123456' });
  expect(await p.exited).toBe(1);
  expect(p.err().trim()).toBe('holdfast: Missing configuration: JWT_SECRET must be set when demo mode is off');
}, 60000);

test('when started on a new database, then it creates it, migrates, serves with the worker beside it, and exits 0 on SIGTERM', async () => {
  const database = `holdfast_start_${process.pid}_${Date.now()}`;
  const url = `postgresql://postgres@127.0.0.1:5432/${database}`;
  const p = run({ DATABASE_URL: url, PORT: '0', DEMO_MODE: 'true' });
  try {
    const deadline = Date.now() + 60000;
    while (!/checkout page at http:\/\/localhost:(\d+)\//.test(p.out()) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const port = /checkout page at http:\/\/localhost:(\d+)\//.exec(p.out())?.[1];
    expect(port).toBeDefined();
    const events = (await (await fetch(`http://127.0.0.1:${port}/v1/events`)).json()) as { events: { name: string }[] };
    expect(events.events.map((e: { name: string }) => e.name)).toEqual(['holdfast demo night']);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    while (!p.out().includes('"msg":"worker started"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(p.out()).toContain('"name":"holdfast-worker"');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.out()).toContain('"msg":"worker stopped"');
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
  const command = `${tsx} ${path.join(root, 'apps/server/src/main.ts')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', WORKER_METRICS_PORT: '0', PORT: '0', DATABASE_URL: isolatedDatabaseUrl('terminal'), DEMO_MODE: 'true', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Terminal output: colours and carriage returns stripped.
  const text = () => out.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '');
  try {
    const deadline = Date.now() + 60000;
    while (!(/holdfast API listening/.test(text()) && /worker started/.test(text())) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    process.kill(-child.pid!, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20000))]);
  } finally {
    try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
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
  const p = run({ LOG_FORMAT: 'xml' });
  expect(await p.exited).toBe(1);
  expect(p.err().trim()).toMatch(/^holdfast: Invalid configuration: LOG_FORMAT /);
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
  const childEnv: Record<string, string | undefined> = {
    ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', PORT: '0', DATABASE_URL: isolatedDatabaseUrl('terminal'), ...env,
  };
  for (const name of unset) delete childEnv[name];
  const child = spawn(tsx, [path.join(root, 'apps/server/src/main.ts'), '--only', 'api'], {
    cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const kill = (signal: NodeJS.Signals) => {
    try { process.kill(-child.pid!, signal); } catch { /* already gone */ }
  };
  const stop = async () => {
    kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15000)))]);
    clearTimeout(timer);
    kill('SIGKILL');
  };
  const deadline = Date.now() + 60000;
  let port: number | undefined;
  while (port === undefined && Date.now() < deadline) {
    const line = stdout.split('\n').find((l) => l.includes('holdfast API listening'));
    if (line) port = (JSON.parse(line) as { port: number }).port;
    else await new Promise((r) => setTimeout(r, 200));
  }
  if (port === undefined) {
    await stop();
    throw new Error(`the API did not start: ${stdout}`);
  }
  return { port, out: () => stdout, stop };
}

test('when demo mode is on by default (no NODE_ENV=production, DEMO_MODE unset), then the API listens on loopback only and says so at start', async () => {
  const api = await listeningApi({ NODE_ENV: 'development' }, ['DEMO_MODE']);
  try {
    expect(await connects('127.0.0.1', api.port)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${api.port}/healthz`)).status).toBe(200);
    expect(await connects(otherAddress(), api.port)).toBe(false);
    expect(api.out()).toContain('holdfast: demo mode listens on 127.0.0.1 only (it hands out admin tokens); set DEMO_MODE=true to listen on every interface');
    const deadline = Date.now() + 30000;
    while (!api.out().includes('checkout page at') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
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
    const deadline = Date.now() + 30000;
    while (!api.out().includes('listens on 127.0.0.1 only') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(api.out()).toContain('holdfast: demo mode listens on 127.0.0.1 only');
  } finally {
    await api.stop();
  }
}, 120000);
