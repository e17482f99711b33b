// Webhook retention on real PostgreSQL: finished deliveries older than the period go with their
// attempts, events go once no delivery is left, pending and queued ones stay whatever their age.
// The suite has a database of its own: a run deletes every old row in the database it is given.
import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '@holdfast/db';
import pg from 'pg';
import type { DomainContext } from '../src/context';
import { purgeWebhookHistory } from '../src/purge-webhook-history';

/** The suite's own copy of the test database ('retention' in test-kit's ISOLATED_DATABASES, made by the global setup). */
function suiteDatabaseUrl(): string {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `${u.pathname}_retention`;
  return u.toString();
}

const DAY = 86_400_000;
const RETENTION = 30 * DAY;

let db: Db;
let ctx: DomainContext;
let endpointId: string;
/** Every event a test made carries this ordering key: cleanup finds them by it. */
let tag: string;

beforeAll(async () => {
  db = createDb(suiteDatabaseUrl());
  // purgeWebhookHistory reads nothing of the context but its database.
  ctx = { db } as unknown as DomainContext;
});
afterAll(async () => {
  await db.$disconnect();
});
beforeEach(async () => {
  tag = `retention-test-${randomUUID()}`;
  endpointId = randomUUID();
  await db.$executeRaw`INSERT INTO webhook_endpoints (id, url, events, secret, created_by)
    VALUES (${endpointId}::uuid, ${`https://example.test/${endpointId}`}, ARRAY['hold.expired'], 'whsec_test', 'test')`;
});
afterEach(async () => {
  await db.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ${endpointId}::uuid`;
  await db.$executeRaw`DELETE FROM webhook_events WHERE ordering_key = ${tag}`;
});

type Status = 'pending' | 'queued' | 'succeeded' | 'failed';

/**
 * `count` events created `ageDays` ago (1 ms apart), each with one delivery per status in
 * `statuses` to the test's endpoint; a finished one finished `finishedAgeDays` ago (default: as
 * old as its event) with `attemptsEach` attempts. Returns the event ids.
 */
async function history(
  count: number, ageDays: number, statuses: Status[], opts: { finishedAgeDays?: number; attemptsEach?: number } = {},
): Promise<string[]> {
  const created = new Date(Date.now() - ageDays * DAY);
  const finished = new Date(Date.now() - (opts.finishedAgeDays ?? ageDays) * DAY);
  const attemptsEach = opts.attemptsEach ?? 2;
  const events = await db.$queryRaw<{ id: string }[]>`
    INSERT INTO webhook_events (id, type, data, ordering_key, created_at)
    SELECT gen_random_uuid(), 'hold.expired', '{}'::jsonb, ${tag}, ${created.toISOString()}::timestamptz - g * interval '1 millisecond'
    FROM generate_series(1, ${count}) g RETURNING id::text`;
  const ids = events.map((e) => e.id);
  await db.$executeRaw`
    INSERT INTO webhook_deliveries (id, event_id, endpoint_id, ordering_key, status, attempts, created_at, finished_at)
    SELECT gen_random_uuid(), ev.id, ${endpointId}::uuid, ${tag}, s.status, ${attemptsEach}, ev.created_at,
           CASE WHEN s.status IN ('succeeded', 'failed') THEN ${finished.toISOString()}::timestamptz END
    FROM webhook_events ev CROSS JOIN unnest(${statuses}::text[]) AS s(status)
    WHERE ev.id = ANY (${ids}::uuid[])`;
  await db.$executeRaw`
    INSERT INTO webhook_attempts (id, delivery_id, attempt, status, response_code, error, started_at, duration_ms)
    SELECT gen_random_uuid(), d.id, a, CASE WHEN a = ${attemptsEach} AND d.status = 'succeeded' THEN 'succeeded' ELSE 'failed' END,
           500, NULL, d.created_at, 12
    FROM webhook_deliveries d CROSS JOIN generate_series(1, ${attemptsEach}) a
    WHERE d.event_id = ANY (${ids}::uuid[])`;
  return ids;
}

async function left(eventIds: string[]): Promise<{ events: number; deliveries: number; attempts: number; statuses: string[] }> {
  const [r] = await db.$queryRaw<{ events: number; deliveries: number; attempts: number; statuses: string[] | null }[]>`
    SELECT (SELECT count(*) FROM webhook_events WHERE id = ANY (${eventIds}::uuid[]))::int AS events,
           (SELECT count(*) FROM webhook_deliveries WHERE event_id = ANY (${eventIds}::uuid[]))::int AS deliveries,
           (SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
             WHERE d.event_id = ANY (${eventIds}::uuid[]))::int AS attempts,
           (SELECT array_agg(status ORDER BY status) FROM webhook_deliveries WHERE event_id = ANY (${eventIds}::uuid[])) AS statuses`;
  return { ...r!, statuses: r!.statuses ?? [] };
}

/** Attempt rows whose delivery is gone, or deliveries whose event is gone: never, whatever ran. */
async function orphans(): Promise<number> {
  const [r] = await db.$queryRaw<{ n: number }[]>`
    SELECT ((SELECT count(*) FROM webhook_attempts a WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id))
          + (SELECT count(*) FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.id = d.event_id)))::int AS n`;
  return r!.n;
}

test('when events and their deliveries are older than the retention period and finished, then they and their attempts are deleted and counted', async () => {
  const old = await history(3, 31, ['succeeded', 'failed'], { attemptsEach: 2 });
  const recent = await history(2, 29, ['succeeded'], { attemptsEach: 1 });
  const report = await purgeWebhookHistory(ctx, { retentionMs: RETENTION });
  expect(await left(old)).toEqual({ events: 0, deliveries: 0, attempts: 0, statuses: [] });
  expect(await left(recent)).toEqual({ events: 2, deliveries: 2, attempts: 2, statuses: ['succeeded', 'succeeded'] });
  expect(report).toMatchObject({ events: 3, deliveries: 6, attempts: 12, complete: true });
});

test('when a delivery is still pending or queued, then neither it nor its event is deleted, however old', async () => {
  const waiting = await history(2, 3650, ['pending', 'queued'], { attemptsEach: 1 });
  const report = await purgeWebhookHistory(ctx, { retentionMs: RETENTION });
  expect(await left(waiting)).toEqual({ events: 2, deliveries: 4, attempts: 4, statuses: ['pending', 'pending', 'queued', 'queued'] });
  expect(report).toMatchObject({ events: 0, deliveries: 0, attempts: 0, complete: true });
});

test('when an old event has one finished and one pending delivery, then the event and the pending delivery are kept and only the finished one goes', async () => {
  const mixed = await history(1, 40, ['succeeded', 'pending'], { attemptsEach: 3 });
  const report = await purgeWebhookHistory(ctx, { retentionMs: RETENTION });
  expect(await left(mixed)).toEqual({ events: 1, deliveries: 1, attempts: 3, statuses: ['pending'] });
  expect(report).toMatchObject({ events: 0, deliveries: 1, attempts: 3 });
  // Once the pending one is over (and old), the next run takes the event too.
  await db.$executeRaw`UPDATE webhook_deliveries SET status = 'failed', finished_at = now() - interval '31 days'
    WHERE event_id = ${mixed[0]!}::uuid`;
  await purgeWebhookHistory(ctx, { retentionMs: RETENTION });
  expect(await left(mixed)).toEqual({ events: 0, deliveries: 0, attempts: 0, statuses: [] });
});

test('when an old event\'s delivery finished within the retention period, then the delivery, its attempts and the event are kept', async () => {
  const late = await history(1, 45, ['failed'], { finishedAgeDays: 10, attemptsEach: 2 });
  await purgeWebhookHistory(ctx, { retentionMs: RETENTION });
  expect(await left(late)).toEqual({ events: 1, deliveries: 1, attempts: 2, statuses: ['failed'] });
});

test('when an old event has no delivery at all, then it is deleted', async () => {
  const bare = await history(2, 31, []);
  const report = await purgeWebhookHistory(ctx, { retentionMs: RETENTION });
  expect(await left(bare)).toEqual({ events: 0, deliveries: 0, attempts: 0, statuses: [] });
  expect(report).toMatchObject({ events: 2, deliveries: 0, attempts: 0 });
});

test('when there are more old events than one batch, then every one is deleted across batches, pending ones among them kept', async () => {
  const finished = await history(2_350, 60, ['succeeded'], { attemptsEach: 1 });
  const waiting = await history(150, 60, ['queued'], { attemptsEach: 1 });
  const report = await purgeWebhookHistory(ctx, { retentionMs: RETENTION, batchSize: 1000 });
  expect(await left(finished)).toEqual({ events: 0, deliveries: 0, attempts: 0, statuses: [] });
  expect((await left(waiting)).events).toBe(150);
  expect(report).toMatchObject({ events: 2_350, deliveries: 2_350, attempts: 2_350, complete: true });
  expect(report.batches).toBe(3);
});

test('when a run\'s time budget runs out, then it stops after the batch in hand, says it is not complete, and the next run deletes the rest', async () => {
  const old = await history(250, 31, ['succeeded'], { attemptsEach: 1 });
  const first = await purgeWebhookHistory(ctx, { retentionMs: RETENTION, batchSize: 100, budgetMs: 0 });
  expect(first).toMatchObject({ events: 100, batches: 1, complete: false });
  expect((await left(old)).events).toBe(150);
  const second = await purgeWebhookHistory(ctx, { retentionMs: RETENTION, batchSize: 100 });
  expect(second).toMatchObject({ events: 150, complete: true });
  expect((await left(old)).events).toBe(0);
});

test('when it runs twice, then the second run deletes nothing and reports nothing', async () => {
  const old = await history(20, 31, ['succeeded', 'failed']);
  const kept = await history(5, 31, ['pending']);
  const first = await purgeWebhookHistory(ctx, { retentionMs: RETENTION });
  const second = await purgeWebhookHistory(ctx, { retentionMs: RETENTION });
  expect(first).toMatchObject({ events: 20, deliveries: 40, attempts: 80 });
  expect(second).toMatchObject({ events: 0, deliveries: 0, attempts: 0, complete: true });
  expect((await left(old)).events).toBe(0);
  expect(await left(kept)).toMatchObject({ events: 5, deliveries: 5 });
});

test('when four runs go at once over the same old rows, then every finished row is deleted exactly once, pending ones stay, and nothing is left orphaned', async () => {
  const finished = await history(3_000, 31, ['succeeded', 'failed'], { attemptsEach: 1 });
  const waiting = await history(100, 31, ['pending', 'succeeded'], { attemptsEach: 1 });
  const reports = await Promise.all([1, 2, 3, 4].map(() => purgeWebhookHistory(ctx, { retentionMs: RETENTION, batchSize: 250 })));
  const sum = (k: 'events' | 'deliveries' | 'attempts') => reports.reduce((n, r) => n + r[k], 0);
  // Counted once each: no row deleted by two runs (their batches lock different events).
  expect({ events: sum('events'), deliveries: sum('deliveries'), attempts: sum('attempts') })
    .toEqual({ events: 3_000, deliveries: 6_100, attempts: 6_100 });
  expect(await left(finished)).toEqual({ events: 0, deliveries: 0, attempts: 0, statuses: [] });
  expect(await left(waiting)).toMatchObject({ events: 100, deliveries: 100, attempts: 100 });
  expect((await left(waiting)).statuses.every((s) => s === 'pending')).toBe(true);
  expect(await orphans()).toBe(0);
});

/** A second endpoint with one finished delivery (and one attempt) on each of `eventIds`, finished as long ago as its event. */
async function secondEndpointOn(eventIds: string[]): Promise<string> {
  const id = randomUUID();
  await db.$executeRaw`INSERT INTO webhook_endpoints (id, url, events, secret, created_by)
    VALUES (${id}::uuid, ${`https://example.test/${id}`}, ARRAY['hold.expired'], 'whsec_test', 'test')`;
  await db.$executeRaw`
    INSERT INTO webhook_deliveries (id, event_id, endpoint_id, ordering_key, status, attempts, created_at, finished_at)
    SELECT gen_random_uuid(), ev.id, ${id}::uuid, ${tag}, 'succeeded', 1, ev.created_at, ev.created_at
    FROM webhook_events ev WHERE ev.id = ANY (${eventIds}::uuid[])`;
  await db.$executeRaw`
    INSERT INTO webhook_attempts (id, delivery_id, attempt, status, response_code, error, started_at, duration_ms)
    SELECT gen_random_uuid(), d.id, 1, 'succeeded', 200, NULL, d.created_at, 12
    FROM webhook_deliveries d WHERE d.endpoint_id = ${id}::uuid`;
  return id;
}

/** Settles with 'blocked' when `work` has not settled within `ms` (it waits on a lock it should never wait on). */
function settledWithin<T>(work: Promise<T>, ms: number): Promise<T | 'blocked'> {
  let timer: NodeJS.Timeout | undefined;
  const blocked = new Promise<'blocked'>((resolve) => { timer = setTimeout(() => resolve('blocked'), ms); });
  return Promise.race([work, blocked]).finally(() => clearTimeout(timer));
}

test('when an endpoint\'s deletion is in flight, then a purge neither waits for it nor deletes what it holds, and once both are over the next run leaves nothing old and nothing orphaned', async () => {
  const shared = await history(50, 31, ['failed'], { attemptsEach: 1 });
  const second = await secondEndpointOn(shared);
  // The deletion's transaction (as deleteWebhookEndpointRow runs it), left open: it holds the
  // second endpoint's row, its 50 deliveries and their attempts.
  const deleting = new pg.Client({ connectionString: suiteDatabaseUrl() });
  await deleting.connect();
  try {
    await deleting.query('BEGIN');
    await deleting.query('DELETE FROM webhook_endpoints WHERE id = $1::uuid', [second]);
    await deleting.query('DELETE FROM webhook_events ev WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id)');
    const purged = await settledWithin(purgeWebhookHistory(ctx, { retentionMs: RETENTION }), 15_000);
    if (purged === 'blocked') await deleting.query('ROLLBACK');
    expect(purged).not.toBe('blocked');
    // The test endpoint's deliveries went; the events stay, the deletion's rows being locked and still there for the purge.
    expect(purged).toMatchObject({ events: 0, deliveries: 50, attempts: 50 });
    await deleting.query('COMMIT');
  } finally {
    await deleting.end();
  }
  expect(await left(shared)).toEqual({ events: 50, deliveries: 0, attempts: 0, statuses: [] });
  expect(await orphans()).toBe(0);
  // The events both left behind have no delivery any more: the next run takes them.
  expect(await purgeWebhookHistory(ctx, { retentionMs: RETENTION })).toMatchObject({ events: 50, deliveries: 0 });
  expect(await left(shared)).toEqual({ events: 0, deliveries: 0, attempts: 0, statuses: [] });
});
