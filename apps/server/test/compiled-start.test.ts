// The compiled build as the Docker image runs it: `npm run build:server`, then
// scripts/stage-release.mjs lays out the image's /app (compiled apps, web pages,
// schema, migrations, compiled Prisma config; no TypeScript), which runs here
// with `node` alone, its node_modules linked to this checkout's packages.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, cpSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { useOwnRedis, waitFor } from '@holdfast/test-kit';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const adminUrl = (process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/holdfast_test').replace(/\/[^/?]*(\?|$)/, '/postgres$1');
const database = `holdfast_compiled_${process.pid}_${Date.now()}`;
// The compiled server (and its worker) runs on a Redis of this suite's own: what it writes there goes with it.
const ownRedis = useOwnRedis();
let dir: string;

/** The image's /app: the staged release with a node_modules of links to this checkout's packages, workspaces linked to the staged copies. */
function stageRelease(): string {
  execFileSync('npm', ['run', 'build:server', '--silent'], { cwd: REPO_ROOT, stdio: 'pipe' });
  dir = mkdtempSync(path.join(os.tmpdir(), 'holdfast-release-'));
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'stage-release.mjs'), dir], { cwd: REPO_ROOT, stdio: 'pipe' });
  const app = path.join(dir, 'app');
  cpSync(path.join(dir, 'deps'), app, { recursive: true }); // as the Dockerfile copies both into /app
  const modules = path.join(REPO_ROOT, 'node_modules');
  mkdirSync(path.join(app, 'node_modules', '@holdfast'), { recursive: true });
  for (const entry of readdirSync(modules)) {
    if (entry !== '@holdfast') symlinkSync(path.join(modules, entry), path.join(app, 'node_modules', entry));
  }
  for (const group of ['apps', 'packages']) {
    for (const ws of readdirSync(path.join(app, group))) {
      const { name } = JSON.parse(readFileSync(path.join(app, group, ws, 'package.json'), 'utf8')) as { name: string };
      symlinkSync(path.join(app, group, ws), path.join(app, 'node_modules', name));
    }
  }
  return app;
}

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await c.end();
});

/** The Dockerfile's HEALTHCHECK command (its exec form), as docker runs it in the image. */
function healthcheck(): string[] {
  const line = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8').split('\n').find((l) => l.startsWith('HEALTHCHECK '))!;
  return JSON.parse(line.slice(line.indexOf(' CMD ') + 5)) as string[];
}

function runHealthcheck(cwd: string, port: number): Promise<number | null> {
  const [cmd, ...args] = healthcheck();
  const child = spawn(cmd!, args, { cwd, env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

test('when the staged release runs with node alone, then it migrates a new database, passes the image health check, holds a seat, serves the pages and drains on SIGTERM', async () => {
  const app = stageRelease();
  expect(existsSync(path.join(app, 'apps', 'server', 'src'))).toBe(false);
  expect(existsSync(path.join(app, 'prisma.config.ts'))).toBe(false);

  const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/holdfast_test');
  url.pathname = `/${database}`;
  const server = spawn(process.execPath, ['--max-semi-space-size=64', 'apps/server/dist/main.js'], {
    cwd: app,
    env: { ...process.env, DATABASE_URL: url.toString(), PORT: '0', DEMO_MODE: 'true', LOG_LEVEL: 'info', LOG_FORMAT: 'json', WORKER_METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  server.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  server.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
  try {
    const port = Number(await Promise.race([
      waitFor('the checkout page line', () => /checkout page at http:\/\/localhost:(\d+)\//.exec(out.stdout)?.[1], { timeoutMs: 150_000, intervalMs: 200 }),
      exited.then((code) => Promise.reject(new Error(`the compiled server exited ${code}: ${out.stdout}${out.stderr}`))),
    ]));
    expect(out.stderr).toBe('');
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect(await runHealthcheck(app, port)).toBe(0);

    // The Lua scripts, found beside the compiled code: a seat of the demo event held.
    const events = (await (await fetch(`${base}/v1/events`)).json()) as { events: { id: string }[] };
    const eventId = events.events[0]!.id;
    const seats = (await (await fetch(`${base}/v1/events/${eventId}/seats`)).json()) as { seats: { id: string; status: string }[] };
    const seat = seats.seats.find((s) => s.status === 'available')!;
    const { token } = (await (await fetch(`${base}/v1/auth/demo-token`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customerId: 'compiled-build' }),
    })).json()) as { token: string };
    const hold = await fetch(`${base}/v1/events/${eventId}/holds`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ seatIds: [seat.id] }),
    });
    expect(hold.status).toBe(201);
    const held = ((await hold.json()) as { hold: { id: string; items: { seatId: string }[] } }).hold;
    expect(held.items.map((i) => i.seatId)).toEqual([seat.id]);
    // Given back (its seat key removed by another script), so nothing is left to expire later.
    expect((await fetch(`${base}/v1/holds/${held.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    // The web app's built pages, found through @holdfast/web's staged copy.
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<!doctype html>/i);

    // The worker: the compiled one, started beside the API.
    await waitFor('the worker to start', () => out.stdout.includes('"msg":"worker started"'), { timeoutMs: 60_000, intervalMs: 200 });
    expect(out.stdout).toContain('"name":"holdfast-worker"');

    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out.stdout).toContain('"msg":"worker stopped"');
    expect(await runHealthcheck(app, port)).toBe(1);
  } finally {
    server.kill('SIGKILL');
  }
}, 300_000);

afterAll(() => ownRedis.stop());
