/**
 * Part of the `confirm` section: what the per-year order-number row costs
 * against a sequence, measured with pgbench on holdfast's own tables (its
 * indexes, constraints and triggers) in the bench's database, one confirm a
 * transaction (pgbench-confirm-numbering.script.ts), at each client count.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { confirmNumberingScript, numberingSequences, type Numbering } from '../baselines/pgbench-confirm-numbering.script';
import { databaseName } from '../bench-database.service';
import { round3 } from '../latency.histogram';
import type { HoldfastFixture } from './holdfast.fixture';

const run = promisify(execFile);

export interface NumberingRun {
  numbering: Numbering;
  clients: number;
  transactions: number;
  tps: number;
  latencyAvgMs: number;
  failed: number;
  /** Orders committed with a distinct number (a check: it must equal the transactions). */
  distinctNumbers: number;
}

export async function measureNumbering(
  fixture: HoldfastFixture, options: { clients: number[]; transactionsPerClient: number }, log: (line: string) => void,
): Promise<NumberingRun[]> {
  const { db } = fixture;
  const suffix = String(process.pid);
  const seq = numberingSequences(suffix);
  const eventId = randomUUID();
  // Years no real order uses, one per numbering, so each starts from an empty row.
  const year = 9000 + Math.floor(Math.random() * 900);
  const years: Record<Numbering, number> = { 'year-row': year, sequence: year + 1 };
  const slots = 2 * options.clients.reduce((total, clients) => total + clients * options.transactionsPerClient, 0) + 100;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'holdfast-numbering-'));
  const runs: NumberingRun[] = [];
  try {
    await db.$executeRawUnsafe(`INSERT INTO events (id, name, starts_at, currency, hold_ttl_seconds, max_tickets_per_customer, seat_count)
      VALUES ('${eventId}', 'bench order numbering', now(), 'USD', 600, 10, ${slots})`);
    await db.$executeRawUnsafe(`INSERT INTO seats (id, event_id, section, "row", number, label, tier, price_cents)
      SELECT gen_random_uuid(), '${eventId}', 'P', '1', n, 'P-1-' || n, 'std', 1000 FROM generate_series(1, ${slots}) n`);
    await db.$executeRawUnsafe(`INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
      SELECT 'bench_' || n, '${eventId}', 'bench', 'ACTIVE', now(), now() + interval '1 hour', '[]', 1000, 'USD' FROM generate_series(1, ${slots}) n`);
    for (const name of [seq.pick, seq.orderNumber]) {
      await db.$executeRawUnsafe(`DROP SEQUENCE IF EXISTS ${name}`);
      await db.$executeRawUnsafe(`CREATE SEQUENCE ${name}`);
    }
    const url = new URL(fixture.databaseUrl);
    for (const clients of options.clients) {
      for (const numbering of ['year-row', 'sequence'] as const) {
        const file = path.join(dir, `${numbering}.sql`);
        await writeFile(file, confirmNumberingScript(numbering, suffix));
        const before = await numbersOf(fixture, eventId, years[numbering]);
        const { stdout } = await run('pgbench', [
          '-n', '-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres'),
          '-c', String(clients), '-j', String(Math.min(clients, os.cpus().length)), '-t', String(options.transactionsPerClient),
          '-D', `event=${eventId}`, '-D', `year=${years[numbering]}`, '-f', file, databaseName(fixture.databaseUrl),
        ], { timeout: 600_000, maxBuffer: 1 << 24, env: { ...process.env, PGPASSWORD: url.password || process.env.PGPASSWORD } });
        const after = await numbersOf(fixture, eventId, years[numbering]);
        const result: NumberingRun = {
          numbering, clients, transactions: clients * options.transactionsPerClient,
          tps: round3(Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? NaN)),
          latencyAvgMs: round3(Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1] ?? NaN)),
          failed: Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0),
          distinctNumbers: after - before,
        };
        log(`  order numbering, ${numbering}, ${clients} clients: ${Math.round(result.tps)} tps, latency avg ${result.latencyAvgMs} ms`);
        runs.push(result);
      }
    }
  } finally {
    await fixture.dropEvent(eventId);
    await db.$executeRawUnsafe(`DELETE FROM order_sequences WHERE year IN (${years['year-row']}, ${years.sequence})`);
    for (const name of [seq.pick, seq.orderNumber]) await db.$executeRawUnsafe(`DROP SEQUENCE IF EXISTS ${name}`);
    await rm(dir, { recursive: true, force: true });
  }
  return runs;
}

/** Distinct numbers of the event's orders in `year`. */
async function numbersOf(fixture: HoldfastFixture, eventId: string, year: number): Promise<number> {
  const rows = await fixture.db.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(DISTINCT number)::int AS n FROM orders WHERE event_id = '${eventId}' AND number LIKE 'HF-${year}-%'`);
  return rows[0]?.n ?? 0;
}
