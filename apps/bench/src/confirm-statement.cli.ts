/**
 * `npx tsx apps/bench/src/confirm-statement.cli.ts [--against MIGRATION] [--batch 24] [--batches 150] [--clients 1,4] [--rounds 4]`
 *
 * The confirm batch's statement alone (`holdfast_confirm_batch`, no HTTP, no Redis), this
 * checkout's function against the one an earlier migration defined, in one run on one
 * database. The earlier function is installed beside it as `holdfast_confirm_batch_base`
 * (from `--against`: a migration's folder name or path; the last migration before the newest
 * that defines the function, unless told). Each round gives both the same work, who goes
 * first alternating: a fresh event of batch × batches seats with a persisted hold on each
 * (as the outbox writes them), confirmed `batch` holds a statement by `clients` connections
 * at once, each like the one batch in flight of an API process. They share the year's
 * order-number row, held from numbering to COMMIT, as API processes do. Reports batches a
 * second and each statement's time from send to answer; checks every hold got one order
 * and the numbers have no duplicate.
 *
 * Needs BENCH_API_DATABASE_URL (a database of its own; migrated here) and BENCH_API_REDIS_URL.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { batchJson, type ConfirmBatchItem } from '@holdfast/db';

import { medianOf, round3 } from './latency.histogram';
import { openHoldfastFixture, type HoldfastFixture } from './holdfast/holdfast.fixture';

const MIGRATIONS = path.join(__dirname, '..', '..', '..', 'prisma', 'migrations');
const FUNCTION = 'holdfast_confirm_batch';

/** The migration the base function comes from: as told, or the last before the newest that defines it. */
function baseMigration(against: string | undefined): string {
  if (against) return against.endsWith('.sql') ? against : path.join(MIGRATIONS, path.basename(against), 'migration.sql');
  const defining = readdirSync(MIGRATIONS).filter((d) => /^\d{14}_/.test(d)).sort()
    .filter((d) => readFileSync(path.join(MIGRATIONS, d, 'migration.sql'), 'utf8').includes(`FUNCTION ${FUNCTION}(`));
  if (defining.length < 2) throw new Error('no earlier migration defines the function: give --against');
  return path.join(MIGRATIONS, defining[defining.length - 2]!, 'migration.sql');
}

/** The base function's CREATE statement, renamed. */
function baseFunctionSql(file: string): string {
  const sql = readFileSync(file, 'utf8');
  const start = sql.indexOf(`CREATE OR REPLACE FUNCTION ${FUNCTION}(`);
  if (start < 0) throw new Error(`${file} does not define ${FUNCTION}`);
  const end = sql.indexOf("\n';", start);
  if (end < 0) throw new Error(`${file}: the function's body does not end as a migration writes it`);
  return sql.slice(start, end + 3).replace(`FUNCTION ${FUNCTION}(`, `FUNCTION ${FUNCTION}_base(`);
}

interface Run {
  fn: 'base' | 'this';
  clients: number;
  batchesPerSec: number;
  confirmsPerSec: number;
  statementMsP50: number;
  statementMsMean: number;
}

/** The median of values that are never empty here. */
const median = (values: number[]): number => medianOf(values) ?? Number.NaN;

/** An event of `n` seats, each with a persisted ACTIVE hold (as the outbox writes one); the holds' ids. */
async function eventWithHolds(fixture: HoldfastFixture, pool: pg.Pool, n: number): Promise<{ eventId: string; holdIds: string[] }> {
  const event = await fixture.createEvent({ name: 'bench confirm statement', seats: n, maxTicketsPerCustomer: 10 });
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
     SELECT 'h_' || replace(gen_random_uuid()::text, '-', ''), s.event_id, 'buyer-' || s.id, 'ACTIVE', now(), now() + interval '10 minutes',
            jsonb_build_array(jsonb_build_object('seatId', s.id, 'label', s.label, 'tier', s.tier, 'priceCents', s.price_cents, 'quantity', 1)),
            s.price_cents, 'USD'
     FROM seats s WHERE s.event_id = $1 ORDER BY s.id
     RETURNING id`, [event.eventId]);
  await pool.query('VACUUM ANALYZE holds, seats, orders, order_items, payments, customer_sales');
  return { eventId: event.eventId, holdIds: rows.map((r) => r.id) };
}

function item(holdId: string, i: number): ConfirmBatchItem {
  return {
    holdId, year: null, held: true, claimUntil: null, provider: 'stripe', providerEventId: null, reference: `pi_bench_${i}`,
    amountCents: null, currency: null, auditActor: null, record: null,
  };
}

async function runOnce(fixture: HoldfastFixture, pool: pg.Pool, fn: 'base' | 'this', clients: number, batch: number, batches: number): Promise<Run> {
  const { eventId, holdIds } = await eventWithHolds(fixture, pool, batch * batches);
  try {
    const sql = `SELECT idx, kind FROM ${fn === 'base' ? `${FUNCTION}_base` : FUNCTION}($1::jsonb)`;
    const times: number[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: clients }, async () => {
      const conn = await pool.connect();
      try {
        for (let b = next++; b < batches; b = next++) {
          const items = holdIds.slice(b * batch, (b + 1) * batch).map((h, i) => item(h, b * batch + i));
          const s0 = performance.now();
          const { rows } = await conn.query<{ kind: string }>(sql, [batchJson(items)]);
          times.push(performance.now() - s0);
          if (rows.length !== items.length || rows.some((r) => r.kind !== 'created')) {
            throw new Error(`batch ${b}: ${JSON.stringify(rows.map((r) => r.kind))}`);
          }
        }
      } finally {
        conn.release();
      }
    }));
    const seconds = (performance.now() - t0) / 1000;
    const [check] = (await pool.query<{ orders: number; numbers: number }>(
      'SELECT count(*)::int AS orders, count(DISTINCT number)::int AS numbers FROM orders WHERE event_id = $1', [eventId])).rows;
    if (check!.orders !== holdIds.length || check!.numbers !== holdIds.length) throw new Error(`orders ${JSON.stringify(check)} for ${holdIds.length} holds`);
    return {
      fn, clients, batchesPerSec: round3(batches / seconds), confirmsPerSec: round3(holdIds.length / seconds),
      statementMsP50: round3(median(times)), statementMsMean: round3(times.reduce((a, b) => a + b, 0) / times.length),
    };
  } finally {
    await fixture.dropEvent(eventId);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      against: { type: 'string' }, batch: { type: 'string', default: '24' }, batches: { type: 'string', default: '150' },
      clients: { type: 'string', default: '1,4' }, rounds: { type: 'string', default: '4' },
    },
  });
  const batch = Number(values.batch);
  const batches = Number(values.batches);
  const clientCounts = values.clients!.split(',').map(Number);
  const rounds = Number(values.rounds);
  const from = baseMigration(values.against);
  const fixture = await openHoldfastFixture();
  const pool = new pg.Pool({ connectionString: fixture.databaseUrl, max: Math.max(...clientCounts) + 1 });
  const runs: Run[] = [];
  try {
    await pool.query(baseFunctionSql(from));
    process.stderr.write(`base: ${path.relative(process.cwd(), from)}\n`);
    // Both functions plan their statements once per session: one unmeasured run each first.
    for (const fn of ['base', 'this'] as const) await runOnce(fixture, pool, fn, Math.max(...clientCounts), batch, 20);
    for (let round = 0; round < rounds; round += 1) {
      for (const clients of clientCounts) {
        const order: ('base' | 'this')[] = round % 2 === 0 ? ['base', 'this'] : ['this', 'base'];
        for (const fn of order) {
          const r = await runOnce(fixture, pool, fn, clients, batch, batches);
          runs.push(r);
          process.stdout.write(`${JSON.stringify({ round: round + 1, ...r })}\n`);
        }
      }
    }
    process.stdout.write(`\n| clients | base batches/s (median) | this batches/s (median) | this ÷ base, per round | base statement ms p50 | this statement ms p50 |\n| ---: | ---: | ---: | --- | ---: | ---: |\n`);
    for (const clients of clientCounts) {
      const of = (fn: 'base' | 'this') => runs.filter((r) => r.fn === fn && r.clients === clients);
      const [base, mine] = [of('base'), of('this')];
      const ratios = mine.map((r, i) => round3(r.batchesPerSec / base[i]!.batchesPerSec));
      process.stdout.write(`| ${clients} | ${round3(median(base.map((r) => r.batchesPerSec)))} | ${round3(median(mine.map((r) => r.batchesPerSec)))} | `
        + `${round3(median(ratios))}× (${ratios.join(', ')}) | ${round3(median(base.map((r) => r.statementMsP50)))} | ${round3(median(mine.map((r) => r.statementMsP50)))} |\n`);
    }
  } finally {
    await pool.query(`DROP FUNCTION IF EXISTS ${FUNCTION}_base(jsonb)`).catch(() => undefined);
    await pool.end();
    await fixture.close();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
