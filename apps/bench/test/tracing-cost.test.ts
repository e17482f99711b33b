// `--tracing both`: the last table sets the two runs' holdfast numbers side by side.
import type { RedisBenchmarkResult } from '../src/baselines/redis-benchmark.runner';
import type { BenchReport, HoldRound } from '../src/bench-report.types';
import { benchPlan } from '../src/bench-plan.config';
import { summariseHoldRounds } from '../src/bench.runner';
import type { HttpLoadResult } from '../src/http-load.generator';
import type { LatencySummary } from '../src/latency.histogram';
import type { StrategyResult } from '../src/race-lab.runner';
import { renderTracingCost } from '../src/report/tracing-cost.format';

const latency = (p99Ms: number): LatencySummary => ({ count: 1, minMs: 1, meanMs: 1, p50Ms: 1, p90Ms: 1, p99Ms, maxMs: p99Ms });
const load = (okPerSec: number, p99Ms: number): HttpLoadResult => ({
  requests: 1000, ok: 1000, failed: 0, errors: 0, statusCounts: { 201: 1000 }, failureSamples: [], durationMs: 1000,
  okPerSec, requestsPerSec: okPerSec, stoppedBy: 'count', latency: latency(p99Ms), okLatency: latency(p99Ms),
});
const rb = { command: 'SET', requests: 1, concurrency: 50, requestsPerSec: 40_000, avgMs: 1, p50Ms: 1, p95Ms: 1, p99Ms: 2 } as RedisBenchmarkResult;
const holdRound = (holds: number, p99: number, cpu: number): HoldRound => ({
  redisBenchmark: rb, minimalExpress: load(1000, 50), bareNode: load(4000, 20), holdfastApi: load(holds, p99),
  expressCpuMsPerRequest: 0.4, bareNodeCpuMsPerRequest: 0.1, holdfastCpuMsPerRequest: cpu,
});
const lab = (attemptsPerSec: number, p99Ms: number) => ({ sale: {}, results: [{ id: 'holdfast', skipped: null, attemptsPerSec, latency: latency(p99Ms) } as StrategyResult] });

function report(holds: number, p99: number, cpu: number, attempts: number, exportRequests: number): BenchReport {
  return {
    meta: { tracing: { on: exportRequests > 0, exportRequests } } as BenchReport['meta'], plan: benchPlan(true),
    raceLab: lab(attempts, p99 * 2) as BenchReport['raceLab'], holdPath: summariseHoldRounds(50, 4, [holdRound(holds, p99, cpu)]),
    growth: null, confirmPath: null, best: null,
  };
}

const row = (table: string, label: string) => table.split('\n').find((l) => l.startsWith(`| ${label} `))?.split('|').slice(2, 5).map((c) => c.trim());

test('when both runs have the hold path and the race lab, then each holdfast number is shown off, on and as on ÷ off', () => {
  const table = renderTracingCost(report(2000, 40, 0.5, 900, 0), report(1600, 50, 0.6, 800, 42));
  expect(table).toContain('exported 42 OTLP requests');
  expect(row(table, 'hold path: holds/s')).toEqual(['2,000', '1,600', '0.80×']);
  expect(row(table, 'hold path: p99 ms')).toEqual(['40', '50', '1.25×']);
  expect(row(table, 'hold path: API CPU ms a hold')).toEqual(['0.5', '0.6', '1.20×']);
  expect(row(table, 'hold path ÷ bare node:http, throughput (same rounds)')).toEqual(['0.5', '0.4', '0.80×']);
  expect(row(table, 'hold path ÷ minimal Express, server CPU a request (same rounds)')).toEqual(['1.25', '1.5', '1.20×']);
  expect(row(table, 'race lab: purchase attempts/s')).toEqual(['900', '800', '0.89×']);
});

test('when neither run has holdfast numbers, then the table says which sections to run', () => {
  const empty = { ...report(1, 1, 1, 1, 0), holdPath: null, raceLab: null };
  expect(renderTracingCost(empty, empty)).toContain('run `--only hold` or `--only race`');
});
