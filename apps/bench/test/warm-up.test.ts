// The race lab warms holdfast's API up with sales until V8 has settled: until a
// sale's CPU per request no longer falls below the best before it. The confirm
// and hold sections warm their servers up by the same rule (warm-up.rounds.ts).
import { launchBaseline } from '../src/baselines/baseline-servers';
import { deleteKeys } from '../src/bench-redis.service';
import { warmUpSettled } from '../src/strategies/holdfast-hold-confirm.strategy';
import type { BenchReport, HoldRound } from '../src/bench-report.types';
import { benchPlan } from '../src/bench-plan.config';
import { summariseHoldRounds } from '../src/bench.runner';
import { runHttpLoad } from '../src/http-load.generator';
import { renderMarkdown } from '../src/report/bench-report.format';
import { cpuPerRequest, warmUpRounds } from '../src/warm-up.rounds';

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

test('when a baseline server is warmed up, then the rounds stop at the first one whose CPU per request no longer falls, or at the most, each round\'s CPU recorded', async () => {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench:test:warm:${process.pid}:${Date.now()}:`;
  const bare = await launchBaseline('bareNode', { BENCH_REDIS_URL: redisUrl, BENCH_KEY_PREFIX: prefix });
  let sent = 0;
  try {
    const cpu = await warmUpRounds(4, (round) => cpuPerRequest(bare.pid, async () => {
      const load = await runHttpLoad({
        baseUrl: bare.baseUrl, concurrency: 20, maxRequests: 1000, maxDurationMs: 30_000,
        makeRequest: (index) => ({ method: 'POST', path: '/hold', body: JSON.stringify({ seatId: `r${round}-${index}`, customerId: 'c' }) }),
      });
      sent += load.ok;
      return load;
    }));
    expect(cpu.length).toBeGreaterThanOrEqual(1);
    expect(cpu.length).toBeLessThanOrEqual(4);
    expect(sent).toBe(cpu.length * 1000);
    const known = cpu.map((ms) => {
      expect(ms).not.toBeNull(); // Linux: /proc/<pid>/stat
      return ms!;
    });
    for (let rounds = 1; rounds < known.length; rounds += 1) expect(warmUpSettled(known.slice(0, rounds))).toBe(false);
    if (known.length < 4) expect(warmUpSettled(known)).toBe(true);
  } finally {
    await bare.stop();
    await deleteKeys(redisUrl, `${prefix}*`);
  }
}, 60_000);

test('when the hold path warmed its servers up before the clock, then its report says how, and each server\'s CPU per request in each round', () => {
  const bench = {
    meta: { mode: 'quick', loadAverageAtStart: [0, 0, 0], loadAverageAtEnd: [0, 0, 0] } as unknown as BenchReport['meta'],
    plan: benchPlan(true), raceLab: null, growth: null, best: null, confirmPath: null,
    holdPath: {
      ...summariseHoldRounds(50, 4, [] as HoldRound[]),
      warmUp: {
        requestsPerRound: 3500, maxRounds: 6,
        minimalExpress: { rounds: 3, cpuMsPerRequest: [0.43, 0.25, 0.24] },
        bareNode: { rounds: 4, cpuMsPerRequest: [0.14, 0.057, 0.031, 0.034] },
        holdfastApi: { rounds: 2, cpuMsPerRequest: [0.28, 0.27], multiSeatHold: 4, firstHoldsOnMeasuredEvents: 2 },
      },
    },
  } as BenchReport;
  expect(renderMarkdown(bench)).toContain(
    'Before the clock, every HTTP server alike (not measured): warm-up rounds of 3,500 requests at 50 concurrent clients until the server\'s CPU per request ' +
      'stopped falling (at most 6); rounds and CPU per request in each: minimal Express 3 (0.43 ms, 0.25 ms, 0.24 ms), ' +
      'bare node 4 (0.14 ms, 0.057 ms, 0.031 ms, 0.034 ms), holdfast 2 (0.28 ms, 0.27 ms); each holdfast round then held 4 seats a request as many times, as its measured rounds do; ' +
      'then one hold on each of the 2 events the clock measures (an event\'s first hold loads its seat catalog, once per process).',
  );
});
