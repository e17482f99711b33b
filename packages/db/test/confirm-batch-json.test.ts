// batchJson writes a confirm batch's JSON field by field, reusing a record's JSON from Redis as
// it is. PostgreSQL must read from it exactly what it read from JSON.stringify of the items
// (each without claimUntil, with claimMs): compared here as jsonb on the real PostgreSQL, where
// a repeated key keeps its last value, as the function reads it.
import pg from 'pg';
import { batchJson, type ConfirmBatchItem } from '../src';

let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
});
afterAll(async () => {
  await client.end();
});

/** What the batch sent before: JSON.stringify of each item without claimUntil, claimMs added. */
function stringified(items: ConfirmBatchItem[], now: number): string {
  return JSON.stringify(items.map(({ claimUntil, ...item }) => ({
    ...item, claimMs: claimUntil === null ? null : Math.floor(claimUntil - now),
  })));
}

/** Whether PostgreSQL reads the two texts as the same jsonb, and the first as it is. */
async function sameJsonb(a: string, b: string): Promise<{ same: boolean; a: unknown }> {
  const res = await client.query<{ same: boolean; a: unknown }>('SELECT $1::jsonb = $2::jsonb AS same, $1::jsonb AS a', [a, b]);
  return res.rows[0]!;
}

const created = new Date('2026-11-27T23:59:58.123Z');
const expires = new Date('2026-11-28T00:09:58.123Z');
const fields = {
  eventId: '0b6f6c1e-2a3b-4c5d-8e9f-0a1b2c3d4e5f', customerId: 'cust "quoted" \\ ünï \u2028',
  items: [{ seatId: '1b6f6c1e-2a3b-4c5d-8e9f-0a1b2c3d4e5f', label: 'A-1-1', tier: 'std', priceCents: 2500, quantity: 1 }],
  totalCents: 2500, currency: 'USD',
};
const item = (over: Partial<ConfirmBatchItem>): ConfirmBatchItem => ({
  holdId: 'hld_00000000000000000000000000000001_000000000000000000000001', year: null, held: true, claimUntil: 1_000_000.75,
  provider: 'service', providerEventId: null, reference: 'ref-1', amountCents: null, currency: null, auditActor: null, record: null,
  ...over,
});

test('when a batch’s records have no Redis JSON, then PostgreSQL reads the same batch as from JSON.stringify, every kind of field', async () => {
  const now = 990_000.25;
  // A record with more than the row needs (the domain passes the hold's own id along).
  const withId = { id: 'hld_x', ...fields, createdAt: created, expiresAt: expires };
  const items = [
    item({ record: withId }),
    item({ record: null, claimUntil: null, year: 2031, held: false, amountCents: 1999, currency: 'eur', auditActor: 'admin:7', providerEventId: 'evt_1' }),
    item({ reference: 'a "tricky"\nreference \u0001 \ud83c\udf9f \u2028', provider: 'stripe', record: { ...fields, createdAt: new Date(NaN), expiresAt: expires } }),
  ];
  const { same, a } = await sameJsonb(batchJson(items, now), stringified(items, now));
  expect(same).toBe(true);
  expect((a as { claimMs: number | null }[]).map((c) => c.claimMs)).toEqual([10_000, null, 10_000]);
});

test('when a record carries its Redis JSON, then PostgreSQL reads the same record as from its fields, and whatever else that JSON has', async () => {
  const now = 0;
  const record = { ...fields, createdAt: created, expiresAt: expires };
  const plain = [item({ record })];
  expect((await sameJsonb(batchJson([item({ record: { ...record, json: JSON.stringify(fields) } })], now), stringified(plain, now))).same).toBe(true);
  // A waiting-list offer's record names its entry too; spaces as any JSON writer may put them.
  const json = `{ ${JSON.stringify({ ...fields, waitlistEntryId: 'w1' }).slice(1, -1)} }  `;
  const { a } = await sameJsonb(batchJson([item({ record: { ...record, json } })], now), '[]');
  expect((a as { record: unknown }[])[0]!.record).toEqual({ ...JSON.parse(JSON.stringify(record)), waitlistEntryId: 'w1' });
});

test('when a record’s Redis JSON has the times too, then the record’s own times win, as they did', async () => {
  const json = JSON.stringify({ ...fields, createdAt: '1999-01-01T00:00:00.000Z', expiresAt: 'not a time' });
  const sent = batchJson([item({ record: { ...fields, createdAt: created, expiresAt: expires, json } })], 0);
  const res = await client.query<{ c: string; e: string }>(
    `SELECT ($1::jsonb->0->'record'->>'createdAt')::timestamptz = $2::timestamptz AS c,
            ($1::jsonb->0->'record'->>'expiresAt')::timestamptz = $3::timestamptz AS e`, [sent, created, expires]);
  expect(res.rows[0]).toEqual({ c: true, e: true });
});

test('when a record’s JSON is an empty object or not an object, then the batch is still JSON PostgreSQL reads as the record’s fields', async () => {
  for (const json of ['{}', '[]', 'null', '']) {
    const record = { ...fields, createdAt: created, expiresAt: expires, json };
    const sent = batchJson([item({ record })], 0);
    const { a } = await sameJsonb(sent, sent);
    const got = (a as { record: Record<string, unknown> }[])[0]!.record;
    expect({ json, got }).toEqual({
      json,
      got: json === '{}' ? { createdAt: created.toISOString(), expiresAt: expires.toISOString() }
        : JSON.parse(JSON.stringify({ ...fields, createdAt: created, expiresAt: expires })),
    });
  }
});
