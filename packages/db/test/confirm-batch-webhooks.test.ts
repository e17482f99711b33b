// The confirm function writes each new order's order.confirmed event, and one delivery per
// enabled endpoint subscribed to it, in the batch's own transaction: an order always has its
// event, a confirm undone (rolled back, or refused by the fence) has none. Run on a database of
// its own (no other suite's endpoints subscribe there).
import { randomUUID } from 'node:crypto';
import pg from 'pg';

let client: pg.Client;
const events: string[] = [];
const endpoints: string[] = [];

/** The suite's own copy of the test database (ISOLATED_DATABASES in the test kit: 'hookconfirm'). */
function ownDatabaseUrl(): string {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `${u.pathname}_hookconfirm`;
  return u.toString();
}

beforeAll(async () => {
  client = new pg.Client({ connectionString: ownDatabaseUrl() });
  await client.connect();
});
afterAll(async () => {
  await client.query('DELETE FROM webhook_endpoints WHERE id = ANY ($1::uuid[])', [endpoints]);
  await client.query('DELETE FROM webhook_events ev WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id)');
  for (const id of events) {
    await client.query('DELETE FROM payments WHERE event_id = $1', [id]);
    await client.query('DELETE FROM events WHERE id = $1', [id]);
  }
  await client.end();
});

interface Fixture { eventId: string; seats: string[]; ticketTypeId: string }

async function fixture(seatCount: number): Promise<Fixture> {
  const eventId = randomUUID();
  events.push(eventId);
  await client.query(
    `INSERT INTO events (id, name, starts_at, currency, hold_ttl_seconds, max_tickets_per_customer, seat_count)
     VALUES ($1, 'confirm webhooks', now() + interval '30 days', 'EUR', 600, 10, $2)`, [eventId, seatCount]);
  const seats: string[] = [];
  for (let i = 1; i <= seatCount; i++) {
    const id = randomUUID();
    seats.push(id);
    await client.query(
      `INSERT INTO seats (id, event_id, section, row, number, label, tier, price_cents) VALUES ($1, $2, 'A', '1', $3, $4, 'std', 2500)`,
      [id, eventId, i, `A-1-${i}`]);
  }
  const ticketTypeId = randomUUID();
  await client.query(`INSERT INTO ticket_types (id, event_id, name, price_cents, capacity) VALUES ($1, $2, 'GA', 1000, 100)`, [ticketTypeId, eventId]);
  return { eventId, seats, ticketTypeId };
}

type Item = { seatId: string; label: string; tier: string; priceCents: number; quantity: 1 }
  | { ticketTypeId: string; name: string; priceCents: number; quantity: number };
const seatItem = (f: Fixture, i: number): Item => ({ seatId: f.seats[i]!, label: `A-1-${i + 1}`, tier: 'std', priceCents: 2500, quantity: 1 });
const gaItem = (f: Fixture, quantity: number): Item => ({ ticketTypeId: f.ticketTypeId, name: 'GA', priceCents: 1000, quantity });

async function holdRow(f: Fixture, items: Item[]): Promise<string> {
  const id = `h_${randomUUID().replace(/-/g, '')}`;
  const total = items.reduce((sum, it) => sum + it.priceCents * it.quantity, 0);
  await client.query(
    `INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
     VALUES ($1, $2, $3, 'ACTIVE', now(), now() + interval '10 minutes', $4, $5, 'EUR')`,
    [id, f.eventId, `buyer-${id.slice(2, 8)}`, JSON.stringify(items), total]);
  return id;
}

const confirm = (holdId: string) => ({
  holdId, year: null, held: true, claimUntil: null, provider: 'service', providerEventId: null, reference: `ref-${holdId}`,
  amountCents: null, currency: null, auditActor: null, record: null,
});

interface OrderJson {
  id: string; number: string; eventId: string; customerId: string; holdId: string; totalCents: number; currency: string;
  paymentReference: string; createdAt: string;
  items: { seatId: string | null; ticketTypeId: string | null; label: string; tier: string | null; priceCents: number; quantity: number }[];
}
interface Answer { idx: number; kind: string; order_json: OrderJson | null }

async function runBatch(confirms: unknown[]): Promise<Answer[]> {
  return (await client.query<Answer>('SELECT idx, kind, order_json FROM holdfast_confirm_batch($1::jsonb)', [JSON.stringify(confirms)])).rows;
}

async function endpoint(events: string[], enabled = true): Promise<string> {
  const id = randomUUID();
  endpoints.push(id);
  await client.query(`INSERT INTO webhook_endpoints (id, url, events, secret, enabled, created_by) VALUES ($1, $2, $3, 'whsec_t', $4, 'test')`,
    [id, `https://example.test/${id}`, events, enabled]);
  return id;
}

async function eventsOf(holdIds: string[]) {
  return (await client.query<{ id: string; type: string; data: { order: Record<string, unknown> }; ordering_key: string; endpoints: string[] }>(
    `SELECT ev.id, ev.type, ev.data, ev.ordering_key,
            ARRAY(SELECT d.endpoint_id::text FROM webhook_deliveries d WHERE d.event_id = ev.id AND d.status = 'pending' ORDER BY 1) AS endpoints
     FROM webhook_events ev WHERE ev.ordering_key = ANY ($1::text[]) ORDER BY ev.ordering_key`, [holdIds])).rows;
}

/** The order as the API answers it (orderFromRow), from the function's own answer. */
function apiOrder(o: OrderJson) {
  return {
    id: o.id, number: o.number, eventId: o.eventId, customerId: o.customerId, holdId: o.holdId, status: 'confirmed',
    items: o.items.map((i) => (i.seatId
      ? { seatId: i.seatId, label: i.label, tier: i.tier ?? '', priceCents: i.priceCents, quantity: 1 }
      : { ticketTypeId: i.ticketTypeId, name: i.label, priceCents: i.priceCents, quantity: i.quantity })),
    totalCents: o.totalCents, currency: o.currency, paymentReference: o.paymentReference, createdAt: new Date(o.createdAt).toISOString(),
  };
}

test('when a batch commits orders (as a set and one by one), then each order has one order.confirmed event, the order as the API answers it, delivered to each subscribed endpoint', async () => {
  const a = await endpoint(['order.confirmed']);
  const b = await endpoint(['hold.expired', 'order.confirmed']);
  await endpoint(['hold.expired']);
  await endpoint(['order.confirmed'], false);
  const f = await fixture(6);
  const set = [
    await holdRow(f, [seatItem(f, 0), seatItem(f, 1)]), await holdRow(f, [gaItem(f, 3)]),
    await holdRow(f, [seatItem(f, 2)]), await holdRow(f, [gaItem(f, 2)]),
  ];
  const lone = await holdRow(f, [seatItem(f, 3)]);
  const answers = [...(await runBatch(set.map(confirm))), ...(await runBatch([confirm(lone)]))];
  expect(answers.map((x) => x.kind)).toEqual(['created', 'created', 'created', 'created', 'created']);
  const rows = await eventsOf([...set, lone]);
  expect(rows).toHaveLength(5);
  for (const ans of answers) {
    const ev = rows.find((r) => r.ordering_key === ans.order_json!.holdId)!;
    expect(ev.type).toBe('order.confirmed');
    expect(ev.data).toEqual({ order: apiOrder(ans.order_json!) });
    expect(ev.endpoints).toEqual([a, b].sort());
  }
});

test('when the batch transaction rolls back, then none of its orders has an event or a delivery', async () => {
  await endpoint(['order.confirmed']);
  const f = await fixture(2);
  const holds = [await holdRow(f, [seatItem(f, 0)]), await holdRow(f, [seatItem(f, 1)])];
  await client.query('BEGIN');
  const answers = await runBatch(holds.map(confirm));
  expect(answers.map((x) => x.kind)).toEqual(['created', 'created']);
  expect(await eventsOf(holds)).toHaveLength(2);
  await client.query('ROLLBACK');
  expect(await eventsOf(holds)).toEqual([]);
  const [n] = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM orders WHERE event_id = $1', [f.eventId])).rows;
  expect(n!.n).toBe(0);
});

test('when the fence refuses a confirm of the batch, then only the confirms that made an order have an event', async () => {
  await endpoint(['order.confirmed']);
  const f = await fixture(2);
  const first = await holdRow(f, [seatItem(f, 0)]);
  const taken = await holdRow(f, [seatItem(f, 1)]);
  await client.query("UPDATE seats SET status = 'SOLD' WHERE id = $1", [f.seats[1]]);
  const answers = await runBatch([confirm(first), confirm(taken)]);
  expect(answers.map((x) => x.kind)).toEqual(['created', 'fence']);
  expect((await eventsOf([first, taken])).filter((r) => r.type === 'order.confirmed').map((r) => r.ordering_key)).toEqual([first]);
});

/** The hold as the API answers it (holdFromRow), read from its row. */
async function apiHold(id: string) {
  const { rows } = await client.query<{
    id: string; event_id: string; customer_id: string; created_at: Date; expires_at: Date; items: unknown; total_cents: string;
    currency: string; order_id: string | null; released_by: string | null; extensions: number;
  }>('SELECT * FROM holds WHERE id = $1', [id]);
  const r = rows[0]!;
  return {
    id: r.id, eventId: r.event_id, customerId: r.customer_id, status: 'expired', createdAt: r.created_at.toISOString(),
    expiresAt: r.expires_at.toISOString(), items: r.items, totalCents: Number(r.total_cents), currency: r.currency,
    orderId: r.order_id, releasedBy: r.released_by, extensions: r.extensions,
  };
}

test('when a batch ends holds as expired (a lapsed lease as a set and one by one, the fence, the limit), then each gets one hold.expired event with the hold as the API answers it; a hold expired before gets none', async () => {
  const hook = await endpoint(['hold.expired']);
  const f = await fixture(8);
  // As a set: four confirms, the second without its lease.
  const set = [
    await holdRow(f, [seatItem(f, 0)]), await holdRow(f, [seatItem(f, 1)]), await holdRow(f, [seatItem(f, 2)]), await holdRow(f, [seatItem(f, 3)]),
  ];
  const setAnswers = await runBatch(set.map((h, i) => (i === 1 ? { ...confirm(h), held: false } : confirm(h))));
  expect(setAnswers.map((x) => x.kind)).toEqual(['created', 'expired', 'created', 'created']);
  // One by one: a lapsed lease, a fence refusal, and a hold that was expired already.
  const lapsed = await holdRow(f, [seatItem(f, 4)]);
  const fenced = await holdRow(f, [seatItem(f, 5)]);
  await client.query("UPDATE seats SET status = 'SOLD' WHERE id = $1", [f.seats[5]]);
  const before = await holdRow(f, [seatItem(f, 6)]);
  await client.query("UPDATE holds SET status = 'EXPIRED', ended_at = now() WHERE id = $1", [before]);
  const loopAnswers = await runBatch([{ ...confirm(lapsed), held: false }, confirm(fenced), { ...confirm(before), held: false }]);
  expect(loopAnswers.map((x) => x.kind)).toEqual(['expired', 'fence', 'expired']);
  const expired = (await eventsOf([...set, lapsed, fenced, before])).filter((r) => r.type === 'hold.expired');
  expect(expired.map((r) => r.ordering_key).sort()).toEqual([set[1]!, lapsed, fenced].sort());
  for (const ev of expired) {
    expect(ev.data).toEqual({ hold: await apiHold(ev.ordering_key) });
    expect(ev.endpoints).toContain(hook);
  }
});

test('when no enabled endpoint subscribes to order.confirmed, then a confirm writes no event', async () => {
  await client.query("UPDATE webhook_endpoints SET enabled = false WHERE id = ANY ($1::uuid[])", [endpoints]);
  const f = await fixture(1);
  const hold = await holdRow(f, [seatItem(f, 0)]);
  expect((await runBatch([confirm(hold)])).map((x) => x.kind)).toEqual(['created']);
  expect(await eventsOf([hold])).toEqual([]);
});
