// pgbench's sessions plan as holdfast's confirm function plans its own transaction (pgbench.runner.ts,
// PLANNER_OPTIONS): checked with real pgbench runs on the real PostgreSQL, in schemas of this test's own.
import { runPgbench } from '../src/baselines/pgbench.runner';
import { confirmBatchScript } from '../src/baselines/pgbench-confirm-batch.script';
import { benchDatabaseUrl, ensureDatabase } from '../src/bench-database.service';

beforeAll(async () => {
  await ensureDatabase(benchDatabaseUrl());
});

test('when pgbench runs a script, then each of its sessions has sequential scans and JIT off, as the confirm function has', async () => {
  // An order is written only by a transaction that sees both settings off.
  const script = () => `INSERT INTO pgb_order (number, hold_id, customer_id, total_cents, currency, status, payment_reference)
SELECT 'n-' || s.id, s.id, 'c', 1, 'USD', 'confirmed', 'p' FROM (SELECT nextval('pgb_seat_pick') AS id) s
WHERE current_setting('enable_seqscan') = 'off' AND current_setting('jit') = 'off';
`;
  const result = await runPgbench({
    databaseUrl: benchDatabaseUrl(), schema: `bench_pgb_plan_${process.pid}`, clients: 2, transactionsPerClient: 5, script,
  });
  expect([result.failed, result.ordersCommitted]).toEqual([0, 10]);
});

test('when the batch-shaped script runs with those settings, then every transaction sells its whole batch, each seat once, every order numbered apart', async () => {
  const result = await runPgbench({
    databaseUrl: benchDatabaseUrl(), schema: `bench_pgb_batch_${process.pid}`, clients: 2, transactionsPerClient: 6,
    script: (year) => confirmBatchScript(year, 8), confirmsPerTransaction: 8,
  });
  expect([result.failed, result.seatsSold, result.ordersCommitted, result.distinctOrderNumbers]).toEqual([0, 96, 96, 96]);
});
