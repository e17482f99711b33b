// Measures hold latency: POST /v1/events/{id}/holds for 1 and for 4 seats under
// 50 concurrent keep-alive clients against the real API (port 0, real PostgreSQL
// and Redis), next to a minimal Express server doing one SET NX EX per request,
// all in the same run. Servers run in child processes so the load generator does
// not share their event loop. Bounded in count and in time.
//
//   npx tsx scripts/measure-holds.ts   (env: DATABASE_URL, REDIS_URL, REQUESTS, ROUNDS, CONCURRENCY, TIME_LIMIT_MS)
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

const CONCURRENCY = Number(process.env.CONCURRENCY ?? 50);
const REQUESTS = Number(process.env.REQUESTS ?? 4000);
const WARMUP = Math.min(500, Math.ceil(REQUESTS / 8));
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const TIME_LIMIT_MS = Number(process.env.TIME_LIMIT_MS ?? 60_000);

type Role = 'api' | 'baseline';
const print = (line = '') => process.stdout.write(`${line}\n`);
const fail = (err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
};

// ---------------------------------------------------------------- servers (child processes)

async function serve(role: Role): Promise<void> {
  const { loadConfig } = await import('@holdfast/config');
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', HOLD_RATE_LIMIT_PER_MINUTE: '100000' });
  let close: () => Promise<void>;
  let server: http.Server;
  if (role === 'api') {
    const { createApiRuntime } = await import('@holdfast/api');
    const rt = await createApiRuntime(config);
    server = rt.app.listen(0, '127.0.0.1');
    close = () => rt.close();
  } else {
    const express = (await import('express')).default;
    const { Redis } = await import('ioredis');
    const redis = new Redis(config.redisUrl);
    const app = express();
    app.use(express.json({ limit: '100kb' }));
    app.post('/hold', async (req, res) => {
      const ok = await redis.set(`measure:baseline:${String(req.body.key)}`, 'x', 'EX', 600, 'NX');
      res.status(ok ? 201 : 409).json({ ok: ok === 'OK' });
    });
    server = app.listen(0, '127.0.0.1');
    close = async () => {
      redis.disconnect();
    };
  }
  server.keepAliveTimeout = 10_000;
  await new Promise((r) => server.once('listening', r));
  process.send!({ port: (server.address() as AddressInfo).port });
  process.on('message', async (m) => {
    if (m !== 'stop') return;
    server.closeAllConnections();
    server.close();
    await close();
    process.exit(0);
  });
}

function startServer(role: Role): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(__filename, ['--serve', role], { execArgv: ['--import', 'tsx', ...(process.env.PROFILE_DIR && role === 'api' ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [])], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${role} server exited with ${code}`)));
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.send('stop');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null) child.kill();
}

// ---------------------------------------------------------------- load generator

interface Sample { latencies: number[]; errors: Record<string, number>; seconds: number }
interface Result { name: string; n: number; errors: Record<string, number>; p50: number; p90: number; p99: number; max: number; rps: number }

/** Percentiles over all rounds of a scenario; throughput is requests over the time spent in its rounds. */
function summarize(name: string, samples: Sample[]): Result {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const errors: Record<string, number> = {};
  for (const s of samples) for (const [k, v] of Object.entries(s.errors)) errors[k] = (errors[k] ?? 0) + v;
  const seconds = samples.reduce((t, s) => t + s.seconds, 0);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { name, n: latencies.length, errors, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: latencies[latencies.length - 1] ?? NaN, rps: latencies.length / seconds };
}

function post(agent: http.Agent, port: number, path: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `total` requests with CONCURRENCY clients; request i is built by `make(i)`. Latencies in ms. */
async function load(port: number, total: number, make: (i: number) => { path: string; body: string; headers: Record<string, string> }): Promise<Sample> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  let next = 0;
  const deadline = Date.now() + TIME_LIMIT_MS;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total && Date.now() < deadline) {
        const { path, body, headers } = make(next++);
        const t0 = process.hrtime.bigint();
        const status = await post(agent, port, path, body, headers).catch(() => -1);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (status !== 201) errors[String(status)] = (errors[String(status)] ?? 0) + 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  return { latencies, errors, seconds };
}

// ---------------------------------------------------------------- the run

async function main(): Promise<void> {
  const { loadConfig } = await import('@holdfast/config');
  const { createDb } = await import('@holdfast/db');
  const { createDomain, createEvent } = await import('@holdfast/domain');
  const { HoldStore } = await import('@holdfast/hold-store');
  const { signToken } = await import('@holdfast/api');
  const { Redis } = await import('ioredis');

  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const db = createDb(config.databaseUrl);
  const redis = new Redis(config.redisUrl);
  const ctx = createDomain({ db, store: new HoldStore(redis), settings: { holdRateLimitPerMinute: 100000 } });

  // Two events, enough seats for every request (warm-up included) to take fresh ones.
  const perRun = WARMUP + Math.ceil(REQUESTS / ROUNDS) * ROUNDS;
  const grid = (seatsNeeded: number) => {
    const seats = [];
    for (let r = 1; seats.length < seatsNeeded; r++) for (let n = 1; n <= 40; n++) seats.push({ section: 'M', row: String(r), number: n, tier: 'main', priceCents: 5000 });
    return seats;
  };
  const base = { startsAt: new Date('2030-01-01T20:00:00Z'), currency: 'USD', holdTtlSeconds: 600, maxTicketsPerCustomer: 10, ticketTypes: [] };
  const ev1 = await createEvent(ctx, { ...base, name: 'measure 1 seat', seats: grid(perRun) });
  const ev4 = await createEvent(ctx, { ...base, name: 'measure 4 seats', seats: grid(perRun * 4) });
  const seatIds = async (eventId: string) =>
    (await db.$queryRaw<{ id: string }[]>`SELECT id FROM seats WHERE event_id = ${eventId}::uuid ORDER BY "row"::int, number`).map((s) => s.id);
  const seats1 = await seatIds(ev1.id);
  const seats4 = await seatIds(ev4.id);
  const tokens = Array.from({ length: perRun }, (_, i) => `Bearer ${signToken(config.jwtSecret, `measure-${i}-${randomUUID().slice(0, 8)}`, 'customer')}`);

  const results: Result[] = [];
  const run = `${Date.now()}`;
  try {
    const baseline = await startServer('baseline');
    const api = await startServer('api');
    try {
      const baselineReq = (offset: number) => (i: number) => ({ path: '/hold', body: JSON.stringify({ key: `${run}:${offset + i}` }), headers: {} });
      const holdReq = (eventId: string, seats: string[], size: number, offset: number) => (i: number) => ({
        path: `/v1/events/${eventId}/holds`,
        body: JSON.stringify({ seatIds: seats.slice((offset + i) * size, (offset + i + 1) * size) }),
        headers: { authorization: tokens[offset + i]! },
      });
      // Warm-ups (not reported): JIT, connections, catalog load and priming.
      await load(baseline.port, WARMUP, baselineReq(0));
      await load(api.port, WARMUP, holdReq(ev1.id, seats1, 1, 0));
      await load(api.port, WARMUP, holdReq(ev4.id, seats4, 4, 0));
      // The scenarios take turns in rounds (order rotated), so the machine's other load falls on all alike.
      const scenarios = [
        { name: 'SET NX EX (minimal Express)', run: (off: number, n: number) => load(baseline.port, n, baselineReq(off)) },
        { name: 'hold 1 seat (API)', run: (off: number, n: number) => load(api.port, n, holdReq(ev1.id, seats1, 1, off)) },
        { name: 'hold 4 seats (API)', run: (off: number, n: number) => load(api.port, n, holdReq(ev4.id, seats4, 4, off)) },
      ];
      const perRound = Math.ceil(REQUESTS / ROUNDS);
      const samples: Sample[][] = scenarios.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < scenarios.length; k++) {
          const i = (k + round) % scenarios.length;
          samples[i]!.push(await scenarios[i]!.run(WARMUP + round * perRound, perRound));
        }
      }
      scenarios.forEach((sc, i) => results.push(summarize(sc.name, samples[i]!)));
    } finally {
      await stopServer(api.child);
      await stopServer(baseline.child);
    }
  } finally {
    for (const id of [ev1.id, ev4.id]) {
      await db.$executeRaw`DELETE FROM events WHERE id = ${id}::uuid`;
      let cursor = '0';
      do {
        const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `{ev:${id}}*`, 'COUNT', 1000);
        if (keys.length) await redis.del(...keys);
        cursor = nextCursor;
      } while (cursor !== '0');
    }
    let cursor = '0';
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `measure:baseline:${run}:*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = nextCursor;
    } while (cursor !== '0');
    redis.disconnect();
    await db.$disconnect();
  }

  const ms = (x: number) => x.toFixed(2).padStart(8);
  print(`\n${CONCURRENCY} concurrent keep-alive clients, ${REQUESTS} requests per scenario in ${ROUNDS} interleaved rounds (after ${WARMUP} warm-up), node ${process.version}\n`);
  print('scenario                        n      p50 ms   p90 ms   p99 ms   max ms   req/s   non-201');
  for (const r of results) {
    print(`${r.name.padEnd(30)} ${String(r.n).padStart(5)} ${ms(r.p50)} ${ms(r.p90)} ${ms(r.p99)} ${ms(r.max)} ${r.rps.toFixed(0).padStart(7)}   ${JSON.stringify(r.errors)}`);
  }
  const b = results[0]!;
  print('');
  for (const r of results.slice(1)) {
    print(`${r.name}: p50 ${(r.p50 / b.p50).toFixed(2)}x, p99 ${(r.p99 / b.p99).toFixed(2)}x, throughput ${(r.rps / b.rps).toFixed(2)}x of the SET NX EX baseline`);
  }
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt >= 0) {
  void serve(process.argv[serveAt + 1] as Role).catch(fail);
} else {
  main().then(() => process.exit(0), fail);
}
