import { spawn } from 'node:child_process';
import path from 'node:path';
import { isolatedDatabaseUrl } from '../../../test/isolated-database';

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
