import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { Client } from 'pg';

import { assertIdentifier, databaseName, dropSchema } from '../bench-database.service';
import { LatencyHistogram, round3, type LatencySummary } from '../latency.histogram';

const run = promisify(execFile);

interface PgbenchOptions {
  databaseUrl: string;
  /** Schema for the confirm-shaped tables; dropped at the end. */
  schema: string;
  clients: number;
  /** Transactions per client (pgbench -t). */
  transactionsPerClient: number;
  /** Another script (default: confirmScript, one confirm per transaction). */
  script?: (year: number) => string;
  /** Confirms each transaction of the script makes (default 1); seats are made for all of them. */
  confirmsPerTransaction?: number;
}

export interface PgbenchResult {
  clients: number;
  transactions: number;
  failed: number;
  tps: number;
  latency: LatencySummary;
  /** Checks on what the run committed. */
  ordersCommitted: number;
  distinctOrderNumbers: number;
  seatsSold: number;
  script: string;
  confirmsPerTransaction: number;
  /** tps × confirmsPerTransaction. */
  confirmsPerSec: number;
}

/**
 * The confirm transaction's shape, in SQL, for pgbench: sell one seat with a
 * conditional UPDATE (only if still AVAILABLE), take the next order number from
 * the per-year sequence row (INSERT ... ON CONFLICT DO UPDATE ... RETURNING),
 * insert the order, its item and its payment, commit. Each transaction takes a
 * distinct seat (a sequence picks it) so every transaction really sells.
 */
function confirmScript(year: number): string {
  return `BEGIN;
WITH pick AS (SELECT nextval('pgb_seat_pick') AS id)
UPDATE pgb_seat SET status = 'SOLD' FROM pick
 WHERE pgb_seat.id = pick.id AND pgb_seat.status = 'AVAILABLE'
 RETURNING pgb_seat.id AS seat_id, pgb_seat.price_cents AS price \\gset
INSERT INTO pgb_order_number (year, last_value) VALUES (${year}, 1)
 ON CONFLICT (year) DO UPDATE SET last_value = pgb_order_number.last_value + 1
 RETURNING last_value AS num \\gset
INSERT INTO pgb_order (number, hold_id, customer_id, total_cents, currency, status, payment_reference)
 VALUES ('HF-${year}-' || lpad(:num::text, 6, '0'), :seat_id, 'customer-' || :client_id, :price, 'USD', 'confirmed', 'pi_' || :seat_id)
 RETURNING id AS order_id \\gset
INSERT INTO pgb_order_item (order_id, seat_id, label, price_cents)
 SELECT :order_id, id, label, price_cents FROM pgb_seat WHERE id = :seat_id;
INSERT INTO pgb_payment (provider, reference, hold_id, order_id, amount_cents, currency, status)
 VALUES ('stripe', 'pi_' || :seat_id, :seat_id, :order_id, :price, 'USD', 'applied');
COMMIT;
`;
}

async function createTables(client: Client, schema: string, seats: number): Promise<void> {
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`SET search_path = ${schema}`);
  await client.query(`CREATE TABLE pgb_seat (
    id bigint PRIMARY KEY, event_id int NOT NULL, label text NOT NULL, price_cents int NOT NULL,
    status text NOT NULL DEFAULT 'AVAILABLE')`);
  await client.query('CREATE SEQUENCE pgb_seat_pick');
  await client.query('CREATE TABLE pgb_order_number (year int PRIMARY KEY, last_value bigint NOT NULL)');
  await client.query(`CREATE TABLE pgb_order (
    id bigserial PRIMARY KEY, number text NOT NULL UNIQUE, hold_id bigint NOT NULL UNIQUE, customer_id text NOT NULL,
    total_cents int NOT NULL, currency text NOT NULL, status text NOT NULL, payment_reference text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now())`);
  await client.query(`CREATE TABLE pgb_order_item (
    id bigserial PRIMARY KEY, order_id bigint NOT NULL REFERENCES pgb_order (id), seat_id bigint NOT NULL UNIQUE,
    label text NOT NULL, price_cents int NOT NULL)`);
  await client.query(`CREATE TABLE pgb_payment (
    id bigserial PRIMARY KEY, provider text NOT NULL, reference text NOT NULL UNIQUE, hold_id bigint NOT NULL,
    order_id bigint REFERENCES pgb_order (id), amount_cents int NOT NULL, currency text NOT NULL, status text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now())`);
  await client.query(
    `INSERT INTO pgb_seat (id, event_id, label, price_cents)
     SELECT g, 1, 'A-' || (g / 100 + 1) || '-' || (g % 100 + 1), 5000 FROM generate_series(1, $1::int) AS g`,
    [seats],
  );
  await client.query('ANALYZE');
}

/**
 * The planner settings holdfast's confirm function gives its own transaction (prisma/functions/
 * holdfast_confirm_batch.plpgsql), given to pgbench's sessions alike. The tables are made and
 * ANALYZEd empty just before the run, so a session plans its foreign-key checks (order items and
 * payments against pgb_order) once, as scans of a table it believes empty, and keeps them while
 * the run fills it: each transaction scanned every order written before it. One client, batches
 * of 24: 1.8 ms a transaction at the start of a run, 13.9 ms after 250 (6,000 orders), against a
 * flat 1.0-1.5 ms with these settings; a full-size round (3,000 confirms) read the batch-shaped
 * pgbench several times slower than a quick one (1,500), so the ratio to it depended on the
 * round's length. Both sides now plan by key.
 */
const PLANNER_OPTIONS = '-c enable_seqscan=off -c jit=off';

export async function runPgbench(options: PgbenchOptions): Promise<PgbenchResult> {
  assertIdentifier(options.schema);
  const transactions = options.clients * options.transactionsPerClient;
  const perTransaction = options.confirmsPerTransaction ?? 1;
  const client = new Client({ connectionString: options.databaseUrl });
  await client.connect();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'holdfast-pgbench-'));
  try {
    await createTables(client, options.schema, transactions * perTransaction);
    const script = (options.script ?? confirmScript)(new Date().getUTCFullYear());
    const scriptFile = path.join(dir, 'confirm.sql');
    await writeFile(scriptFile, script);

    const url = new URL(options.databaseUrl);
    const args = [
      '-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres'),
      '-n', '-f', scriptFile, '-c', String(options.clients), '-j', String(Math.min(options.clients, os.cpus().length)),
      '-t', String(options.transactionsPerClient), '-l', `--log-prefix=${path.join(dir, 'pgbench_log')}`,
      databaseName(options.databaseUrl),
    ];
    const { stdout } = await run('pgbench', args, {
      cwd: dir,
      timeout: 600_000,
      maxBuffer: 1 << 24,
      env: { ...process.env, PGOPTIONS: `-c search_path=${options.schema} ${PLANNER_OPTIONS}`, PGPASSWORD: url.password || process.env.PGPASSWORD },
    }).catch((error: { stderr?: string; message: string }) => {
      const firstLines = (error.stderr ?? '').split('\n').slice(0, 4).join('\n');
      throw Object.assign(new Error(`pgbench failed: ${error.message.split('\n')[0]}\n${firstLines}`), { stderr: error.stderr });
    });
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1] ?? NaN);
    const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
    if (Number.isNaN(tps)) throw new Error(`unexpected pgbench output:\n${stdout}`);

    const histogram = new LatencyHistogram();
    for (const file of await readdir(dir)) {
      if (!file.startsWith('pgbench_log')) continue;
      for (const line of (await readFile(path.join(dir, file), 'utf8')).split('\n')) {
        // client_id transaction_no latency_us script_no epoch epoch_us
        const micros = Number(line.split(' ')[2]);
        if (line && Number.isFinite(micros)) histogram.record(micros / 1000);
      }
    }

    const checks = await client.query<{ orders: string; numbers: string; sold: string }>(
      `SELECT (SELECT count(*) FROM pgb_order) AS orders, (SELECT count(DISTINCT number) FROM pgb_order) AS numbers,
              (SELECT count(*) FROM pgb_seat WHERE status = 'SOLD') AS sold`,
    );
    const row = checks.rows[0];
    return {
      clients: options.clients,
      transactions,
      failed,
      tps: round3(tps),
      latency: histogram.summary(),
      ordersCommitted: Number(row?.orders ?? 0),
      distinctOrderNumbers: Number(row?.numbers ?? 0),
      seatsSold: Number(row?.sold ?? 0),
      script,
      confirmsPerTransaction: perTransaction,
      confirmsPerSec: round3(tps * perTransaction),
    };
  } finally {
    await client.end();
    await dropSchema(options.databaseUrl, options.schema);
    await rm(dir, { recursive: true, force: true });
  }
}
