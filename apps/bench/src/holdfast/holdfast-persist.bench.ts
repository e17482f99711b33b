/**
 * The `persist` section: holds persisted per second by one PostgreSQL primary
 * (docs/scaling.md, "Beyond one PostgreSQL primary"). N holds are taken through
 * the real hold path (createHold: the hold script appends each hold to its
 * event's outbox) with the outbox drainer paused; then the API's own drainer
 * (the HoldPersister of a domain context built as the API builds it, one
 * consumer of the outbox group each, its expiry jobs scheduled in BullMQ unless
 * told otherwise) drains every outbox, timed until each outbox is empty and
 * every row is in PostgreSQL. Several drainers side by side are several
 * consumers of each outbox draining several events at once, as several API
 * processes do, but in this one Node process (they share its event loop).
 *
 * Next to it, pgbench runs the same statement shape (one multi-row INSERT of
 * the persister's batch size into a copy of the holds table, ON CONFLICT DO
 * NOTHING) with as many clients as drainers: the primary's own limit for it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { createDomain, createHold, HoldPersister, silentLogger, type DomainContext } from '@holdfast/domain';
import { HoldStore } from '@holdfast/hold-store';
import { redisOptionsFromUrl, scheduleExpiries } from '@holdfast/jobs';
import { Queue } from 'bullmq';
import { Client } from 'pg';

import { assertIdentifier, databaseName, dropSchema, retryWhileTooManyClients } from '../bench-database.service';
import { round3 } from '../latency.histogram';
import { markdownTable, type Cell } from '../report/markdown-table.format';
import type { BenchEvent, HoldfastFixture } from './holdfast.fixture';

const run = promisify(execFile);

/** The persister's batch (HoldPersister.drain claims up to 500 entries a statement). */
const PERSIST_BATCH = 500;

interface PersistSetup {
  name: string;
  events: number;
  /** HoldPersisters draining side by side (one per API process). */
  drainers: number;
  /** Whether each batch also schedules its holds' expiry jobs, as the API does. */
  expiryJobs: boolean;
}

const PERSIST_SETUPS: PersistSetup[] = [
  { name: '1 event, 1 drainer (as one API process)', events: 1, drainers: 1, expiryJobs: true },
  { name: '1 event, 1 drainer, rows only (no expiry jobs)', events: 1, drainers: 1, expiryJobs: false },
  { name: '4 events, 4 drainers side by side (one process)', events: 4, drainers: 4, expiryJobs: true },
];

interface PersistRun {
  setup: string;
  events: number;
  drainers: number;
  expiryJobs: boolean;
  holds: number;
  /** Holds taken per second in-process (the outboxes filling, nothing drained). */
  takenPerSec: number;
  /** Entries in the outboxes when draining began. */
  outboxAtStart: number;
  persistSec: number;
  persistedPerSec: number;
  /** Checks after the drain: hold rows of the events in PostgreSQL, entries left in their outboxes. */
  rowsInPostgres: number;
  outboxLeft: number;
  /** Delayed expiry jobs in the queue after the drain (one per persisted batch). */
  expiryJobsScheduled: number;
  /** Holds those jobs name (the holds' count when expiryJobs, else 0). */
  holdsInExpiryJobs: number;
}

interface PersistPgbench {
  clients: number;
  rowsPerTransaction: number;
  transactions: number;
  failed: number;
  tps: number;
  rowsPerSec: number;
  rowsCommitted: number;
}

export interface PersistReport {
  holds: number;
  concurrency: number;
  rounds: number;
  batch: number;
  runs: PersistRun[];
  pgbench: PersistPgbench[];
}

interface PersistOptions {
  holds: number;
  /** Holds taken at once while filling the outboxes. */
  concurrency: number;
  rounds: number;
  setups?: PersistSetup[];
  /** Rows pgbench inserts per client count (default: 5 × the holds, at least 100,000, so it runs long enough to time). */
  pgbenchRows?: number;
  /** Schema for pgbench's copy of the holds table (dropped at the end). */
  pgbenchSchema?: string;
}

/** Every setup once a round, then pgbench with each drainer count, rounds interleaved. */
export async function persistSection(fixture: HoldfastFixture, options: PersistOptions, log: (line: string) => void): Promise<PersistReport> {
  const setups = options.setups ?? PERSIST_SETUPS;
  const runs: PersistRun[] = [];
  const pgbench: PersistPgbench[] = [];
  let items = '[]';
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const setup of setups) {
      log(`persist round ${round}/${options.rounds}: ${setup.name}, ${options.holds} holds`);
      const result = await measurePersist(fixture, setup, options, (sample) => (items = sample));
      log(`  taken ${Math.round(result.takenPerSec)}/s; persisted ${Math.round(result.persistedPerSec)}/s (${result.rowsInPostgres} rows, ${result.outboxLeft} left in the outboxes)`);
      runs.push(result);
    }
    for (const clients of [...new Set(setups.map((s) => s.drainers))]) {
      const result = await retryWhileTooManyClients(
        () => runPersistPgbench({ databaseUrl: fixture.databaseUrl, clients, rows: options.pgbenchRows ?? Math.max(options.holds * 5, 100_000), items, schema: options.pgbenchSchema }),
        90_000,
        () => log('  PostgreSQL has no free connection slot (shared server); waiting'),
      );
      log(`  pgbench, ${clients} client(s), ${PERSIST_BATCH} rows a statement: ${Math.round(result.rowsPerSec)} rows/s`);
      pgbench.push(result);
    }
  }
  return { holds: options.holds, concurrency: options.concurrency, rounds: options.rounds, batch: PERSIST_BATCH, runs, pgbench };
}

async function measurePersist(
  fixture: HoldfastFixture, setup: PersistSetup, options: PersistOptions, sampleItems: (json: string) => void,
): Promise<PersistRun> {
  const perEvent = Math.ceil(options.holds / setup.events);
  const events: BenchEvent[] = [];
  const queue = new Queue(`bench-persist-expiry-${process.pid}`, { connection: redisOptionsFromUrl(fixture.redisUrl) });
  const store = new HoldStore(fixture.redis);
  // Holds are taken with a drainer that never runs (an hour's delay): the outboxes only fill.
  const paused = new HoldPersister(fixture.db, store, silentLogger, 3_600_000);
  const taker: DomainContext = { ...fixture.ctx, persister: paused };
  const drainers = Array.from({ length: setup.drainers }, () => createDomain({
    db: fixture.db, store, settings: fixture.ctx.settings,
    onHoldsPersisted: setup.expiryJobs ? (rows) => scheduleExpiries(queue, rows) : undefined,
  }));
  try {
    for (let i = 0; i < setup.events; i += 1) {
      events.push(await fixture.createEvent({ name: `bench persist ${i + 1}`, seats: 0, ticketCapacity: perEvent, maxTicketsPerCustomer: 1 }));
    }
    const t0 = performance.now();
    let next = 0;
    const takeOne = async (): Promise<void> => {
      for (let index = next++; index < options.holds; index = next++) {
        const event = events[index % events.length]!;
        await createHold(taker, {
          eventId: event.eventId, customerId: `persist-${process.pid}-${index}`,
          selector: { kind: 'tickets', ticketTypeId: event.ticketTypeId!, quantity: 1 },
        });
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, takeOne));
    const takenSec = (performance.now() - t0) / 1000;
    paused.stop();
    const ids = events.map((e) => e.eventId);
    const outboxAtStart = await outboxTotal(store, ids);

    const t1 = performance.now();
    const deadline = Date.now() + 600_000;
    // Each drainer drains every event (the consumer group shares the entries out), as the API processes do.
    while ((await outboxTotal(store, ids)) > 0 && Date.now() < deadline) {
      await Promise.all(drainers.map((ctx) => ctx.persister.flush(ids)));
    }
    const persistSec = (performance.now() - t1) / 1000;

    const rows = await fixture.db.$queryRawUnsafe<{ n: bigint; items: unknown }[]>(
      'SELECT count(*) AS n, (array_agg(items))[1] AS items FROM holds WHERE event_id = ANY($1::uuid[])', ids,
    );
    const rowsInPostgres = Number(rows[0]?.n ?? 0);
    if (rows[0]?.items) sampleItems(JSON.stringify(rows[0].items));
    return {
      setup: setup.name, events: setup.events, drainers: setup.drainers, expiryJobs: setup.expiryJobs, holds: options.holds,
      takenPerSec: round3(options.holds / takenSec), outboxAtStart,
      persistSec: round3(persistSec), persistedPerSec: round3(rowsInPostgres / persistSec),
      rowsInPostgres, outboxLeft: await outboxTotal(store, ids), ...(await expiryJobsIn(queue)),
    };
  } finally {
    paused.stop();
    for (const ctx of drainers) ctx.persister.stop();
    for (const event of events) await fixture.dropEvent(event.eventId);
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  }
}

async function outboxTotal(store: HoldStore, eventIds: string[]): Promise<number> {
  let total = 0;
  for (const id of eventIds) total += await store.outboxLength(id);
  return total;
}

/** The persister's statement for pgbench: PERSIST_BATCH hold rows in one INSERT … ON CONFLICT (id) DO NOTHING. */
function persistScript(items: string): string {
  const json = items.replace(/'/g, "''");
  return `INSERT INTO pgb_hold (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
SELECT 'hld_' || md5(n::text) || '_' || left(md5('x' || n::text), 24), '00000000-0000-4000-8000-000000000001'::uuid,
       'customer-' || n, 'ACTIVE', now(), now() + interval '10 minutes', '${json}'::jsonb, 5000, 'USD'
FROM (SELECT nextval('pgb_hold_id') AS n FROM generate_series(1, ${PERSIST_BATCH})) AS s
ON CONFLICT (id) DO NOTHING;
`;
}

async function runPersistPgbench(options: { databaseUrl: string; clients: number; rows: number; items: string; schema?: string }): Promise<PersistPgbench> {
  const schema = options.schema ?? 'bench_pgbench_persist';
  assertIdentifier(schema);
  const perClient = Math.max(1, Math.ceil(options.rows / (PERSIST_BATCH * options.clients)));
  const client = new Client({ connectionString: options.databaseUrl });
  await client.connect();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'holdfast-pgbench-persist-'));
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.query(`CREATE SCHEMA ${schema}`);
    // The holds table as the migrations made it (columns, defaults, checks, indexes), without its foreign keys.
    await client.query(`CREATE TABLE ${schema}.pgb_hold (LIKE public.holds INCLUDING ALL)`);
    await client.query(`CREATE SEQUENCE ${schema}.pgb_hold_id`);
    const scriptFile = path.join(dir, 'persist.sql');
    await writeFile(scriptFile, persistScript(options.items));
    const url = new URL(options.databaseUrl);
    const { stdout } = await run('pgbench', [
      '-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres'),
      '-n', '-f', scriptFile, '-c', String(options.clients), '-j', String(Math.min(options.clients, os.cpus().length)),
      '-t', String(perClient), databaseName(options.databaseUrl),
    ], {
      cwd: dir, timeout: 600_000, maxBuffer: 1 << 24,
      env: { ...process.env, PGOPTIONS: `-c search_path=${schema},public`, PGPASSWORD: url.password || process.env.PGPASSWORD },
    }).catch((error: { stderr?: string; message: string }) => {
      throw new Error(`pgbench failed: ${error.message.split('\n')[0]}\n${(error.stderr ?? '').split('\n').slice(0, 4).join('\n')}`);
    });
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1] ?? NaN);
    if (Number.isNaN(tps)) throw new Error(`unexpected pgbench output:\n${stdout}`);
    const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
    const count = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.pgb_hold`);
    return {
      clients: options.clients, rowsPerTransaction: PERSIST_BATCH, transactions: perClient * options.clients, failed,
      tps: round3(tps), rowsPerSec: round3(tps * PERSIST_BATCH), rowsCommitted: Number(count.rows[0]?.n ?? 0),
    };
  } finally {
    await client.end();
    await dropSchema(options.databaseUrl, schema);
    await rm(dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (!sorted.length) return 0;
  return round3(sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2);
}

/** Medians per setup over the rounds, each against pgbench with as many clients as drainers. */
export function renderPersistSection(report: PersistReport | null | undefined): string[] {
  if (!report) return [];
  const names = [...new Set(report.runs.map((r) => r.setup))];
  return [
    '',
    `## Holds persisted per second by one PostgreSQL primary: ${report.holds} holds per setup, median of ${report.rounds} round(s)`,
    '',
    markdownTable(
      ['setup', 'holds taken/s (outbox filling)', 'persisted/s', 'rows in PostgreSQL', 'left in outboxes', `pgbench rows/s (${report.batch} a statement, same clients)`, 'vs pgbench'],
      names.map((name): Cell[] => {
        const rs = report.runs.filter((r) => r.setup === name);
        const drainers = rs[0]?.drainers ?? 1;
        const base = median(report.pgbench.filter((p) => p.clients === drainers).map((p) => p.rowsPerSec));
        const persisted = median(rs.map((r) => r.persistedPerSec));
        return [
          name, Math.round(median(rs.map((r) => r.takenPerSec))), Math.round(persisted),
          `${rs.reduce((t, r) => t + r.rowsInPostgres, 0)}/${rs.reduce((t, r) => t + r.holds, 0)}`,
          rs.reduce((t, r) => t + r.outboxLeft, 0),
          base ? Math.round(base) : null, base ? `${(persisted / base).toFixed(2)}×` : null,
        ];
      }),
    ),
  ];
}

/** The delayed expiry jobs after a drain, and how many holds they name. */
async function expiryJobsIn(queue: Queue): Promise<{ expiryJobsScheduled: number; holdsInExpiryJobs: number }> {
  const jobs = await queue.getDelayed(0, -1);
  const holds = jobs.reduce((n, job) => n + ((job.data as { holdIds?: string[] }).holdIds?.length ?? 1), 0);
  return { expiryJobsScheduled: jobs.length, holdsInExpiryJobs: holds };
}
