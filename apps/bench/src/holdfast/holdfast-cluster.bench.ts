/**
 * The `cluster` section, on one Redis node and on a Redis Cluster of the
 * bench's own (3 masters, 3 replicas, loopback ports 7100-7199), in interleaved
 * rounds. First the hold script alone (HoldStore in the bench process, no HTTP,
 * no PostgreSQL): one node, the cluster, the cluster with replica acks; the
 * ack's cost shows as the ratio to the cluster without it. Then holds/s through
 * the real API (`npm start -- --only api`) with 1 and 2 API processes and with
 * HOLD_REPLICA_ACKS=1, each request one general-admission ticket for a customer
 * of its own, on a few events spread over the shards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSecretKey, randomUUID } from 'node:crypto';
import path from 'node:path';

import { createRedisClient, eventKeyPattern, HoldStore, masters, type RedisClient } from '@holdfast/hold-store';
import { RedisCluster } from '@holdfast/test-kit';
import jwt from 'jsonwebtoken';
import pg from 'pg';

import { runHttpLoad, type HttpLoadResult } from '../http-load.generator';
import { LatencyHistogram, round3 } from '../latency.histogram';
import { markdownTable, type Cell } from '../report/markdown-table.format';
import { startNodeFlags } from './start-node-flags';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const SECRET = 'holdfast-bench-cluster-secret-0123456789';
const EVENTS = 6;

interface ClusterSetupRun {
  setup: string;
  apiProcesses: number;
  holdsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 201. */
  failed: number;
}

/** One setup's round of the hold script alone. */
interface ScriptSetupRun {
  setup: string;
  holdsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Holds given back because too few replicas acknowledged them in time (the API answers 503). */
  notAcknowledged: number;
}

export interface ClusterBenchReport {
  holdsPerSetup: number;
  concurrency: number;
  rounds: number;
  runs: ClusterSetupRun[];
  /** The hold script alone: holds per setup and round, and the runs (absent in reports made before it existed). */
  scriptHoldsPerSetup?: number;
  scriptRuns?: ScriptSetupRun[];
}

interface Setup {
  name: string;
  apiProcesses: number;
  env: Record<string, string>;
}

/** The port named by the JSON log line carrying `ready`, once that line is whole. */
function listeningPort(out: string, ready: string): number | undefined {
  const at = out.indexOf(ready);
  if (at < 0) return undefined;
  const end = out.indexOf('\n', at);
  if (end < 0) return undefined;
  const port = (JSON.parse(out.slice(out.lastIndexOf('\n', at) + 1, end)) as { port?: unknown }).port;
  return typeof port === 'number' && port > 0 ? port : undefined;
}

/** `npm start -- --only api` with the setup's environment; resolves once every API process listens. */
async function startApi(setup: Setup, databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  // Port 0: the API processes share the port the system gives the first (Node's cluster), named in the ready line.
  const env: NodeJS.ProcessEnv = {
    ...process.env, ...setup.env, DATABASE_URL: databaseUrl, PORT: '0', API_PROCESSES: String(setup.apiProcesses),
    NODE_ENV: 'production', DEMO_MODE: 'false', JWT_SECRET: SECRET, STRIPE_WEBHOOK_SECRET: 'whsec_bench_cluster',
    HOLD_RATE_LIMIT_PER_MINUTE: '100000', LOG_LEVEL: 'info', LOG_FORMAT: 'json',
  };
  if (setup.env.REDIS_CLUSTER_NODES) delete env.REDIS_URL;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ...startNodeFlags(), path.join(ROOT, 'apps/server/src/main.ts'), '--only', 'api'], {
    cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const ready = setup.apiProcesses > 1 ? '"msg":"holdfast API processes listening"' : '"msg":"holdfast API listening"';
  const deadline = Date.now() + 120_000;
  let port: number | undefined;
  while (!(port = listeningPort(out, ready))) {
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

/** Script-alone setups: events per run, spread over the shards. */
const SCRIPT_EVENTS = 12;

/**
 * `holds` one-seat holds by `concurrency` callers through HoldStore.holdSeats
 * (one script call each, plus WAIT with acks); the run's keys are deleted after.
 */
async function holdScriptRun(setup: string, redis: RedisClient, acks: number, holds: number, concurrency: number): Promise<ScriptSetupRun> {
  const store = new HoldStore(redis, acks ? { replicas: acks, timeoutMs: 200 } : null);
  const events = Array.from({ length: SCRIPT_EVENTS }, () => randomUUID());
  try {
    for (const eventId of events) await store.primeEvent({ eventId, ticketTypes: [], bought: [], soldSeatIds: [] });
    const histogram = new LatencyHistogram();
    let next = 0;
    let notAcknowledged = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < holds) {
        const i = next++;
        const t = performance.now();
        const attempt = await store.holdSeats({
          eventId: events[i % SCRIPT_EVENTS]!, holdId: `h${i}`, customerId: `c${i}`, ttlMs: 60_000, maxPerCustomer: 10,
          rateLimit: 0, rateWindowMs: 60_000, outboxMaxPending: 1_000_000, candidates: [{ seatIds: [`s${i}`], recordJson: '{}' }],
        }).catch((error: Error) => {
          if (error.name !== 'ReplicaAckError') throw error;
          return null;
        });
        if (!attempt) notAcknowledged += 1;
        else if (attempt.kind !== 'ok') throw new Error(`hold script refused a free seat: ${attempt.kind}`);
        histogram.record(performance.now() - t);
      }
    }));
    const seconds = (performance.now() - t0) / 1000;
    const latency = histogram.summary();
    return { setup, holdsPerSec: round3(holds / seconds), p50Ms: latency.p50Ms, p99Ms: latency.p99Ms, notAcknowledged };
  } finally {
    for (const eventId of events) await deleteEventKeys(redis, eventId);
  }
}

/** Every key of one event (they carry its hash tag), on every master. */
async function deleteEventKeys(redis: RedisClient, eventId: string): Promise<void> {
  for (const node of masters(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', eventKeyPattern(eventId), 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
}

async function scriptAlone(
  cluster: RedisCluster, options: { redisUrl: string; scriptHolds: number; concurrency: number; rounds: number }, log: (line: string) => void,
): Promise<ScriptSetupRun[]> {
  const one = createRedisClient({ redisUrl: options.redisUrl, redisClusterNodes: null });
  const onCluster = createRedisClient({ redisUrl: '', redisClusterNodes: cluster.nodes });
  const setups = [
    { name: 'one Redis node', redis: one, acks: 0 },
    { name: 'cluster (3 masters)', redis: onCluster, acks: 0 },
    { name: 'cluster, HOLD_REPLICA_ACKS=1', redis: onCluster, acks: 1 },
  ];
  const runs: ScriptSetupRun[] = [];
  try {
    // Not recorded: connections, script loading, and the replicas' first sync (every acked hold waits it out).
    for (const s of setups) await holdScriptRun(s.name, s.redis, s.acks, Math.min(1000, options.scriptHolds), options.concurrency);
    for (let round = 0; round < options.rounds; round++) {
      for (const s of setups) {
        const run = await holdScriptRun(s.name, s.redis, s.acks, options.scriptHolds, options.concurrency);
        log(`cluster: script alone, round ${round + 1}/${options.rounds}, ${s.name}: ${Math.round(run.holdsPerSec)} holds/s, p99 ${run.p99Ms} ms`);
        runs.push(run);
      }
    }
  } finally {
    one.disconnect();
    onCluster.disconnect();
  }
  return runs;
}

export async function clusterSection(
  options: { databaseUrl: string; redisUrl: string; holds: number; concurrency: number; rounds: number; scriptHolds: number },
  log: (line: string) => void,
): Promise<ClusterBenchReport> {
  log(`cluster: starting a Redis Cluster (3 masters, 3 replicas) on loopback`);
  const cluster = await RedisCluster.start();
  let scriptRuns: ScriptSetupRun[];
  try {
    scriptRuns = await scriptAlone(cluster, options, log);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
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
  const oneNode = createRedisClient({ redisUrl: options.redisUrl, redisClusterNodes: null });
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
      await deleteEventKeys(oneNode, id).catch(() => undefined);
    }
    oneNode.disconnect();
    await db.end();
    await cluster.stop();
  }
  return {
    holdsPerSetup: options.holds, concurrency: options.concurrency, rounds: options.rounds, runs,
    scriptHoldsPerSetup: options.scriptHolds, scriptRuns,
  };
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
    ...renderScriptAlone(report),
    '',
    `## Redis Cluster and API processes: ${report.holdsPerSetup} GA holds per setup, ${report.concurrency} clients, median of ${report.rounds} interleaved rounds`,
    '',
    markdownTable(
      ['setup', 'holds/s', 'p50 ms', 'p99 ms', 'not 201', 'vs one node'],
      rows.map((r): Cell[] => [r.name, Math.round(r.holds), r.p50, r.p99, r.failed, `${(r.holds / base).toFixed(2)}×`]),
    ),
  ];
}

/** The hold script alone: medians per setup, with the ratio to the cluster without replica acks. */
function renderScriptAlone(report: ClusterBenchReport): string[] {
  const runs = report.scriptRuns ?? [];
  if (runs.length === 0) return [];
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const names = [...new Set(runs.map((r) => r.setup))];
  const rows = names.map((name) => {
    const rs = runs.filter((r) => r.setup === name);
    return {
      name, holds: median(rs.map((r) => r.holdsPerSec)), p50: median(rs.map((r) => r.p50Ms)), p99: median(rs.map((r) => r.p99Ms)),
      notAcknowledged: rs.reduce((t, r) => t + r.notAcknowledged, 0),
    };
  });
  const base = rows.find((r) => r.name.startsWith('cluster ('))?.holds || 1;
  return [
    '',
    `## The hold script alone: ${report.scriptHoldsPerSetup} one-seat holds per setup, ${report.concurrency} callers in the bench process (no HTTP, no PostgreSQL), median of ${report.rounds} interleaved rounds`,
    '',
    markdownTable(
      ['setup', 'holds/s', 'p50 ms', 'p99 ms', 'not acknowledged (503)', 'vs cluster without acks'],
      rows.map((r): Cell[] => [r.name, Math.round(r.holds), r.p50, r.p99, r.notAcknowledged, `${(r.holds / base).toFixed(2)}×`]),
    ),
  ];
}
