import type { MachineCpuPerRequest } from './machine-cpu.probe';
import type { PgbenchResult } from './baselines/pgbench.runner';
import type { RedisBenchmarkResult } from './baselines/redis-benchmark.runner';
import type { BenchPlan } from './bench-plan.config';
import type { ClusterBenchReport } from './holdfast/holdfast-cluster.bench';
import type { BestReport } from './holdfast/holdfast-best.bench';
import type { PersistReport } from './holdfast/holdfast-persist.bench';
import type { QueueReport } from './holdfast/holdfast-queue.bench';
import type { SoakReport } from './holdfast/holdfast-soak.bench';
import type { InstrumentReport } from './load-instrument.bench';
import type { WebhookCostReport } from './holdfast/holdfast-webhooks.bench';
import type { ConfirmRun, InProcessConfirmRun, LockWaits } from './holdfast/holdfast-confirms.bench';
import type { NumberingRun } from './holdfast/holdfast-numbering.bench';
import type { GrowthRow, MemoryResult } from './holdfast/holdfast-holds.bench';
import type { HttpLoadResult } from './http-load.generator';
import type { RaceLabReport } from './race-lab.runner';

export type Section = 'race' | 'hold' | 'growth' | 'confirm' | 'best' | 'cluster' | 'persist' | 'soak' | 'instrument' | 'webhooks' | 'queue';
export const ALL_SECTIONS: Section[] = ['race', 'hold', 'growth', 'confirm', 'best', 'cluster', 'persist', 'soak', 'instrument', 'webhooks', 'queue'];

export interface Skipped {
  skipped: string;
}

export function isSkipped(value: unknown): value is Skipped {
  return typeof value === 'object' && value !== null && typeof (value as Skipped).skipped === 'string';
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
  loadAverageAtEnd: number[];
  postgres: string;
  redis: string;
  databaseUrl: string;
  redisUrl: string;
  holdfastRedisUrl: string;
  /** `--tracing on`: the API exported its spans (this many OTLP requests) to a receiver that discarded them. Absent in older reports. */
  tracing?: { on: boolean; exportRequests: number };
}

/** One path's numbers over the rounds: medians of the per-round values, requests summed. */
export interface PathSummary {
  requests: number;
  failed: number;
  okPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU milliseconds the server process spent per request (warm-up included), median of rounds; null when not measured. */
  serverCpuMsPerRequest: number | null;
}

export interface HoldRound {
  redisBenchmark: RedisBenchmarkResult;
  minimalExpress: HttpLoadResult;
  /** The bare node:http server (one SET NX EX), in the same round; absent in reports from before it. */
  bareNode?: HttpLoadResult;
  holdfastApi: HttpLoadResult | Skipped;
  /** holdfast holding `multiSeatHold` seats per request, in the same round. */
  holdfastMultiSeat?: HttpLoadResult;
  expressCpuMsPerRequest: number | null;
  bareNodeCpuMsPerRequest?: number | null;
  holdfastCpuMsPerRequest: number | null;
  holdfastMultiSeatCpuMsPerRequest?: number | null;
  /** Each run's CPU per request in every process it used (null: not readable); absent in older reports. */
  cpuByProcess?: CpuByProcess<MachineCpuPerRequest | null>;
}

/** One value per HTTP server of the hold path. */
export interface CpuByProcess<T> {
  minimalExpress: T;
  bareNode: T;
  holdfastApi: T;
  holdfastMultiSeat: T;
}

/** One concurrency level of the hold path: each server's throughput and p99 there. */
export interface ConcurrencyPoint {
  concurrency: number;
  holdfast: { okPerSec: number; p99Ms: number; failed: number };
  bareNode: { okPerSec: number; p99Ms: number; failed: number };
  minimalExpress: { okPerSec: number; p99Ms: number; failed: number };
}

/** One server's warm-up rounds before the hold path's clock, and its CPU per request in each (null: not readable). */
export interface HoldServerWarmUp {
  rounds: number;
  cpuMsPerRequest: Array<number | null>;
}

/**
 * What ran before the hold path's clock, every HTTP server alike (bench.runner.ts, holdWarmUp):
 * rounds of `requestsPerRound` requests at the section's concurrency until the server's CPU per
 * request stopped falling, at most `maxRounds`.
 */
export interface HoldWarmUp {
  requestsPerRound: number;
  maxRounds: number;
  minimalExpress: HoldServerWarmUp;
  bareNode: HoldServerWarmUp;
  /**
   * Each round also held `multiSeatHold` seats a request, as many times, after the single-seat holds its CPU is read on;
   * then one hold on each measured event (its seat catalog loaded, as a sale's first hold does); absent in older reports.
   */
  holdfastApi: HoldServerWarmUp & { multiSeatHold: number; firstHoldsOnMeasuredEvents?: number };
}

export interface HoldPathReport {
  /** Before round 1, not measured (HoldWarmUp); absent in older reports. */
  warmUp?: HoldWarmUp | null;
  /** Hold p99 against concurrency (one run per server and level, after the rounds); absent in older reports. */
  byConcurrency?: ConcurrencyPoint[];
  concurrency: number;
  rounds: HoldRound[];
  redisBenchmark: PathSummary;
  minimalExpress: PathSummary;
  /** The bare node:http server; null when it did not run. */
  bareNode: PathSummary | null;
  holdfastApi: PathSummary | Skipped;
  /** The node flags each side ran with: the baselines get holdfast's API's (npm start's). */
  nodeFlags?: { holdfastApi: string[]; baselines: string[] };
  /** Seats per hold of holdfastMultiSeat; null when that path did not run. */
  multiSeatHold: number | null;
  holdfastMultiSeat: PathSummary | null;
  /**
   * CPU per request in each process a run used (server, Redis, PostgreSQL, the bench's client) and the
   * machine's busy time, medians of the rounds; absent in older reports.
   */
  cpuByProcess?: CpuByProcess<MachineCpuPerRequest | null>;
  /** Medians of the per-round ratios (null when holdfast did not run). */
  ratios: {
    /** holdfast ÷ the bare node:http server, medians of the per-round ratios (null when either did not run). */
    holdfastVsBareNodeThroughput: number | null;
    holdfastVsBareNodeP99: number | null;
    holdfastVsBareNodeCpuPerRequest: number | null;
    /** The same, counting every process of the machine the runs used (MachineCpuPerRequest.machine); absent in older reports. */
    holdfastVsBareNodeMachineCpuPerRequest?: number | null;
    holdfastVsExpressThroughput: number | null;
    holdfastVsExpressP99: number | null;
    holdfastVsRedisBenchmarkThroughput: number | null;
    expressVsRedisBenchmarkThroughput: number | null;
    /** Server CPU per request, holdfast ÷ minimal Express: the noise-robust cost ratio. */
    holdfastVsExpressCpuPerRequest: number | null;
    multiSeatVsExpressThroughput: number | null;
    multiSeatVsExpressP99: number | null;
  };
}

/** Creating the largest event through `POST /v1/admin/events`, its seats as a list and as a layout. */
export interface HttpCreateResult {
  seats: number;
  asList: { sec: number; bodyBytes: number };
  asLayout: { sec: number; bodyBytes: number };
}

export interface GrowthReport {
  rows: GrowthRow[];
  /** Null in reports written before events were created through HTTP. */
  httpCreate?: HttpCreateResult | null;
  /** Unmeasured rounds of holds on throwaway events before the clock, until the API's CPU per hold stopped falling (absent in older reports). */
  warmUp?: { requestsPerRound: number; rounds: number; cpuMsPerRequest: Array<number | null> };
  memory: MemoryResult | Skipped;
  /** (max p50 − min p50) / min p50 over the event sizes, and the same for p99. */
  p50Spread: number | null;
  p99Spread: number | null;
}

export interface ConfirmRound {
  pgbench: PgbenchResult;
  holdfastApi: ConfirmRun | Skipped;
  /** pgbench shaped like holdfast's confirm batches of the same round (issue 12). */
  pgbenchBatch?: PgbenchResult;
  /** Sessions of pgbench's database waiting on a lock while that batch script ran (sampled as holdfast's confirms are). */
  pgbenchBatchLockWaits?: LockWaits | null;
}

/**
 * What ran before the confirm section's clock, on both sides alike: confirm rounds through the
 * API on throwaway events until its CPU per confirm stopped falling, and pgbench's batch script.
 */
export interface ConfirmWarmUp {
  /** Warm-up confirm rounds (each `confirms` confirms at the section's concurrency), and the API's CPU per confirm in each. */
  rounds: number;
  confirms: number;
  apiCpuMsPerConfirm: Array<number | null>;
  /** pgbench batch-script runs before the clock (the same script and size as round 1's will be). */
  pgbenchBatchRuns: number;
}

export interface ConfirmPathReport {
  concurrency: number;
  rounds: ConfirmRound[];
  pgbench: PathSummary;
  holdfastApi: PathSummary | Skipped;
  /** Median of the per-round ratios holdfast confirms/s ÷ pgbench tps. */
  holdfastVsPgbench: number | null;
  /** Before round 1, not measured (ConfirmWarmUp). */
  warmUp?: ConfirmWarmUp | null;
  byBuyers: ConfirmRun[] | Skipped;
  /** confirmHold called in the bench process (no HTTP), at the same concurrency. */
  inProcess?: InProcessConfirmRun;
  /** pgbench on holdfast's tables: the per-year order-number row against a sequence. */
  numbering?: NumberingRun[];
}

export interface BenchReport {
  meta: BenchMeta;
  plan: BenchPlan;
  raceLab: RaceLabReport | null;
  holdPath: HoldPathReport | null;
  growth: GrowthReport | Skipped | null;
  confirmPath: ConfirmPathReport | null;
  best: BestReport | null;
  /** Redis Cluster and API processes (holdfast-cluster.bench.ts). */
  clusterScale?: ClusterBenchReport | null;
  /** Holds persisted per second by one PostgreSQL primary (holdfast-persist.bench.ts). */
  persist?: PersistReport | null;
  /** A sale held for minutes: Redis bytes per live and ended hold, the API's memory (holdfast-soak.bench.ts). */
  soak?: SoakReport | null;
  /** The bench's own load generator and histogram against autocannon and HdrHistogram (load-instrument.bench.ts). */
  instrument?: InstrumentReport | null;
  /** Holds and confirms with and without a webhook receiver that never answers (holdfast-webhooks.bench.ts). */
  webhooks?: WebhookCostReport | null;
  /** The waiting room under a crowd: joins, memory per waiting buyer, a flash sale through it and without it (holdfast-queue.bench.ts). */
  queue?: QueueReport | null;
}
