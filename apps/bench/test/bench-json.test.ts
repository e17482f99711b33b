// The `--out` JSON carries each target's ratio under a stable name, null when
// its section did not run (report/bench-json.format.ts), computed from the
// rounds as the report's tables are.
import type { RedisBenchmarkResult } from '../src/baselines/redis-benchmark.runner';
import type { PgbenchResult } from '../src/baselines/pgbench.runner';
import type { BenchReport, ConfirmRound, HoldRound } from '../src/bench-report.types';
import { benchPlan } from '../src/bench-plan.config';
import { summariseHoldRounds } from '../src/bench.runner';
import type { ConfirmRun } from '../src/holdfast/holdfast-confirms.bench';
import type { HttpLoadResult } from '../src/http-load.generator';
import type { LatencySummary } from '../src/latency.histogram';
import { ratioSpread, type PairedSale, type RaceLabReport, type RacePairsReport, type StrategyResult } from '../src/race-lab.runner';
import { benchJson, holdfastVsPgbenchBatch, holdfastVsSkipLocked } from '../src/report/bench-json.format';
import { renderMarkdown } from '../src/report/bench-report.format';
import type { MachineCpuPerRequest } from '../src/machine-cpu.probe';

const STABLE_NAMES = [
  'holdPath.ratios.holdfastVsBareNodeThroughput', 'holdPath.ratios.holdfastVsBareNodeP99', 'holdPath.ratios.holdfastVsExpressThroughput',
  'raceLab.holdfastVsSkipLocked', 'confirmPath.holdfastVsPgbench', 'confirmPath.holdfastVsPgbenchBatch',
];

const at = (json: unknown, dotted: string): unknown =>
  dotted.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' && k in o ? (o as Record<string, unknown>)[k] : undefined), json);

const latency = (p99Ms: number): LatencySummary => ({ count: 1, minMs: 1, meanMs: 1, p50Ms: 1, p90Ms: 1, p99Ms, maxMs: p99Ms });
const load = (okPerSec: number, p99Ms: number): HttpLoadResult => ({
  requests: 1000, ok: 1000, failed: 0, errors: 0, statusCounts: { 201: 1000 }, failureSamples: [], durationMs: 1000,
  okPerSec, requestsPerSec: okPerSec, stoppedBy: 'count', latency: latency(p99Ms), okLatency: latency(p99Ms),
});
const rb: RedisBenchmarkResult = { command: 'SET', requests: 1, concurrency: 50, requestsPerSec: 40_000, avgMs: 1, p50Ms: 1, p95Ms: 1, p99Ms: 2 } as RedisBenchmarkResult;
const holdRound = (holdfast: [number, number], bare: [number, number], express: [number, number]): HoldRound => ({
  redisBenchmark: rb, minimalExpress: load(...express), bareNode: load(...bare), holdfastApi: load(...holdfast),
  expressCpuMsPerRequest: 0.4, bareNodeCpuMsPerRequest: 0.1, holdfastCpuMsPerRequest: 0.3,
});

function emptyReport(): BenchReport {
  return {
    meta: {} as BenchReport['meta'], plan: benchPlan(true), raceLab: null, holdPath: null, growth: null, confirmPath: null, best: null,
  };
}

test('when no section ran, then the JSON still has every stable name, each null, and says the sections did not run', () => {
  const json = JSON.parse(JSON.stringify(benchJson(emptyReport()))) as unknown;
  for (const name of STABLE_NAMES) expect([name, at(json, name)]).toEqual([name, null]);
  expect(at(json, 'holdPath.ran')).toBe(false);
  expect(at(json, 'raceLab.ran')).toBe(false);
  expect(at(json, 'confirmPath.ran')).toBe(false);
});

test('when the hold path ran, then its stable ratios are the medians of the per-round ratios against the bare server and Express', () => {
  const hold = summariseHoldRounds(50, 4, [
    holdRound([1000, 30], [2000, 20], [1000, 60]), // 0.5×, 1.5×; 1.0×
    holdRound([1500, 30], [2000, 30], [1000, 60]), // 0.75×, 1.0×; 1.5×
    holdRound([1200, 40], [2000, 20], [1000, 60]), // 0.6×, 2.0×; 1.2×
  ]);
  const json = JSON.parse(JSON.stringify(benchJson({ ...emptyReport(), holdPath: hold }))) as unknown;
  expect(at(json, 'holdPath.ratios.holdfastVsBareNodeThroughput')).toBe(0.6);
  expect(at(json, 'holdPath.ratios.holdfastVsBareNodeP99')).toBe(1.5);
  expect(at(json, 'holdPath.ratios.holdfastVsExpressThroughput')).toBe(1.2);
  expect(at(json, 'holdPath.ratios.holdfastVsBareNodeCpuPerRequest')).toBe(3);
  expect(at(json, 'holdPath.bareNode.okPerSec')).toBe(2000);
  expect(at(json, 'raceLab.holdfastVsSkipLocked')).toBeNull();
});

test('when the rounds read every process\'s CPU, then each server\'s is the median of its rounds, and the report gives the machine\'s ceiling', () => {
  const cpu = (server: number, redis: number, machine: number): MachineCpuPerRequest => ({ server, redis, postgres: 0.01, client: 0.03, machine });
  const withCpu = (round: HoldRound, holdfast: MachineCpuPerRequest, bare: MachineCpuPerRequest): HoldRound => ({
    ...round, cpuByProcess: { minimalExpress: cpu(0.15, 0.01, 0.2), bareNode: bare, holdfastApi: holdfast, holdfastMultiSeat: null },
  });
  const hold = summariseHoldRounds(50, 4, [
    withCpu(holdRound([1000, 30], [2000, 20], [1000, 60]), cpu(0.1, 0.04, 0.2), cpu(0.04, 0.01, 0.1)), // machine 2.0×
    withCpu(holdRound([1000, 30], [2000, 20], [1000, 60]), cpu(0.08, 0.05, 0.15), cpu(0.04, 0.01, 0.05)), // 3.0×
    withCpu(holdRound([1000, 30], [2000, 20], [1000, 60]), cpu(0.09, 0.03, 0.25), cpu(0.04, 0.01, 0.1)), // 2.5×
  ]);
  expect(hold.cpuByProcess?.holdfastApi).toEqual({ server: 0.09, redis: 0.04, postgres: 0.01, client: 0.03, machine: 0.2 });
  expect(hold.cpuByProcess?.bareNode?.machine).toBe(0.1);
  expect(hold.cpuByProcess?.holdfastMultiSeat).toBeNull();
  expect(hold.ratios.holdfastVsBareNodeMachineCpuPerRequest).toBe(2.5);
  const markdown = renderMarkdown({ ...emptyReport(), meta: { cpus: 2, loadAverageAtStart: [0], loadAverageAtEnd: [0] } as unknown as BenchReport['meta'], holdPath: hold });
  // holdfast's processes: 0.09 + 0.04 + 0.01 + 0.03 = 0.17 ms a hold, 2 cores ÷ 0.17 ms = 11,765 holds a second at most;
  // the bare server's 0.04 + 0.01 + 0.01 + 0.03 = 0.09 ms, 22,222.
  expect(markdown).toMatch(/\| holdfast, one seat a hold +\| +0\.09 \| +0\.04 \| +0\.01 \| +0\.03 \| +0\.17 \| +0\.2 \| +11,765 \|/);
  expect(markdown).toMatch(/\| bare `node:http` +\|.*\| +0\.09 \| +0\.1 \| +22,222 \|/);
  expect(markdown).toContain('the whole machine\'s CPU per request: 2.50×');
  // The rest of holdfast's work is 0.17 − 0.09 = 0.08 ms; with the bare server's 0.04 ms: 0.12 ms, 16,667 holds/s, 0.09 ÷ 0.12 = 0.75×.
  expect(markdown).toContain('would still cap it at 16,667 holds/s on 2 cores: 0.75× the bare server\'s ceiling');
});

test('when the race lab ran, then holdfast is compared with SKIP LOCKED by purchases per second; null when either did not run', () => {
  const result = (id: string, purchasesPerSec: number, skipped: string | null = null) =>
    ({ id, purchasesPerSec, attemptsPerSec: purchasesPerSec * 3, skipped }) as StrategyResult;
  expect(holdfastVsSkipLocked({ results: [result('skip-locked', 400), result('holdfast', 300), result('select-for-update', 100)] })).toBe(0.75);
  expect(holdfastVsSkipLocked({ results: [result('skip-locked', 400), result('holdfast', 0, 'no confirm endpoint')] })).toBeNull();
  expect(holdfastVsSkipLocked({ results: [result('holdfast', 300)] })).toBeNull();
});

test('when the race lab ran SKIP LOCKED and holdfast in pairs, then the stable ratio is the median of the per-pair ratios, not one sale\'s', () => {
  const result = (id: string, purchasesPerSec: number) => ({ id, purchasesPerSec, attemptsPerSec: purchasesPerSec * 3, skipped: null }) as StrategyResult;
  const round = (n: number, skip: number, holdfast: number): PairedSale => ({
    round: n, first: n % 2 === 1 ? 'baseline' : 'contender', baseline: result('skip-locked', skip), contender: result('holdfast', holdfast), ratio: holdfast / skip,
  });
  const rounds = [round(1, 2000, 1600), round(2, 2000, 2200), round(3, 2000, 1900)]; // 0.8×, 1.1×, 0.95×
  const pairs: RacePairsReport = {
    baseline: 'skip-locked', contender: 'holdfast', rounds, ratio: ratioSpread(rounds.map((r) => r.ratio)), medianRound: 3, warmUp: { baseline: null, contender: null },
  };
  // The table's rows: one sale each (here not the median pair's, so that a ratio taken from them shows).
  const lab: RaceLabReport = { sale: { buyers: 4000, tickets: 1500, concurrency: 50, priceCents: 5000 }, results: [result('skip-locked', 400), result('holdfast', 300)], pairs };
  expect(holdfastVsSkipLocked(lab)).toBe(0.95);
  const json = JSON.parse(JSON.stringify(benchJson({ ...emptyReport(), raceLab: lab }))) as unknown;
  expect(at(json, 'raceLab.holdfastVsSkipLocked')).toBe(0.95);
  expect(at(json, 'raceLab.pairs.ratio')).toEqual({ values: [0.8, 1.1, 0.95], median: 0.95, min: 0.8, max: 1.1 });
  expect((at(json, 'raceLab.pairs.rounds') as unknown[]).length).toBe(3);
  // Pairs of other strategies say nothing about holdfast against SKIP LOCKED.
  expect(holdfastVsSkipLocked({ ...lab, pairs: { ...pairs, contender: 'contender' } })).toBeNull();
});

test('when confirm rounds ran, then the batch ratio is the median over the rounds that had a batch-shaped pgbench', () => {
  const round = (confirmsPerSec: number, batch: number | null): ConfirmRound => ({
    pgbench: { tps: 1000 } as PgbenchResult,
    holdfastApi: { confirms: load(confirmsPerSec, 10) } as ConfirmRun,
    ...(batch === null ? {} : { pgbenchBatch: { confirmsPerSec: batch } as PgbenchResult }),
  });
  expect(holdfastVsPgbenchBatch([round(500, 1000), round(800, 1000), round(600, 1000), round(900, null)])).toBe(0.6);
  expect(holdfastVsPgbenchBatch([round(500, null)])).toBeNull();
});
