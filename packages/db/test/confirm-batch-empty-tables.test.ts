// A session keeps the generic plans of the confirm function's statements, and of the
// foreign-key checks its inserts fire, for as long as it lives. These tests make a session's
// first batch run while orders and order_items are empty and vacuumed (a database of their own;
// the bench's VACUUM after its warm-up leaves them so),
// let the tables grow, and count the rows the session's next batch reads.
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** The suite's own copy of the test database ('emptyplans' in test-kit's ISOLATED_DATABASES, made by the global setup). */
const url = (() => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `${u.pathname}_emptyplans`;
  return u.toString();
})();
let client: pg.Client;
const events: string[] = [];

beforeAll(async () => {
  client = new pg.Client({ connectionString: url });
  await client.connect();
});
afterAll(async () => {
  for (const id of events) {
    await client.query('DELETE FROM order_items WHERE order_id IN (SELECT id FROM orders WHERE event_id = $1)', [id]);
    await client.query('DELETE FROM payments WHERE event_id = $1', [id]);
    await client.query('DELETE FROM orders WHERE event_id = $1', [id]);
    await client.query('DELETE FROM holds WHERE event_id = $1', [id]);
    await client.query('DELETE FROM events WHERE id = $1', [id]);
  }
  await client.end();
});

/** An event of its own with `count` seats, a hold on each (as the outbox writes them), and a year with no orders. */
async function eventWithHolds(count: number): Promise<{ eventId: string; holds: string[]; year: number }> {
  const eventId = randomUUID();
  events.push(eventId);
  await client.query(
    `INSERT INTO events (id, name, starts_at, currency, hold_ttl_seconds, max_tickets_per_customer, seat_count)
     VALUES ($1, 'confirm batch on empty tables', now() + interval '30 days', 'EUR', 600, 10, $2)`, [eventId, count]);
  await client.query(
    `INSERT INTO seats (id, event_id, section, row, number, label, tier, price_cents)
     SELECT gen_random_uuid(), $1, 'A', '1', g, 'A-1-' || g, 'std', 2500 FROM generate_series(1, $2::int) g`, [eventId, count]);
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
     SELECT 'h_' || replace(gen_random_uuid()::text, '-', ''), s.event_id, 'buyer-' || s.number, 'ACTIVE', now(), now() + interval '10 minutes',
            jsonb_build_array(jsonb_build_object('seatId', s.id, 'label', s.label, 'tier', 'std', 'priceCents', 2500, 'quantity', 1)), 2500, 'EUR'
     FROM seats s WHERE s.event_id = $1 ORDER BY s.number
     RETURNING id`, [eventId]);
  // Four digits, as order numbers have them; apart from the other suites' years.
  const year = 4000 + Math.floor(Math.random() * 900);
  await client.query('DELETE FROM order_sequences WHERE year = $1', [year]);
  return { eventId, holds: rows.map((r) => r.id), year };
}

function confirm(holdId: string, year: number) {
  return {
    holdId, year, held: true, claimUntil: null, provider: 'service', providerEventId: null, reference: `ref-${holdId}`,
    amountCents: null, currency: null, auditActor: null, record: null,
  };
}

test('when a session ran its first batch while orders and order_items were empty and they have grown since, then its next batch (as a set, and one by one) reads orders and order_items by key, not every row', async () => {
  // Empty and vacuumed, as the bench's VACUUM (ANALYZE) after its warm-up leaves them: no pages,
  // statistics of no rows (nothing else uses this database).
  await client.query('TRUNCATE orders, order_items, payments CASCADE');
  await client.query('VACUUM (ANALYZE) orders, order_items, payments');
  const e = await eventWithHolds(10);
  const own = new pg.Client({ connectionString: url });
  await own.connect();
  try {
    // The session's first batch: its plans are made now, on tables of a page or none.
    const first = await own.query<{ kind: string }>('SELECT kind FROM holdfast_confirm_batch($1::jsonb)',
      [JSON.stringify(e.holds.slice(0, 4).map((h) => confirm(h, e.year)))]);
    expect(first.rows.map((r) => r.kind)).toEqual(Array(4).fill('created'));
    // 3,000 more orders with an item each, from another session: the session's plans stay.
    await client.query(
      `WITH o AS (
         INSERT INTO orders (id, number, event_id, customer_id, hold_id, total_cents, currency, payment_reference)
         SELECT gen_random_uuid(), 'HF-' || $2::int || '-' || lpad(g::text, 6, '0'), $1::uuid, 'filler-' || g, 'filler-' || $1::text || '-' || g, 2500, 'EUR', 'filler'
         FROM generate_series(1000, 3999) g
         RETURNING id)
       INSERT INTO order_items (id, order_id, label, price_cents, quantity, position)
       SELECT gen_random_uuid(), o.id, 'filler', 2500, 1, 0 FROM o`, [e.eventId, e.year]);
    const batches: Array<[string[], string]> = [[e.holds.slice(4, 8), 'set'], [e.holds.slice(8, 10), 'one_by_one']];
    for (const [holds, path] of batches) {
      await own.query('BEGIN');
      const { rows } = await own.query<{ kind: string }>('SELECT kind FROM holdfast_confirm_batch($1::jsonb)',
        [JSON.stringify(holds.map((h) => confirm(h, e.year)))]);
      expect(rows.map((r) => r.kind)).toEqual(holds.map(() => 'created'));
      expect((await own.query<{ p: string }>("SELECT current_setting('holdfast.confirm_batch_path', true) AS p")).rows[0]!.p).toBe(path);
      // Rows this transaction read from each table by scanning it (its own counters).
      const read = await own.query<{ relname: string; n: string }>(
        `SELECT relname, COALESCE(seq_tup_read, 0)::text AS n FROM pg_stat_xact_user_tables
         WHERE relname IN ('orders', 'order_items') ORDER BY relname`);
      await own.query('COMMIT');
      expect(read.rows.map((r) => [r.relname, Number(r.n)])).toEqual([['order_items', 0], ['orders', 0]]);
    }
    const sold = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM seats WHERE event_id = $1 AND status = 'SOLD'`, [e.eventId]);
    expect(Number(sold.rows[0]!.n)).toBe(10);
  } finally {
    await own.query('ROLLBACK').catch(() => undefined);
    await own.end();
  }
});

test('when a batch runs with sequential scans off, then none of its statements is JIT-compiled (a plan left to scan a table costs over 10^10, past jit_above_cost)', async () => {
  const e = await eventWithHolds(6);
  const own = new pg.Client({ connectionString: url });
  await own.connect();
  const plans: string[] = [];
  own.on('notice', (notice) => plans.push(notice.message ?? ''));
  try {
    // Every plan of the batch, the function's own statements and the foreign-key checks, as EXPLAIN ANALYZE tells them.
    await own.query("LOAD 'auto_explain'");
    await own.query('SET auto_explain.log_min_duration = 0');
    await own.query('SET auto_explain.log_nested_statements = on');
    await own.query('SET auto_explain.log_analyze = on');
    await own.query('SET auto_explain.log_level = notice');
    for (const holds of [e.holds.slice(0, 4), e.holds.slice(4, 6)]) {
      const { rows } = await own.query<{ kind: string }>('SELECT kind FROM holdfast_confirm_batch($1::jsonb)',
        [JSON.stringify(holds.map((h) => confirm(h, e.year)))]);
      expect(rows.map((r) => r.kind)).toEqual(holds.map(() => 'created'));
    }
    // The webhook checks scan webhook_endpoints (no index fits), so sequential scans are off indeed.
    expect(plans.some((p) => /Seq Scan on webhook_endpoints .*cost=10000000000/.test(p))).toBe(true);
    expect(plans.filter((p) => p.includes('JIT:'))).toEqual([]);
  } finally {
    await own.end();
  }
});
