// recordWebhookEvent writes an event and its deliveries in the caller's transaction: they commit
// with it or not at all, and nothing is written when no enabled endpoint subscribes to the type.
import { randomUUID } from 'node:crypto';
import { createDb, runTransaction, type Db } from '@holdfast/db';
import { recordWebhookEvent } from '../src/webhook-events';

let db: Db;
const endpoints: string[] = [];

beforeAll(() => {
  db = createDb(process.env.DATABASE_URL!);
});
afterAll(async () => {
  await db.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ANY (${endpoints}::uuid[])`;
  await db.$executeRaw`DELETE FROM webhook_events ev WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id)`;
  await db.$disconnect();
});

async function endpoint(events: string[], enabled = true): Promise<string> {
  const id = randomUUID();
  endpoints.push(id);
  await db.$executeRaw`INSERT INTO webhook_endpoints (id, url, events, secret, enabled, created_by)
    VALUES (${id}::uuid, ${`https://example.test/${id}`}, ${events}::text[], 'whsec_test', ${enabled}, 'test')`;
  return id;
}

async function deliveriesOf(eventId: string): Promise<{ endpoint_id: string; status: string; ordering_key: string | null }[]> {
  return db.$queryRaw`SELECT endpoint_id::text, status, ordering_key FROM webhook_deliveries WHERE event_id = ${eventId}::uuid ORDER BY endpoint_id`;
}

test('when an enabled endpoint subscribes to the type, then the event and one pending delivery per such endpoint commit with the transaction', async () => {
  const a = await endpoint(['hold.released', 'hold.expired']);
  const b = await endpoint(['hold.released']);
  const other = await endpoint(['order.confirmed']);
  const off = await endpoint(['hold.released'], false);
  const holdId = `h_${randomUUID()}`;
  const eventId = await runTransaction(db, (tx) => recordWebhookEvent(tx, 'hold.released', { hold: { id: holdId } }, holdId));
  expect(eventId).not.toBeNull();
  const rows = await deliveriesOf(eventId!);
  const mine = rows.filter((r) => [a, b, other, off].includes(r.endpoint_id));
  expect(mine.map((r) => r.endpoint_id).sort()).toEqual([a, b].sort());
  expect(mine.every((r) => r.status === 'pending' && r.ordering_key === holdId)).toBe(true);
  const [ev] = await db.$queryRaw<{ type: string; data: unknown }[]>`SELECT type, data FROM webhook_events WHERE id = ${eventId!}::uuid`;
  expect(ev).toEqual({ type: 'hold.released', data: { hold: { id: holdId } } });
});

test('when the transaction rolls back, then neither the event nor its deliveries exist', async () => {
  await endpoint(['hold.expired']);
  let eventId: string | null = null;
  await expect(runTransaction(db, async (tx) => {
    eventId = await recordWebhookEvent(tx, 'hold.expired', { hold: { id: 'x' } }, null);
    throw new Error('the change failed');
  })).rejects.toThrow('the change failed');
  expect(eventId).not.toBeNull();
  const [n] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_events WHERE id = ${eventId!}::uuid`;
  expect(n!.n).toBe(0);
  expect(await deliveriesOf(eventId!)).toEqual([]);
});

test('when no enabled endpoint subscribes to the type, then nothing is written', async () => {
  await endpoint(['payment.refund_required'], false);
  const before = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_events WHERE type = 'payment.refund_required'`;
  const id = await runTransaction(db, (tx) => recordWebhookEvent(tx, 'payment.refund_required', { payment: {} }, null));
  expect(id).toBeNull();
  const after = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_events WHERE type = 'payment.refund_required'`;
  expect(after[0]!.n).toBe(before[0]!.n);
});
