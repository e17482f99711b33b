// The race lab warms holdfast's API up with sales until V8 has settled: until a
// sale's CPU per request no longer falls below the best before it.
import { warmUpSettled } from '../src/strategies/holdfast-hold-confirm.strategy';
import type { BenchReport } from '../src/bench-report.types';
import { benchPlan } from '../src/bench-plan.config';
import { renderMarkdown } from '../src/report/bench-report.format';

test('when only one warm-up sale has run, then V8 is not taken to have settled', () => {
  expect(warmUpSettled([])).toBe(false);
  expect(warmUpSettled([0.2])).toBe(false);
});

test('when the last sale cost clearly less per request than every one before it, then the warm-up goes on', () => {
  expect(warmUpSettled([0.34, 0.25])).toBe(false);
  expect(warmUpSettled([0.34, 0.25, 0.2])).toBe(false);
  expect(warmUpSettled([0.3, 0.2, 0.25, 0.17])).toBe(false);
});

test('when the last sale cost about the best before it, or more, then V8 has settled', () => {
  expect(warmUpSettled([0.34, 0.2, 0.19])).toBe(true);
  expect(warmUpSettled([0.2, 0.2])).toBe(true);
  expect(warmUpSettled([0.34, 0.2, 0.25])).toBe(true);
  expect(warmUpSettled([0.2, 0.185], 0.08)).toBe(true);
  expect(warmUpSettled([0.2, 0.183], 0.08)).toBe(false);
});

test('when the confirm section warmed both sides up before the clock, then its report says how, and the API\'s CPU per confirm in each round', () => {
  const bench = {
    meta: { mode: 'quick', loadAverageAtStart: [0, 0, 0], loadAverageAtEnd: [0, 0, 0] } as unknown as BenchReport['meta'],
    plan: benchPlan(true), raceLab: null, holdPath: null, growth: null, best: null,
    confirmPath: {
      concurrency: 50, rounds: [],
      pgbench: { requests: 0, failed: 0, okPerSec: 0, p50Ms: 0, p99Ms: 0, serverCpuMsPerRequest: null },
      holdfastApi: { skipped: 'not run' }, holdfastVsPgbench: null, byBuyers: { skipped: 'not run' },
      warmUp: { rounds: 3, confirms: 1000, apiCpuMsPerConfirm: [0.63, 0.31, 0.3], pgbenchBatchRuns: 1 },
    },
  } as BenchReport;
  expect(renderMarkdown(bench)).toContain(
    'Before the clock, both sides alike (not measured): 3 warm-up round(s) of 1,000 confirms through the API, its CPU per confirm in each: ' +
      '0.63 ms, 0.31 ms, 0.3 ms (they stop once it no longer falls); then 1 run(s) of pgbench\'s batch script.',
  );
});
