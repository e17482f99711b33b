import { Client } from 'pg';

import { benchDatabaseUrl, databaseName, ensureDatabase } from '../src/bench-database.service';
import { benchPlan } from '../src/bench-plan.config';
import type { BenchReport } from '../src/bench-report.types';
import { findPostmasterPid } from '../src/machine-cpu.probe';
import { pairRatio, ratioSpread, runRaceLab, type RaceLabReport, type RacePairsReport, type StrategyResult } from '../src/race-lab.runner';
import type { SaleStrategy } from '../src/race-lab.types';
import { renderMarkdown, renderSvg } from '../src/report/bench-report.format';
import {
  optimisticVersionStrategy,
  readThenWriteStrategy,
  selectForUpdateStrategy,
  skipLockedStrategy,
} from '../src/strategies';

const schema = `bench_test_${process.pid}`;
const sale = { buyers: 60, tickets: 20, concurrency: 6, priceCents: 5000 };
const PAIRS = 3;

/**
 * SKIP LOCKED under another id, with a warm-up and a settling step of its own (as holdfast has):
 * the paired runs' contender here, the API not being started in this test.
 */
function contender(): { strategy: SaleStrategy; calls: { warmUps: number; settles: number } } {
  const calls = { warmUps: 0, settles: 0 };
  const strategy: SaleStrategy = {
    ...skipLockedStrategy(),
    id: 'contender',
    title: 'contender: SKIP LOCKED again',
    async warmUp() {
      calls.warmUps += 1;
      return { sales: 1, apiCpuMsPerRequest: [0.1] };
    },
    async settle() {
      calls.settles += 1;
    },
  };
  return { strategy, calls };
}

describe('race lab (tiny flash sale against the real PostgreSQL)', () => {
  let report: RaceLabReport;
  let pairs: RacePairsReport;
  let contenderCalls: { warmUps: number; settles: number };
  const paired = (): StrategyResult[] => pairs.rounds.flatMap((p) => [p.baseline, p.contender]);

  beforeAll(async () => {
    await ensureDatabase(benchDatabaseUrl());
    const postmasterPid = await findPostmasterPid();
    const { strategy, calls } = contender();
    contenderCalls = calls;
    report = await runRaceLab({
      databaseUrl: benchDatabaseUrl(),
      schema,
      sale,
      strategies: [readThenWriteStrategy(), selectForUpdateStrategy(), optimisticVersionStrategy({ maxAttempts: 3 })],
      paired: { baseline: skipLockedStrategy(), contender: strategy, pairs: PAIRS },
      processesOf: () => ({ serverPid: null, redisPid: null, postmasterPid, postgresDatabases: [databaseName(benchDatabaseUrl())] }),
    });
    pairs = report.pairs!;
  });

  it('when the lab ran, then every strategy and every paired sale is reported with the same shape', () => {
    expect(report.sale).toEqual(sale);
    expect(report.results.map((r) => r.id)).toEqual([
      'read-then-write',
      'select-for-update',
      'optimistic-version',
      'skip-locked',
      'contender',
    ]);
    for (const result of [...report.results, ...paired()]) {
      expect(result).toEqual(
        expect.objectContaining({
          skipped: null,
          buyers: sale.buyers,
          tickets: sale.tickets,
          concurrency: sale.concurrency,
          sold: expect.any(Number),
          oversold: expect.any(Number),
          refusedSoldOut: expect.any(Number),
          refusedGaveUp: expect.any(Number),
          wronglyRefused: expect.any(Number),
          attemptsPerSec: expect.any(Number),
          purchasesPerSec: expect.any(Number),
          latency: expect.objectContaining({ count: sale.buyers, p50Ms: expect.any(Number), p99Ms: expect.any(Number) }),
        }),
      );
      expect(result.oversold).toBe(Math.max(0, result.sold - sale.tickets));
      expect(result.latency.p99Ms).toBeGreaterThanOrEqual(result.latency.p50Ms);
    }
  });

  it('when a strategy is fenced, then none of its sales oversells and every buyer gets an answer', () => {
    const fenced = report.results.filter((r) => r.fenced);
    expect(fenced.map((r) => r.id)).toEqual(['select-for-update', 'optimistic-version', 'skip-locked', 'contender']);
    for (const result of [...fenced, ...paired()]) {
      expect(result.oversold).toBe(0);
      expect(result.sold).toBeLessThanOrEqual(sale.tickets);
      expect(result.errors).toBe(0);
      expect(result.counterSays).toBe(result.sold);
      expect(result.sold + result.refusedSoldOut + result.refusedGaveUp).toBe(sale.buyers);
    }
  });

  it('the locking strategies sell out exactly, since there are more buyers than tickets', () => {
    for (const id of ['select-for-update', 'skip-locked', 'contender']) {
      const result = report.results.find((r) => r.id === id);
      expect(result?.sold).toBe(sale.tickets);
      expect(result?.wronglyRefused).toBe(0);
    }
  });

  it('when two strategies are paired, then they run alternately, who goes first alternating, each sale on fresh tickets', () => {
    expect(pairs.baseline).toBe('skip-locked');
    expect(pairs.contender).toBe('contender');
    expect(pairs.rounds.map((p) => p.round)).toEqual([1, 2, 3]);
    expect(pairs.rounds.map((p) => p.first)).toEqual(['baseline', 'contender', 'baseline']);
    // Had a sale found the tickets the one before sold, it would have sold none.
    for (const p of pairs.rounds) {
      expect([p.baseline.id, p.contender.id]).toEqual(['skip-locked', 'contender']);
      expect([p.baseline.sold, p.contender.sold]).toEqual([sale.tickets, sale.tickets]);
    }
  });

  it('when the pairs ran, then each pair has its ratio, the lab their median and spread, and the table the median pair\'s sales', () => {
    for (const p of pairs.rounds) expect(p.ratio).toBe(pairRatio(p.baseline, p.contender));
    expect(pairs.ratio).toEqual(ratioSpread(pairs.rounds.map((p) => p.ratio)));
    expect(pairs.ratio.values).toHaveLength(PAIRS);
    const middle = pairs.rounds.find((p) => p.round === pairs.medianRound);
    expect(middle?.ratio).toBe(pairs.ratio.median);
    expect(report.results.slice(-2)).toEqual([middle!.baseline, middle!.contender]);
  });

  it('when two strategies are paired, then both warm up before the first pair: the contender once by its own warm-up, the baseline by sales of its own', () => {
    expect(contenderCalls.warmUps).toBe(1);
    expect(pairs.warmUp.contender).toEqual({ sales: 1, apiCpuMsPerRequest: [0.1] });
    expect(report.results.find((r) => r.id === 'contender')?.warmUp).toEqual({ sales: 1, apiCpuMsPerRequest: [0.1] });
    const baseline = pairs.warmUp.baseline as { sales: number; purchasesPerSec: number[]; cpuMsPerBuyer: Array<number | null> };
    expect(baseline.sales).toBeGreaterThanOrEqual(1);
    expect(baseline.sales).toBeLessThanOrEqual(4);
    expect(baseline.purchasesPerSec).toHaveLength(baseline.sales);
    expect(baseline.cpuMsPerBuyer).toHaveLength(baseline.sales);
    // The settling step runs after each of the contender's measured sales.
    expect(contenderCalls.settles).toBe(PAIRS);
  });

  it('when the processes of a sale are given, then every sale reads its CPU per buyer: PostgreSQL and the client, no server or Redis for SQL', () => {
    for (const result of [...report.results, ...paired()]) {
      expect(result.cpuPerBuyer).toEqual({
        server: null, redis: null, postgres: expect.any(Number), client: expect.any(Number), machine: expect.any(Number),
      });
    }
    expect(Object.keys(report.cpuByProcess ?? {}).sort()).toEqual(['contender', 'optimistic-version', 'read-then-write', 'select-for-update', 'skip-locked']);
    expect(report.cpuByProcess?.['read-then-write']).toEqual(report.results[0]!.cpuPerBuyer);
  });

  it('drops its schema afterwards', async () => {
    const client = new Client({ connectionString: benchDatabaseUrl() });
    await client.connect();
    try {
      const found = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
      expect(found.rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('renders the lab as a Markdown table and an SVG chart', () => {
    const bench: BenchReport = {
      meta: {
        mode: 'quick',
        startedAt: new Date().toISOString(),
        finishedAt: new Date().toISOString(),
        durationSec: 0,
        gitCommit: null,
        node: process.version,
        cpus: 2,
        cpuModel: 'test',
        loadAverageAtStart: [0, 0, 0],
        loadAverageAtEnd: [0, 0, 0],
        postgres: 'test',
        redis: 'test',
        databaseUrl: benchDatabaseUrl(),
        redisUrl: 'redis://127.0.0.1:6379',
        holdfastRedisUrl: 'redis://127.0.0.1:6379/12',
      },
      plan: benchPlan(true),
      raceLab: report,
      holdPath: null,
      growth: null,
      confirmPath: null,
      best: null,
    };
    const markdown = renderMarkdown(bench);
    expect(markdown).toContain('## Race lab: 60 buyers, 20 tickets, 6 concurrent clients');
    for (const result of report.results) expect(markdown).toContain(`| ${result.title}`);
    // The pairs: their median and spread, one row per pair, and the CPU a buyer cost each process.
    expect(markdown).toContain(`the median of ${PAIRS} pairs' ratios; spread`);
    expect(markdown).toMatch(/\| pair \| first +\| SKIP LOCKED purchases\/s \| contender purchases\/s \| contender ÷ SKIP LOCKED \|/);
    for (const p of pairs.rounds) expect(markdown).toMatch(new RegExp(`\\| +${p.round} \\| (SKIP LOCKED|contender) +\\|`));
    expect(markdown).toMatch(/\| strategy +\| API server \| Redis \| PostgreSQL \| client \(the bench\) \| sum of these \| whole machine \| ceiling from the sum, buyers\/s \| of the ceiling reached \|/);
    // A SQL strategy's row: no API server or Redis, PostgreSQL and the client read, the share of the ceiling in percent.
    expect(markdown).toMatch(/\| row per ticket, FOR UPDATE SKIP LOCKED +\| +– \| +– \| +[\d.]+ \| +[\d.]+ \| +[\d.]+ \| +[\d.]+ \| +[\d,]+ \| +\d+ % \|/);
    expect(markdown).toMatch(/\| contender ÷ SKIP LOCKED +\|/);
    const svg = renderSvg(bench);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('20 tickets');
  });
});
