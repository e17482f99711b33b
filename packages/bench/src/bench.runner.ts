import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { Client } from 'pg';

import { launchChildServer } from './baselines/child-server.launcher';
import { runPgbench, type PgbenchResult } from './baselines/pgbench.runner';
import { runRedisBenchmark, type RedisBenchmarkResult } from './baselines/redis-benchmark.runner';
import { benchDatabaseUrl, ensureDatabase } from './bench-database.service';
import type { BenchPlan } from './bench-plan.config';
import { benchRedisUrl, deleteKeys, redisVersion } from './bench-redis.service';
import { runHttpLoad, type HttpLoadResult } from './http-load.generator';
import { runRaceLab, skippedResult, type RaceLabReport, type StrategyResult } from './race-lab.runner';
import {
  optimisticVersionStrategy,
  readThenWriteStrategy,
  selectForUpdateStrategy,
  skipLockedStrategy,
} from './strategies';

const execFileAsync = promisify(execFile);

export type Section = 'race' | 'hold' | 'confirm';
export const ALL_SECTIONS: Section[] = ['race', 'hold', 'confirm'];

export interface Skipped {
  skipped: string;
}

export interface BenchMeta {
  mode: BenchPlan['mode'];
  startedAt: string;
  finishedAt: string;
  durationSec: number;
  gitCommit: string | null;
  node: string;
  cpus: number;
  cpuModel: string;
  loadAverageAtStart: number[];
  postgres: string;
  redis: string;
  databaseUrl: string;
  redisUrl: string;
}

export interface HoldPathReport {
  concurrency: number;
  redisBenchmark: RedisBenchmarkResult;
  minimalExpress: HttpLoadResult;
  holdfastApi: HttpLoadResult | Skipped;
}

export interface ConfirmPathReport {
  concurrency: number;
  pgbench: PgbenchResult;
  holdfastApi: HttpLoadResult | Skipped;
}

export interface BenchReport {
  meta: BenchMeta;
  plan: BenchPlan;
  raceLab: RaceLabReport | null;
  holdPath: HoldPathReport | null;
  confirmPath: ConfirmPathReport | null;
}

const PENDING_HOLDFAST = "holdfast's hold and confirm API is not on this branch yet";

export interface RunBenchOptions {
  plan: BenchPlan;
  sections: Section[];
  /** Progress lines (stderr in the CLI). */
  log(line: string): void;
}

export async function runBench(options: RunBenchOptions): Promise<BenchReport> {
  const { plan, log } = options;
  const started = new Date();
  const databaseUrl = benchDatabaseUrl();
  const redisUrl = benchRedisUrl();
  await ensureDatabase(databaseUrl);
  const meta: BenchMeta = {
    mode: plan.mode,
    startedAt: started.toISOString(),
    finishedAt: '',
    durationSec: 0,
    gitCommit: await gitCommit(),
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    loadAverageAtStart: os.loadavg().map((value) => Math.round(value * 100) / 100),
    postgres: await postgresVersion(databaseUrl),
    redis: await redisVersion(redisUrl),
    databaseUrl: redactUrl(databaseUrl),
    redisUrl: redactUrl(redisUrl),
  };

  let raceLab: RaceLabReport | null = null;
  if (options.sections.includes('race')) {
    log(`race lab: ${plan.raceLab.buyers} buyers, ${plan.raceLab.tickets} tickets, ${plan.raceLab.concurrency} concurrent clients`);
    const { optimisticAttempts, ...sale } = plan.raceLab;
    raceLab = await runRaceLab({
      databaseUrl,
      schema: 'bench_race_lab',
      sale,
      strategies: [
        readThenWriteStrategy(),
        selectForUpdateStrategy(),
        optimisticVersionStrategy({ maxAttempts: optimisticAttempts }),
        skipLockedStrategy(),
      ],
      onResult: (result: StrategyResult) =>
        log(`  ${result.id}: sold ${result.sold}, oversold ${result.oversold}, ${Math.round(result.attemptsPerSec)}/s`),
    });
    raceLab.results.push(skippedResult({ id: 'holdfast', title: 'holdfast: Redis hold, then fenced confirm', fenced: true }, sale, PENDING_HOLDFAST));
  }

  let holdPath: HoldPathReport | null = null;
  if (options.sections.includes('hold')) {
    const { concurrency } = plan.holdPath;
    log(`hold path: redis-benchmark SET NX EX, ${plan.holdPath.redisBenchmarkRequests} requests, -c ${concurrency}`);
    const redisBenchmark = await runRedisBenchmark({ redisUrl, requests: plan.holdPath.redisBenchmarkRequests, concurrency });
    log('hold path: minimal Express + one SET NX EX per request');
    const minimalExpress = await runMinimalExpress(plan, redisUrl);
    holdPath = { concurrency, redisBenchmark, minimalExpress, holdfastApi: { skipped: PENDING_HOLDFAST } };
  }

  let confirmPath: ConfirmPathReport | null = null;
  if (options.sections.includes('confirm')) {
    const { concurrency, pgbenchTransactionsPerClient } = plan.confirmPath;
    log(`confirm path: pgbench confirm-shaped transaction, -c ${concurrency} -t ${pgbenchTransactionsPerClient}`);
    const pgbench = await runPgbench({
      databaseUrl,
      schema: 'bench_pgbench',
      clients: concurrency,
      transactionsPerClient: pgbenchTransactionsPerClient,
    });
    confirmPath = { concurrency, pgbench, holdfastApi: { skipped: PENDING_HOLDFAST } };
  }

  const finished = new Date();
  meta.finishedAt = finished.toISOString();
  meta.durationSec = Math.round((finished.getTime() - started.getTime()) / 100) / 10;
  return { meta, plan, raceLab, holdPath, confirmPath };
}

async function runMinimalExpress(plan: BenchPlan, redisUrl: string): Promise<HttpLoadResult> {
  const prefix = `bench:min:${process.pid}:`;
  const server = await launchChildServer({
    entry: path.join(__dirname, 'baselines', 'minimal-express.server.ts'),
    env: { BENCH_REDIS_URL: redisUrl, BENCH_KEY_PREFIX: prefix },
  });
  try {
    return await runHttpLoad({
      baseUrl: server.baseUrl,
      concurrency: plan.holdPath.concurrency,
      maxRequests: plan.holdPath.requests,
      maxDurationMs: plan.holdPath.maxDurationMs,
      warmupRequests: plan.holdPath.warmupRequests,
      makeRequest: (index) => ({
        method: 'POST',
        path: '/hold',
        body: JSON.stringify({ seatId: `seat-${index}`, customerId: `customer-${index % 1000}` }),
      }),
    });
  } finally {
    await server.stop();
    await deleteKeys(redisUrl, `${prefix}*`);
  }
}

async function gitCommit(): Promise<string | null> {
  try {
    const { stdout } = await execFileAsync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname });
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

async function postgresVersion(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ server_version: string }>('SHOW server_version');
    return result.rows[0]?.server_version ?? 'unknown';
  } finally {
    await client.end();
  }
}

function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

export function isSkipped(value: unknown): value is Skipped {
  return typeof value === 'object' && value !== null && typeof (value as Skipped).skipped === 'string';
}
