// The confirm batch goes as one set when every write of it passes (the holds locked in one
// statement, each write one statement for the batch), and one by one, each confirm under its
// own savepoint, when any confirm is refused. These tests call holdfast_confirm_batch on the
// real PostgreSQL and read which way each batch went, then check the committed rows.
import { randomUUID } from 'node:crypto';
import pg from 'pg';

let client: pg.Client;
const events: string[] = [];
const years: number[] = [];

beforeAll(async () => {
  client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
});
afterAll(async () => {
  for (const id of events) {
    await client.query('DELETE FROM payments WHERE event_id = $1', [id]);
    await client.query('DELETE FROM audit_entries WHERE event_id = $1', [id]);
    await client.query('DELETE FROM events WHERE id = $1', [id]);
  }
  await client.query('DELETE FROM order_sequences WHERE year = ANY ($1::int[])', [years]);
  await client.end();
});

interface Fixture {
  eventId: string;
  seats: string[];
  ticketTypeId: string;
  year: number;
}

/** An event of its own with `seatCount` seats and one GA ticket type of `capacity`, and a year with no orders. */
async function fixture(seatCount: number, capacity: number): Promise<Fixture> {
  const eventId = randomUUID();
  events.push(eventId);
  await client.query(
    `INSERT INTO events (id, name, starts_at, currency, hold_ttl_seconds, max_tickets_per_customer, seat_count)
     VALUES ($1, 'confirm batch as a set', now() + interval '30 days', 'EUR', 600, 10, $2)`, [eventId, seatCount]);
  const seats: string[] = [];
  for (let i = 1; i <= seatCount; i++) {
    const id = randomUUID();
    seats.push(id);
    await client.query(
      `INSERT INTO seats (id, event_id, section, row, number, label, tier, price_cents) VALUES ($1, $2, 'A', '1', $3, $4, 'std', 2500)`,
      [id, eventId, i, `A-1-${i}`]);
  }
  const ticketTypeId = randomUUID();
  await client.query(`INSERT INTO ticket_types (id, event_id, name, price_cents, capacity) VALUES ($1, $2, 'GA', 1000, $3)`,
    [ticketTypeId, eventId, capacity]);
  return { eventId, seats, ticketTypeId, year: await freshYear() };
}

/**
 * A year of the fixture's own: four digits, as order numbers have them, apart from this century and the
 * other suites' years; never one another fixture of this file took (two fixtures on one year would number
 * from the same row, and one's numbers would collide with the other's), nor one with orders or a sequence row.
 */
async function freshYear(): Promise<number> {
  for (;;) {
    const year = 3100 + Math.floor(Math.random() * 800);
    if (years.includes(year)) continue;
    const taken = await client.query(
      'SELECT 1 FROM order_sequences WHERE year = $1 UNION ALL SELECT 1 FROM orders WHERE number LIKE $2 LIMIT 1', [year, `HF-${year}-%`]);
    if (taken.rowCount) continue;
    years.push(year);
    return year;
  }
}

type Item = { seatId: string; label: string; tier: string; priceCents: number; quantity: 1 }
  | { ticketTypeId: string; name: string; priceCents: number; quantity: number };

const seatItem = (f: Fixture, i: number): Item => ({ seatId: f.seats[i]!, label: `A-1-${i + 1}`, tier: 'std', priceCents: 2500, quantity: 1 });
const gaItem = (f: Fixture, quantity: number): Item => ({ ticketTypeId: f.ticketTypeId, name: 'GA', priceCents: 1000, quantity });

/** A hold row as the outbox writes it. */
async function holdRow(f: Fixture, items: Item[], status = 'ACTIVE'): Promise<string> {
  const id = `h_${randomUUID().replace(/-/g, '')}`;
  const total = items.reduce((sum, it) => sum + it.priceCents * it.quantity, 0);
  await client.query(
    `INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
     VALUES ($1, $2, $3, $4, now(), now() + interval '10 minutes', $5, $6, 'EUR')`,
    [id, f.eventId, `buyer-${id.slice(2, 8)}`, status, JSON.stringify(items), total]);
  return id;
}

function confirm(f: Fixture, holdId: string, extra: Record<string, unknown> = {}) {
  return {
    holdId, year: f.year, held: true, claimUntil: null, provider: 'service', providerEventId: null, reference: `ref-${holdId}`,
    amountCents: null, currency: null, auditActor: null, record: null, ...extra,
  };
}

interface Answer { idx: number; kind: string; order_json: { id: string; number: string; holdId: string; items: unknown[] } | null }

/** Runs one batch and reads which way it went. */
async function runBatch(confirms: unknown[]): Promise<{ answers: Answer[]; path: string }> {
  const { rows } = await client.query<Answer>('SELECT idx, kind, order_json FROM holdfast_confirm_batch($1::jsonb)', [JSON.stringify(confirms)]);
  const path = (await client.query<{ p: string }>("SELECT current_setting('holdfast.confirm_batch_path', true) AS p")).rows[0]!.p;
  return { answers: rows, path };
}

const numberOf = (f: Fixture, n: number) => `HF-${f.year}-${String(n).padStart(6, '0')}`;

async function holdStatus(id: string) {
  return (await client.query<{ status: string; order_id: string | null }>('SELECT status, order_id FROM holds WHERE id = $1', [id])).rows[0];
}

test('when every confirm of a batch makes an order, then the batch goes as a set: seats sold, tickets counted, one payment and one order each, numbered in batch order', async () => {
  const f = await fixture(4, 10);
  const holds = [
    await holdRow(f, [seatItem(f, 0), seatItem(f, 1)]),
    await holdRow(f, [gaItem(f, 3)]),
    await holdRow(f, [seatItem(f, 2)]),
    await holdRow(f, [gaItem(f, 2)]),
  ];
  const batch = holds.map((h, i) => confirm(f, h, i === 2 ? { auditActor: 'admin-7', amountCents: 2400, currency: 'eur' } : {}));
  const { answers, path } = await runBatch(batch);
  expect(path).toBe('set');
  expect(answers.map((a) => [a.idx, a.kind])).toEqual([[1, 'created'], [2, 'created'], [3, 'created'], [4, 'created']]);
  expect(answers.map((a) => a.order_json!.number)).toEqual([1, 2, 3, 4].map((n) => numberOf(f, n)));
  expect(answers.map((a) => a.order_json!.holdId)).toEqual(holds);
  expect(answers.map((a) => a.order_json!.items.length)).toEqual([2, 1, 1, 1]);

  const seats = await client.query<{ id: string; status: string; order_id: string }>('SELECT id, status, order_id FROM seats WHERE event_id = $1 ORDER BY number', [f.eventId]);
  expect(seats.rows.map((s) => [s.status, s.order_id])).toEqual([
    ['SOLD', answers[0]!.order_json!.id], ['SOLD', answers[0]!.order_json!.id], ['SOLD', answers[2]!.order_json!.id], ['AVAILABLE', null],
  ]);
  expect((await client.query('SELECT sold FROM ticket_types WHERE id = $1', [f.ticketTypeId])).rows[0].sold).toBe(5);
  for (const [i, h] of holds.entries()) expect(await holdStatus(h)).toEqual({ status: 'CONFIRMED', order_id: answers[i]!.order_json!.id });
  const payments = await client.query<{ hold_id: string; amount_cents: string; currency: string; order_id: string; status: string }>(
    'SELECT hold_id, amount_cents, currency, order_id, status FROM payments WHERE event_id = $1', [f.eventId]);
  expect(payments.rows).toHaveLength(4);
  const paid = payments.rows.find((p) => p.hold_id === holds[2])!;
  expect([paid.amount_cents, paid.currency, paid.order_id, paid.status]).toEqual(['2400', 'EUR', answers[2]!.order_json!.id, 'APPLIED']);
  expect(payments.rows.find((p) => p.hold_id === holds[1])!.amount_cents).toBe('3000');
  const audit = await client.query('SELECT actor, hold_id, order_id, reason FROM audit_entries WHERE event_id = $1', [f.eventId]);
  expect(audit.rows).toEqual([{ actor: 'admin-7', hold_id: holds[2], order_id: answers[2]!.order_json!.id, reason: `payment reference ref-${holds[2]}` }]);
  const items = await client.query('SELECT count(*)::int AS n FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.event_id = $1', [f.eventId]);
  expect(items.rows[0].n).toBe(5);
});

test('when a batch mixes a confirmed hold, a released one, a lost lease and an unknown id with new orders, then it still goes as a set and answers each as alone', async () => {
  const f = await fixture(3, 10);
  const earlier = await holdRow(f, [seatItem(f, 0)]);
  const first = await runBatch([confirm(f, earlier)]);
  expect(first.answers[0]!.kind).toBe('created');
  const released = await holdRow(f, [seatItem(f, 1)], 'RELEASED');
  const lost = await holdRow(f, [gaItem(f, 1)]);
  const fresh = await holdRow(f, [seatItem(f, 2)]);
  const fresh2 = await holdRow(f, [gaItem(f, 2)]);
  const { answers, path } = await runBatch([
    confirm(f, fresh), confirm(f, earlier), confirm(f, released), confirm(f, lost, { held: false }), confirm(f, 'h_nobody'), confirm(f, fresh2),
  ]);
  expect(path).toBe('set');
  expect(answers.map((a) => a.kind)).toEqual(['created', 'existing', 'released', 'expired', 'not_found', 'created']);
  expect(answers[1]!.order_json!.id).toBe(first.answers[0]!.order_json!.id);
  expect(answers.map((a) => a.order_json?.number ?? null)).toEqual([numberOf(f, 2), numberOf(f, 1), null, null, null, numberOf(f, 3)]);
  expect(await holdStatus(lost)).toEqual({ status: 'EXPIRED', order_id: null });
  expect(await holdStatus(released)).toEqual({ status: 'RELEASED', order_id: null });
  expect((await client.query('SELECT sold FROM ticket_types WHERE id = $1', [f.ticketTypeId])).rows[0].sold).toBe(2);
  expect((await client.query('SELECT count(*)::int AS n FROM payments WHERE event_id = $1', [f.eventId])).rows[0].n).toBe(3);
});

test('when the GA tickets of a batch together pass the capacity, though each confirm alone fits, then the batch goes one by one: the first ones in batch order get their tickets, the next is refused', async () => {
  const f = await fixture(0, 5);
  const holds: string[] = [];
  for (const q of [2, 2, 1, 1]) holds.push(await holdRow(f, [gaItem(f, q)]));
  const { answers, path } = await runBatch(holds.map((h) => confirm(f, h)));
  expect(path).toBe('one_by_one');
  expect(answers.map((a) => a.kind)).toEqual(['created', 'created', 'created', 'fence']);
  expect(answers.slice(0, 3).map((a) => a.order_json!.number)).toEqual([numberOf(f, 1), numberOf(f, 2), numberOf(f, 3)]);
  expect((await client.query('SELECT sold FROM ticket_types WHERE id = $1', [f.ticketTypeId])).rows[0].sold).toBe(5);
  expect(await holdStatus(holds[3]!)).toEqual({ status: 'EXPIRED', order_id: null });
  expect((await client.query('SELECT count(*)::int AS n FROM payments WHERE event_id = $1', [f.eventId])).rows[0].n).toBe(3);
});

test('when two holds of one batch carry the same seat, then the batch goes one by one: the first sells it, the second is refused by the fence', async () => {
  const f = await fixture(4, 0);
  const a = await holdRow(f, [seatItem(f, 0)]);
  const c = await holdRow(f, [seatItem(f, 2)]);
  const b = await holdRow(f, [seatItem(f, 1), seatItem(f, 0)]);
  const d = await holdRow(f, [seatItem(f, 3)]);
  const { answers, path } = await runBatch([confirm(f, a), confirm(f, c), confirm(f, b), confirm(f, d)]);
  expect(path).toBe('one_by_one');
  expect(answers.map((x) => x.kind)).toEqual(['created', 'created', 'fence', 'created']);
  const seats = await client.query<{ status: string; order_id: string | null }>('SELECT status, order_id FROM seats WHERE event_id = $1 ORDER BY number', [f.eventId]);
  expect(seats.rows).toEqual([
    { status: 'SOLD', order_id: answers[0]!.order_json!.id }, { status: 'AVAILABLE', order_id: null },
    { status: 'SOLD', order_id: answers[1]!.order_json!.id }, { status: 'SOLD', order_id: answers[3]!.order_json!.id },
  ]);
  expect(await holdStatus(b)).toEqual({ status: 'EXPIRED', order_id: null });
});

test('when the same batch goes as a set and, with a duplicate confirm added, one by one, then both answer the same and write the same rows', async () => {
  const shapes = async (withDuplicate: boolean) => {
    const f = await fixture(2, 5);
    const earlier = await holdRow(f, [gaItem(f, 1)]);
    await runBatch([confirm(f, earlier)]);
    const held = [await holdRow(f, [seatItem(f, 0)]), await holdRow(f, [gaItem(f, 2)]), await holdRow(f, [seatItem(f, 1)])];
    const lost = await holdRow(f, [gaItem(f, 1)]);
    const batch = [confirm(f, held[0]!), confirm(f, earlier), confirm(f, held[1]!), confirm(f, lost, { held: false }), confirm(f, held[2]!)];
    if (withDuplicate) batch.push(confirm(f, held[1]!));
    const { answers, path } = await runBatch(batch);
    const counts = (await client.query(
      `SELECT (SELECT sold FROM ticket_types WHERE id = $2) AS sold,
              (SELECT count(*)::int FROM seats WHERE event_id = $1 AND status = 'SOLD') AS seats_sold,
              (SELECT count(*)::int FROM payments WHERE event_id = $1) AS payments,
              (SELECT count(*)::int FROM orders WHERE event_id = $1) AS orders,
              (SELECT array_agg(h.status::text ORDER BY t.ord) FROM unnest($3::text[]) WITH ORDINALITY AS t(id, ord)
                 JOIN holds h ON h.id = t.id) AS statuses`,
      [f.eventId, f.ticketTypeId, [earlier, ...held, lost]])).rows[0];
    const local = (a: Answer) => [a.kind, a.order_json ? a.order_json.number.slice(-6) : null, a.order_json?.items.length ?? null];
    return { path, answers: answers.map(local), counts, duplicate: withDuplicate ? answers[5]! : null, second: answers[2]! };
  };
  const asSet = await shapes(false);
  const oneByOne = await shapes(true);
  expect(asSet.path).toBe('set');
  expect(oneByOne.path).toBe('one_by_one');
  expect(oneByOne.answers.slice(0, 5)).toEqual(asSet.answers);
  expect(asSet.answers.map((a) => a[0])).toEqual(['created', 'existing', 'created', 'expired', 'created']);
  expect(oneByOne.counts).toEqual(asSet.counts);
  expect(oneByOne.duplicate!.kind).toBe('existing');
  expect(oneByOne.duplicate!.order_json!.id).toBe(oneByOne.second.order_json!.id);
});

/** A hold that is in Redis only (the outbox has not written its row): its id and the record a confirm carries. */
function recordOnly(f: Fixture, items: Item[]) {
  const id = `h_${randomUUID().replace(/-/g, '')}`;
  const createdAt = new Date(Date.now() - 1000);
  const record = {
    eventId: f.eventId, customerId: `buyer-${id.slice(2, 8)}`, items, totalCents: items.reduce((sum, it) => sum + it.priceCents * it.quantity, 0),
    currency: 'EUR', createdAt: createdAt.toISOString(), expiresAt: new Date(createdAt.getTime() + 600_000).toISOString(),
  };
  return { id, record };
}

test('when most holds of a batch are in Redis only, then it goes as a set and writes each of their rows once, in its final state: confirmed with its order, expired, or active when its claim lapsed', async () => {
  const f = await fixture(2, 10);
  const written = await holdRow(f, [gaItem(f, 1)]);
  const fresh = [recordOnly(f, [gaItem(f, 2)]), recordOnly(f, [seatItem(f, 0)]), recordOnly(f, [gaItem(f, 1)]), recordOnly(f, [gaItem(f, 1)])];
  const batch = [
    confirm(f, fresh[0]!.id, { record: fresh[0]!.record }),
    confirm(f, written),
    confirm(f, fresh[1]!.id, { record: fresh[1]!.record }),
    confirm(f, fresh[2]!.id, { record: fresh[2]!.record, held: false }),
    confirm(f, fresh[3]!.id, { record: fresh[3]!.record, claimMs: 0 }),
  ];
  // The batch's row operations on holds, as this session counts them (read before and after it in
  // one transaction: the session's counts are not flushed, nor reset, until it is idle again).
  const holdsOps = async () => (await client.query<{ ins: string; upd: string }>(
    "SELECT n_tup_ins AS ins, n_tup_upd AS upd FROM pg_stat_xact_user_tables WHERE relname = 'holds'")).rows[0]!;
  await client.query('BEGIN');
  const before = await holdsOps();
  const { answers, path } = await runBatch(batch);
  const after = await holdsOps();
  await client.query('COMMIT');
  const ops = { ins: Number(after.ins) - Number(before.ins), upd: Number(after.upd) - Number(before.upd) };
  expect(path).toBe('set');
  expect(answers.map((a) => a.kind)).toEqual(['created', 'created', 'created', 'expired', 'lapsed']);
  expect(answers.slice(0, 3).map((a) => a.order_json!.number)).toEqual([1, 2, 3].map((n) => numberOf(f, n)));
  // Four rows inserted, and only the one that was there updated.
  expect([ops.ins, ops.upd]).toEqual([4, 1]);
  const rows = await client.query<{ id: string; status: string; order_id: string | null; ended: boolean; created_at: Date; customer_id: string; items: unknown; total_cents: string; currency: string }>(
    'SELECT id, status, order_id, ended_at IS NOT NULL AS ended, created_at, customer_id, items, total_cents, currency FROM holds WHERE id = ANY ($1::text[])',
    [[written, ...fresh.map((h) => h.id)]]);
  const row = (id: string) => rows.rows.find((r) => r.id === id)!;
  expect([row(written).status, row(written).order_id, row(written).ended]).toEqual(['CONFIRMED', answers[1]!.order_json!.id, true]);
  expect([row(fresh[0]!.id).status, row(fresh[0]!.id).order_id, row(fresh[0]!.id).ended]).toEqual(['CONFIRMED', answers[0]!.order_json!.id, true]);
  expect([row(fresh[1]!.id).status, row(fresh[1]!.id).order_id, row(fresh[1]!.id).ended]).toEqual(['CONFIRMED', answers[2]!.order_json!.id, true]);
  expect([row(fresh[2]!.id).status, row(fresh[2]!.id).order_id, row(fresh[2]!.id).ended]).toEqual(['EXPIRED', null, true]);
  expect([row(fresh[3]!.id).status, row(fresh[3]!.id).order_id, row(fresh[3]!.id).ended]).toEqual(['ACTIVE', null, false]);
  for (const h of fresh) {
    const r = row(h.id);
    expect([r.created_at.toISOString(), r.customer_id, r.items, Number(r.total_cents), r.currency])
      .toEqual([h.record.createdAt, h.record.customerId, h.record.items, h.record.totalCents, h.record.currency]);
  }
  expect((await client.query('SELECT sold FROM ticket_types WHERE id = $1', [f.ticketTypeId])).rows[0].sold).toBe(3);
  const seat = await client.query('SELECT status, order_id FROM seats WHERE id = $1', [f.seats[0]]);
  expect(seat.rows[0]).toEqual({ status: 'SOLD', order_id: answers[2]!.order_json!.id });
});

test('when the outbox writes a hold\'s row while a batch confirms it from its record, then the batch goes one by one and confirms that row: the hold ends confirmed with its order, not left active', async () => {
  const f = await fixture(0, 10);
  const fresh = [recordOnly(f, [gaItem(f, 1)]), recordOnly(f, [gaItem(f, 1)]), recordOnly(f, [gaItem(f, 1)]), recordOnly(f, [gaItem(f, 1)])];
  // The outbox's insert of the first hold, not committed yet when the batch reads the holds.
  const outbox = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await outbox.connect();
  try {
    await outbox.query('BEGIN');
    const r = fresh[0]!.record;
    await outbox.query(
      `INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
       VALUES ($1, $2, $3, 'ACTIVE', $4, $5, $6, $7, $8)`,
      [fresh[0]!.id, r.eventId, r.customerId, r.createdAt, r.expiresAt, JSON.stringify(r.items), r.totalCents, r.currency]);
    const batchPid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const running = runBatch(fresh.map((h) => confirm(f, h.id, { record: h.record })));
    // The batch's session waits for that row (its insert of the same id); then the outbox commits.
    for (let waited = 0; ; waited += 20) {
      const waiting = await outbox.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [batchPid]);
      if (waiting.rowCount) break;
      if (waited > 5000) throw new Error('the batch never waited for the outbox\'s row');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await outbox.query('COMMIT');
    const { answers, path } = await running;
    expect(path).toBe('one_by_one');
    expect(answers.map((a) => a.kind)).toEqual(['created', 'created', 'created', 'created']);
    const holds = await client.query<{ id: string; status: string; order_id: string }>(
      'SELECT id, status, order_id FROM holds WHERE id = ANY ($1::text[])', [fresh.map((h) => h.id)]);
    for (const [i, h] of fresh.entries()) {
      expect(holds.rows.find((r) => r.id === h.id)).toEqual({ id: h.id, status: 'CONFIRMED', order_id: answers[i]!.order_json!.id });
    }
    expect((await client.query('SELECT sold FROM ticket_types WHERE id = $1', [f.ticketTypeId])).rows[0].sold).toBe(4);
  } finally {
    await outbox.query('ROLLBACK').catch(() => {});
    await outbox.end();
  }
});

test('when one confirm of a batch carries a hold record that is not valid, then the batch goes one by one: that confirm alone is refused as invalid and nothing of it is written', async () => {
  const f = await fixture(3, 0);
  const good = await holdRow(f, [seatItem(f, 0)]);
  const others = [await holdRow(f, [seatItem(f, 1)]), await holdRow(f, [seatItem(f, 2)])];
  const badId = `h_${randomUUID().replace(/-/g, '')}`;
  const bad = confirm(f, badId, {
    record: { eventId: f.eventId, customerId: 'c', createdAt: 'not a time', expiresAt: new Date().toISOString(), items: [], totalCents: 0, currency: 'EUR' },
  });
  const { answers, path } = await runBatch([confirm(f, good), bad, ...others.map((h) => confirm(f, h))]);
  expect(path).toBe('one_by_one');
  expect(answers.map((a) => a.kind)).toEqual(['created', 'invalid', 'created', 'created']);
  expect((await client.query('SELECT count(*)::int AS n FROM holds WHERE id = $1', [badId])).rows[0].n).toBe(0);
  expect((await client.query('SELECT count(*)::int AS n FROM payments WHERE hold_id = $1', [badId])).rows[0].n).toBe(0);
});

test('when a batch holds fewer than four confirms, then it goes one by one (the loop costs no more there), and answers as the set would', async () => {
  const f = await fixture(1, 10);
  const holds = [await holdRow(f, [seatItem(f, 0)]), await holdRow(f, [gaItem(f, 2)]), await holdRow(f, [gaItem(f, 1)])];
  const { answers, path } = await runBatch(holds.map((h) => confirm(f, h)));
  expect(path).toBe('one_by_one');
  expect(answers.map((a) => [a.kind, a.order_json!.number, a.order_json!.holdId])).toEqual(holds.map((h, i) => ['created', numberOf(f, i + 1), h]));
  expect((await client.query('SELECT sold FROM ticket_types WHERE id = $1', [f.ticketTypeId])).rows[0].sold).toBe(3);
});

test('when a batch holds no confirm, then it answers nothing and writes nothing', async () => {
  const { answers } = await runBatch([]);
  expect(answers).toEqual([]);
});

test('when batches on several connections confirm overlapping holds at once, in shuffled orders, then each goes as a set, each hold gets one order, and the numbers run without a gap', async () => {
  const f = await fixture(8, 100);
  const holds: string[] = [];
  for (const i of [0, 1, 2, 3, 4, 5, 6, 7]) holds.push(await holdRow(f, [seatItem(f, i)]));
  for (const q of [1, 2, 3, 1, 2, 3, 1, 2]) holds.push(await holdRow(f, [gaItem(f, q)]));
  const clients = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(async () => {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    return c;
  }));
  try {
    // Each batch: 6 of the 16 holds, shuffled; every hold is in at least one batch.
    const batches = clients.map((_, b) => {
      const picked = holds.filter((_, i) => (i + b) % 8 < 3 || i === b || i === b + 8);
      return picked.map((h) => ({ h, r: Math.random() })).sort((x, y) => x.r - y.r).map((x) => confirm(f, x.h));
    });
    expect(new Set(batches.flat().map((c) => c.holdId)).size).toBe(16);
    const runs = await Promise.all(clients.map(async (c, b) => {
      const { rows } = await c.query<Answer>('SELECT idx, kind, order_json FROM holdfast_confirm_batch($1::jsonb)', [JSON.stringify(batches[b])]);
      const path = (await c.query<{ p: string }>("SELECT current_setting('holdfast.confirm_batch_path', true) AS p")).rows[0]!.p;
      return { rows, path };
    }));
    expect(runs.map((r) => r.path)).toEqual(runs.map(() => 'set'));
    const orderOfHold = new Map<string, string>();
    for (const [b, run] of runs.entries()) {
      for (const [i, row] of run.rows.entries()) {
        expect(['created', 'existing']).toContain(row.kind);
        const holdId = batches[b]![i]!.holdId;
        expect(row.order_json!.holdId).toBe(holdId);
        if (orderOfHold.has(holdId)) expect(row.order_json!.id).toBe(orderOfHold.get(holdId));
        orderOfHold.set(holdId, row.order_json!.id);
      }
    }
    expect(runs.flat().flatMap((r) => r.rows).filter((r) => r.kind === 'created')).toHaveLength(16);
    const orders = await client.query<{ hold_id: string; id: string; number: string }>('SELECT hold_id, id, number FROM orders WHERE event_id = $1 ORDER BY number', [f.eventId]);
    expect(orders.rows.map((o) => o.number)).toEqual(Array.from({ length: 16 }, (_, i) => numberOf(f, i + 1)));
    for (const o of orders.rows) expect(orderOfHold.get(o.hold_id)).toBe(o.id);
    expect((await client.query('SELECT sold FROM ticket_types WHERE id = $1', [f.ticketTypeId])).rows[0].sold).toBe(15);
    expect((await client.query("SELECT count(*)::int AS n FROM seats WHERE event_id = $1 AND status = 'SOLD'", [f.eventId])).rows[0].n).toBe(8);
    expect((await client.query('SELECT count(*)::int AS n FROM payments WHERE event_id = $1', [f.eventId])).rows[0].n).toBe(16);
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
});

/** The relations on which the session `pid` holds a granted lock, and whether it waits for one. */
async function locksOf(pid: number): Promise<{ relations: string[]; advisory: boolean; waiting: boolean }> {
  const { rows } = await client.query<{ rel: string | null; locktype: string; granted: boolean }>(
    'SELECT relation::regclass::text AS rel, locktype, granted FROM pg_locks WHERE pid = $1', [pid]);
  return {
    relations: [...new Set(rows.filter((r) => r.granted && r.rel).map((r) => r.rel!))].sort(),
    advisory: rows.some((r) => r.locktype === 'advisory'),
    waiting: rows.some((r) => !r.granted),
  };
}

test.each([
  ['as a set', 4, 'set', ['audit_entries', 'customer_sales', 'payments', 'seats']],
  ['one by one', 2, 'one_by_one', ['customer_sales', 'seats']],
])('when another transaction holds a GA ticket type\'s row, then a batch %s waits for it only after writing its own rows (seats, customer limits), never holding the order numbers meanwhile, and commits once it is free', async (_how, size, path, written) => {
  const f = await fixture(size, 100);
  const holds: string[] = [];
  for (let i = 0; i < size; i++) holds.push(await holdRow(f, [seatItem(f, i), gaItem(f, 1)]));
  const batch = holds.map((h, i) => confirm(f, h, i === 0 ? { auditActor: 'admin-7' } : {}));
  const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
  const batcher = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await other.connect();
  await batcher.connect();
  try {
    // The first batch in flight, in its hot tail: the GA row is locked until its COMMIT.
    await other.query('BEGIN');
    await other.query('SELECT 1 FROM ticket_types WHERE id = $1 FOR UPDATE', [f.ticketTypeId]);
    const pid = (await batcher.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const running = batcher.query<Answer>('SELECT idx, kind, order_json FROM holdfast_confirm_batch($1::jsonb)', [JSON.stringify(batch)]);
    let locks = await locksOf(pid);
    while (!locks.waiting) {
      await new Promise((r) => setTimeout(r, 10));
      locks = await locksOf(pid);
    }
    const waitingFor = await client.query<{ rel: string }>(
      `SELECT l.relation::regclass::text AS rel FROM pg_locks l
       WHERE l.pid = ANY (pg_blocking_pids($1)) AND l.locktype = 'relation' AND l.mode = 'RowShareLock' AND l.granted`, [pid]);
    expect(waitingFor.rows.map((r) => r.rel)).toContain('ticket_types');
    for (const rel of written) expect(locks.relations).toContain(rel);
    expect(locks.relations).not.toContain('order_sequences');
    expect(locks.advisory).toBe(false);
    await other.query('COMMIT');
    const rows = (await running).rows;
    expect((await batcher.query<{ p: string }>("SELECT current_setting('holdfast.confirm_batch_path', true) AS p")).rows[0]!.p).toBe(path);
    expect(rows.map((r) => r.kind)).toEqual(holds.map(() => 'created'));
    expect(rows.map((r) => r.order_json!.number)).toEqual(holds.map((_, i) => numberOf(f, i + 1)));
    expect((await client.query('SELECT sold FROM ticket_types WHERE id = $1', [f.ticketTypeId])).rows[0].sold).toBe(size);
  } finally {
    await other.query('ROLLBACK').catch(() => undefined);
    await other.end();
    await batcher.end();
  }
});

test('when the planner\'s statistics say holds and seats are empty (analyzed before a sale, autovacuum off), then a batch of 8 (as a set) and one of 2 (one by one) still read only their own holds and seats by their keys, not every row of the tables', async () => {
  const f = await fixture(1, 10);
  // 4,000 more seats and their holds (the outbox's rows) in the event: a plan that joins the
  // batch to the whole table reads thousands of rows of each.
  await client.query(
    `INSERT INTO seats (id, event_id, section, row, number, label, tier, price_cents)
     SELECT gen_random_uuid(), $1, 'B', '1', g, 'B-1-' || g, 'std', 2500 FROM generate_series(1, 4000) g`, [f.eventId]);
  const { rows: made } = await client.query<{ id: string }>(
    `INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
     SELECT 'h_' || replace(gen_random_uuid()::text, '-', ''), s.event_id, 'buyer-' || s.number, 'ACTIVE', now(), now() + interval '10 minutes',
            jsonb_build_array(jsonb_build_object('seatId', s.id, 'label', s.label, 'tier', 'std', 'priceCents', 2500, 'quantity', 1)), 2500, 'EUR'
     FROM seats s WHERE s.event_id = $1 AND s.section = 'B' ORDER BY s.number
     RETURNING id`, [f.eventId]);
  const picked = [3, 400, 777, 1200, 1610, 2050, 2500, 3999].map((i) => made[i]!.id);
  const own = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await own.connect();
  try {
    await own.query('BEGIN');
    // Statistics as ANALYZE leaves them on a table whose rows were all deleted: pages, no rows.
    // (Undone by the ROLLBACK; the catalog update also drops the session's cached plans.)
    await own.query(`UPDATE pg_class SET reltuples = 0, relpages = 1 WHERE oid IN ('holds'::regclass, 'seats'::regclass)`);
    const { rows } = await own.query<{ kind: string }>('SELECT kind FROM holdfast_confirm_batch($1::jsonb)', [JSON.stringify(picked.map((h) => confirm(f, h)))]);
    expect(rows.map((r) => r.kind)).toEqual(Array(8).fill('created'));
    expect((await own.query<{ p: string }>("SELECT current_setting('holdfast.confirm_batch_path', true) AS p")).rows[0]!.p).toBe('set');
    const pair = [10, 3000].map((i) => made[i]!.id);
    const { rows: pairRows } = await own.query<{ kind: string }>('SELECT kind FROM holdfast_confirm_batch($1::jsonb)', [JSON.stringify(pair.map((h) => confirm(f, h)))]);
    expect(pairRows.map((r) => r.kind)).toEqual(['created', 'created']);
    expect((await own.query<{ p: string }>("SELECT current_setting('holdfast.confirm_batch_path', true) AS p")).rows[0]!.p).toBe('one_by_one');
    // Rows this transaction read from each table, by index or by scan (its own counters).
    const read = await own.query<{ relname: string; n: string }>(
      `SELECT relname, (COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0))::text AS n
       FROM pg_stat_xact_user_tables WHERE relname IN ('holds', 'seats') ORDER BY relname`);
    expect(read.rows.map((r) => r.relname)).toEqual(['holds', 'seats']);
    const n = Object.fromEntries(read.rows.map((r) => [r.relname, Number(r.n)]));
    expect(n.holds).toBeLessThan(150);
    expect(n.seats).toBeLessThan(150);
  } finally {
    await own.query('ROLLBACK').catch(() => undefined);
    await own.end();
  }
});
