/**
 * The `cluster` section: holds/s through the real API (`npm start -- --only api`)
 * on one Redis node, and on a Redis Cluster of the bench's own (3 masters,
 * 3 replicas, loopback ports 7100-7199) with 1 and 2 API processes and with
 * HOLD_REPLICA_ACKS=1, all in the same run, in interleaved rounds. Each setup
 * holds one general-admission ticket per request on a few events (spread over
 * the shards), each request a customer of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSecretKey } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';

import jwt from 'jsonwebtoken';
import pg from 'pg';

import { RedisCluster } from '@holdfast/test-kit';
import { deleteKeys } from '../bench-redis.service';
import { runHttpLoad, type HttpLoadResult } from '../http-load.generator';
import { markdownTable, type Cell } from '../report/markdown-table.format';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const SECRET = 'holdfast-bench-cluster-secret-0123456789';
const EVENTS = 6;

export interface ClusterSetupRun {
  setup: string;
  apiProcesses: number;
  holdsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 201. */
  failed: number;
}

export interface ClusterBenchReport {
  holdsPerSetup: number;
  concurrency: number;
  rounds: number;
  runs: ClusterSetupRun[];
}

interface Setup {
  name: string;
  apiProcesses: number;
  env: Record<string, string>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** `npm start -- --only api` with the setup's environment; resolves once every API process listens. */
async function startApi(setup: Setup, databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env, ...setup.env, DATABASE_URL: databaseUrl, PORT: String(port), API_PROCESSES: String(setup.apiProcesses),
    NODE_ENV: 'production', DEMO_MODE: 'false', JWT_SECRET: SECRET, STRIPE_WEBHOOK_SECRET: 'whsec_bench_cluster',
    HOLD_RATE_LIMIT_PER_MINUTE: '100000', LOG_LEVEL: 'info', LOG_FORMAT: 'json',
  };
  if (setup.env.REDIS_CLUSTER_NODES) delete env.REDIS_URL;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/server/src/main.ts'), '--only', 'api'], {
    cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const ready = setup.apiProcesses > 1 ? '"msg":"holdfast API processes listening"' : '"msg":"holdfast API listening"';
  const deadline = Date.now() + 120_000;
  while (!out.includes(ready)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
      throw new Error(`the API (${setup.name}) did not start: ${out.slice(-500)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => {
      const kill = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 20_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    }),
  };
}

export async function clusterSection(
  options: { databaseUrl: string; redisUrl: string; holds: number; concurrency: number; rounds: number },
  log: (line: string) => void,
): Promise<ClusterBenchReport> {
  log(`cluster: starting a Redis Cluster (3 masters, 3 replicas) on loopback`);
  const cluster = await RedisCluster.start();
  const key = createSecretKey(Buffer.from(SECRET, 'utf8'));
  const sign = (sub: string, role: string) => jwt.sign({ sub, role }, key, { algorithm: 'HS256', expiresIn: 3600 });
  const db = new pg.Client({ connectionString: options.databaseUrl });
  await db.connect();
  const setups: Setup[] = [
    { name: 'one Redis node, 1 API process', apiProcesses: 1, env: { REDIS_URL: options.redisUrl } },
    { name: 'cluster, 1 API process', apiProcesses: 1, env: { REDIS_CLUSTER_NODES: cluster.seeds } },
    { name: 'cluster, 2 API processes', apiProcesses: 2, env: { REDIS_CLUSTER_NODES: cluster.seeds } },
    { name: 'cluster, 1 API process, HOLD_REPLICA_ACKS=1', apiProcesses: 1, env: { REDIS_CLUSTER_NODES: cluster.seeds, HOLD_REPLICA_ACKS: '1' } },
  ];
  const runs: ClusterSetupRun[] = [];
  const created: string[] = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const setup of setups) {
        log(`cluster: round ${round + 1}/${options.rounds}, ${setup.name}`);
        const api = await startApi(setup, options.databaseUrl);
        try {
          const admin = sign('bench-admin', 'admin');
          const events: { id: string; tt: string }[] = [];
          for (let i = 0; i < EVENTS; i++) {
            const res = await fetch(`${api.url}/v1/admin/events`, {
              method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
              body: JSON.stringify({ name: `cluster bench ${i}`, startsAt: '2030-01-01T19:00:00Z', ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 1_000_000 }] }),
            });
            const body = (await res.json()) as { event: { id: string; ticketTypes: { id: string }[] } };
            if (res.status !== 201) throw new Error(`event creation answered ${res.status}`);
            events.push({ id: body.event.id, tt: body.event.ticketTypes[0]!.id });
            created.push(body.event.id);
          }
          const warmup = Math.min(500, Math.ceil(options.holds / 8));
          const tokens = Array.from({ length: options.holds + warmup }, (_, i) => sign(`cb-${round}-${setup.apiProcesses}-${setup.name.length}-${i}`, 'customer'));
          const result: HttpLoadResult = await runHttpLoad({
            baseUrl: api.url, concurrency: options.concurrency, maxRequests: options.holds, maxDurationMs: 60_000, warmupRequests: warmup,
            makeRequest: (i) => {
              const e = events[i % EVENTS]!;
              return {
                method: 'POST', path: `/v1/events/${e.id}/holds`,
                headers: { authorization: `Bearer ${tokens[i]}`, 'content-type': 'application/json' },
                body: JSON.stringify({ ticketTypeId: e.tt, quantity: 1 }),
              };
            },
            isOk: (s) => s === 201,
          });
          runs.push({
            setup: setup.name, apiProcesses: setup.apiProcesses, holdsPerSec: result.okPerSec,
            p50Ms: result.okLatency.p50Ms, p99Ms: result.okLatency.p99Ms, failed: result.failed + result.errors,
          });
        } finally {
          await api.stop();
        }
      }
    }
  } finally {
    for (const id of created) {
      await db.query('DELETE FROM holds WHERE event_id = $1', [id]).catch(() => undefined);
      await db.query('DELETE FROM events WHERE id = $1', [id]).catch(() => undefined);
      await deleteKeys(options.redisUrl, `{ev:${id}}*`).catch(() => 0);
    }
    await db.end();
    await cluster.stop();
  }
  return { holdsPerSetup: options.holds, concurrency: options.concurrency, rounds: options.rounds, runs };
}

/** Medians per setup over the rounds, with the ratio to one Redis node. */
export function renderClusterSection(report: ClusterBenchReport | null | undefined): string[] {
  if (!report) return [];
  const names = [...new Set(report.runs.map((r) => r.setup))];
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const rows = names.map((name) => {
    const rs = report.runs.filter((r) => r.setup === name);
    return { name, holds: median(rs.map((r) => r.holdsPerSec)), p50: median(rs.map((r) => r.p50Ms)), p99: median(rs.map((r) => r.p99Ms)), failed: rs.reduce((t, r) => t + r.failed, 0) };
  });
  const base = rows[0]?.holds || 1;
  return [
    '',
    `## Redis Cluster and API processes: ${report.holdsPerSetup} GA holds per setup, ${report.concurrency} clients, median of ${report.rounds} interleaved rounds`,
    '',
    markdownTable(
      ['setup', 'holds/s', 'p50 ms', 'p99 ms', 'not 201', 'vs one node'],
      rows.map((r): Cell[] => [r.name, Math.round(r.holds), r.p50, r.p99, r.failed, `${(r.holds / base).toFixed(2)}×`]),
    ),
  ];
}
