import { Client } from 'pg';

import { benchPlan } from '../src/bench-plan.config';
import type { BenchReport } from '../src/bench-report.types';
import { persistSection, type PersistReport } from '../src/holdfast/holdfast-persist.bench';
import { openHoldfastFixture, type HoldfastFixture } from '../src/holdfast/holdfast.fixture';
import { renderMarkdown } from '../src/report/bench-report.format';

// The fixture on the test database and Redis of this run (not the bench's own).
process.env.BENCH_API_DATABASE_URL = process.env.DATABASE_URL;
process.env.BENCH_API_REDIS_URL = process.env.REDIS_URL;

const HOLDS = 240;
const SCHEMA = `bench_pgbench_persist_test_${process.pid}`;

describe('persist section (holds drained from the outboxes into the real PostgreSQL)', () => {
  let fixture: HoldfastFixture;
  let report: PersistReport;

  beforeAll(async () => {
    fixture = await openHoldfastFixture();
    report = await persistSection(fixture, {
      holds: HOLDS, concurrency: 8, rounds: 1, pgbenchRows: 1000, pgbenchSchema: SCHEMA,
      setups: [
        { name: 'one event, one drainer', events: 1, drainers: 1, expiryJobs: true },
        { name: 'three events, two drainers, rows only', events: 3, drainers: 2, expiryJobs: false },
      ],
    }, () => undefined);
  }, 120_000);

  afterAll(async () => {
    await fixture.close();
  });

  it('when the holds wait in the outboxes and the drainers run, then every hold is a row and every outbox is empty', () => {
    expect(report.runs.map((r) => r.setup)).toEqual(['one event, one drainer', 'three events, two drainers, rows only']);
    for (const run of report.runs) {
      expect(run.outboxAtStart).toBe(HOLDS);
      expect(run.rowsInPostgres).toBe(HOLDS);
      expect(run.outboxLeft).toBe(0);
      expect(run.persistedPerSec).toBeGreaterThan(0);
    }
  });

  it('when a setup schedules expiry jobs as the API does, then each persisted hold is named by one (one job per batch, fewer than holds), and none without', () => {
    expect(report.runs[0]?.holdsInExpiryJobs).toBe(HOLDS);
    expect(report.runs[0]?.expiryJobsScheduled).toBeGreaterThan(0);
    expect(report.runs[0]?.expiryJobsScheduled).toBeLessThan(HOLDS);
    expect(report.runs[1]?.expiryJobsScheduled).toBe(0);
    expect(report.runs[1]?.holdsInExpiryJobs).toBe(0);
  });

  it('when pgbench runs the persister statement, then it commits every row with each drainer count, and drops its schema', async () => {
    expect(report.pgbench.map((p) => p.clients)).toEqual([1, 2]);
    for (const p of report.pgbench) {
      expect(p.failed).toBe(0);
      expect(p.rowsCommitted).toBe(p.transactions * report.batch);
      expect(p.rowsCommitted).toBeGreaterThanOrEqual(1000);
    }
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const found = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [SCHEMA]);
      expect(found.rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('when the section is in a report, then the Markdown has its table with each setup', () => {
    const bench = {
      meta: {
        mode: 'quick', startedAt: '', finishedAt: '', durationSec: 0, gitCommit: null, node: process.version, cpus: 2, cpuModel: 'test',
        loadAverageAtStart: [0, 0, 0], loadAverageAtEnd: [0, 0, 0], postgres: 'test', redis: 'test', databaseUrl: '', redisUrl: '',
        holdfastRedisUrl: '',
      },
      plan: benchPlan(true), raceLab: null, holdPath: null, growth: null, confirmPath: null, best: null, persist: report,
    } satisfies BenchReport;
    const markdown = renderMarkdown(bench);
    expect(markdown).toContain(`## Holds persisted per second by one PostgreSQL primary: ${HOLDS} holds per setup`);
    expect(markdown).toContain('| one event, one drainer');
    expect(markdown).toContain('| three events, two drainers, rows only');
  });
});
