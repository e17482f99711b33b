import { Client } from 'pg';

import { benchDatabaseUrl, ensureDatabase } from '../src/bench-database.service';
import { benchPlan } from '../src/bench-plan.config';
import type { BenchReport } from '../src/bench-report.types';
import { runRaceLab, type RaceLabReport } from '../src/race-lab.runner';
import { renderMarkdown, renderSvg } from '../src/report/bench-report.format';
import {
  optimisticVersionStrategy,
  readThenWriteStrategy,
  selectForUpdateStrategy,
  skipLockedStrategy,
} from '../src/strategies';

const schema = `bench_test_${process.pid}`;
const sale = { buyers: 60, tickets: 20, concurrency: 6, priceCents: 5000 };

describe('race lab (tiny flash sale against the real PostgreSQL)', () => {
  let report: RaceLabReport;

  beforeAll(async () => {
    await ensureDatabase(benchDatabaseUrl());
    report = await runRaceLab({
      databaseUrl: benchDatabaseUrl(),
      schema,
      sale,
      strategies: [
        readThenWriteStrategy(),
        selectForUpdateStrategy(),
        optimisticVersionStrategy({ maxAttempts: 3 }),
        skipLockedStrategy(),
      ],
    });
  });

  it('reports every strategy with the same shape', () => {
    expect(report.sale).toEqual(sale);
    expect(report.results.map((r) => r.id)).toEqual([
      'read-then-write',
      'select-for-update',
      'optimistic-version',
      'skip-locked',
    ]);
    for (const result of report.results) {
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
          latency: expect.objectContaining({ count: sale.buyers, p50Ms: expect.any(Number), p99Ms: expect.any(Number) }),
        }),
      );
      expect(result.oversold).toBe(Math.max(0, result.sold - sale.tickets));
      expect(result.latency.p99Ms).toBeGreaterThanOrEqual(result.latency.p50Ms);
    }
  });

  it('the fenced strategies oversell nothing, and every buyer gets an answer', () => {
    const fenced = report.results.filter((r) => r.fenced);
    expect(fenced.map((r) => r.id)).toEqual(['select-for-update', 'optimistic-version', 'skip-locked']);
    for (const result of fenced) {
      expect(result.oversold).toBe(0);
      expect(result.sold).toBeLessThanOrEqual(sale.tickets);
      expect(result.errors).toBe(0);
      expect(result.counterSays).toBe(result.sold);
      expect(result.sold + result.refusedSoldOut + result.refusedGaveUp).toBe(sale.buyers);
    }
  });

  it('the locking strategies sell out exactly, since there are more buyers than tickets', () => {
    for (const id of ['select-for-update', 'skip-locked']) {
      const result = report.results.find((r) => r.id === id);
      expect(result?.sold).toBe(sale.tickets);
      expect(result?.wronglyRefused).toBe(0);
    }
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
    const svg = renderSvg(bench);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('20 tickets');
  });
});
