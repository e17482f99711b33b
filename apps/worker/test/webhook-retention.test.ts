// Webhook retention as the worker runs it: a job scheduler on the maintenance queue (BullMQ on a
// Redis of the suite's own), the processor parsing its job data, the rows deleted on PostgreSQL,
// a log line and the worker's metric. The suite has a database of its own (a run sees all of it).
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '@holdfast/config';
import { createDb, type Db } from '@holdfast/db';
import { WEBHOOK_RETENTION_JOB } from '@holdfast/jobs';
import { RedisProcess, isolatedDatabaseUrl, logLines, waitFor } from '@holdfast/test-kit';
import { startWorker, type WorkerHandle } from '../src';

let redis: RedisProcess;
let worker: WorkerHandle;
let db: Db;
const { sink, lines } = logLines();
const endpointId = randomUUID();
const tag = `retention-job-${randomUUID()}`;

beforeAll(async () => {
  redis = await RedisProcess.start();
  const config = loadConfig({
    ...process.env, DATABASE_URL: isolatedDatabaseUrl('retentionjob'), REDIS_URL: redis.url, WEBHOOK_RETENTION_DAYS: '2', LOG_LEVEL: 'info',
  });
  db = createDb(config.databaseUrl);
  await db.$executeRaw`INSERT INTO webhook_endpoints (id, url, events, secret, created_by)
    VALUES (${endpointId}::uuid, ${`https://example.test/${endpointId}`}, ARRAY['hold.expired'], 'whsec_test', 'test')`;
  worker = await startWorker(config, {
    log: pino({ level: 'info' }, sink), metricsPort: null, sweepEveryMs: 600_000, reconcileEveryMs: 3_600_000, webhookRetentionEveryMs: 300,
  });
});
afterAll(async () => {
  await worker?.close();
  if (db) {
    await db.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ${endpointId}::uuid`;
    await db.$executeRaw`DELETE FROM webhook_events WHERE ordering_key = ${tag}`;
    await db.$disconnect();
  }
  await redis?.stop();
});

/** `count` events `ageDays` old, each with one delivery of `status` (finished as old as its event) and one attempt. */
async function history(count: number, ageDays: number, status: 'succeeded' | 'failed' | 'queued'): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    WITH ev AS (
      INSERT INTO webhook_events (id, type, data, ordering_key, created_at)
      SELECT gen_random_uuid(), 'hold.expired', '{}'::jsonb, ${tag}, now() - ${ageDays} * interval '1 day' - g * interval '1 millisecond'
      FROM generate_series(1, ${count}) g RETURNING id, created_at
    ),
    d AS (
      INSERT INTO webhook_deliveries (id, event_id, endpoint_id, ordering_key, status, attempts, created_at, finished_at)
      SELECT gen_random_uuid(), ev.id, ${endpointId}::uuid, ${tag}, ${status}, 1, ev.created_at,
             CASE WHEN ${status} IN ('succeeded', 'failed') THEN ev.created_at END
      FROM ev RETURNING id, created_at
    ),
    a AS (
      INSERT INTO webhook_attempts (id, delivery_id, attempt, status, response_code, started_at, duration_ms)
      SELECT gen_random_uuid(), d.id, 1, 'failed', 503, d.created_at, 7 FROM d
    )
    SELECT id::text FROM ev`;
  return rows.map((r) => r.id);
}

async function eventsLeft(ids: string[]): Promise<number> {
  const [r] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_events WHERE id = ANY (${ids}::uuid[])`;
  return r!.n;
}

test('when the worker runs, then webhook retention is a job scheduler on the maintenance queue', async () => {
  const schedulers = await worker.maintenanceQueue.getJobSchedulers();
  const retention = schedulers.find((s) => s.key === 'webhook-retention');
  expect(retention).toMatchObject({ name: WEBHOOK_RETENTION_JOB, every: 300 });
});

test('when finished deliveries are older than WEBHOOK_RETENTION_DAYS, then the scheduled job deletes them and their events, keeps a queued one, logs and counts what it removed', async () => {
  const old = await history(40, 3, 'succeeded');
  const waiting = await history(3, 3, 'queued');
  const recent = await history(2, 1, 'failed');
  await waitFor('the retention job to delete the old history', async () => (await eventsLeft(old)) === 0, { timeoutMs: 20_000, intervalMs: 100 });
  expect(await eventsLeft(waiting)).toBe(3);
  expect(await eventsLeft(recent)).toBe(2);
  const [d] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY (${[...waiting, ...recent]}::uuid[])`;
  expect(d!.n).toBe(5);
  const logged = await waitFor('the log line', () => lines.map((l) => JSON.parse(l) as { msg: string; events?: number; deliveries?: number; attempts?: number })
    .filter((l) => /webhook retention deleted/.test(l.msg)), { timeoutMs: 5000 });
  expect(logged.reduce((n, l) => n + (l.events ?? 0), 0)).toBe(40);
  expect(logged.reduce((n, l) => n + (l.attempts ?? 0), 0)).toBe(40);
  const metric = await worker.metrics.webhookRowsDeleted.get();
  const value = (table: string) => metric.values.find((v) => v.labels.table === table)?.value ?? 0;
  expect({ events: value('events'), deliveries: value('deliveries'), attempts: value('attempts') }).toEqual({ events: 40, deliveries: 40, attempts: 40 });
});

test('when a retention job carries data that is not a retention job\'s, then it fails naming the field', async () => {
  const job = await worker.maintenanceQueue.add(WEBHOOK_RETENTION_JOB, { batchSize: 'all' }, { attempts: 1 });
  const failed = await waitFor('the job to fail', async () => ((await job.getState()) === 'failed' ? job : null), { timeoutMs: 10_000, intervalMs: 50 });
  const reloaded = await worker.maintenanceQueue.getJob(failed.id!);
  expect(reloaded?.failedReason).toMatch(/batchSize/);
});
