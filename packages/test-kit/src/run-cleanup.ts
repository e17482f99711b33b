import { Queue } from 'bullmq';
import pg from 'pg';
import { ensureDatabase, migrateDatabase } from '@holdfast/db';
import { createRedisClient, masters } from '@holdfast/hold-store';
import { EXPIRY_QUEUE, queuePrefix, workerConnection } from '@holdfast/jobs';
import { EVENT_ROWS_DELETE } from './event-rows';
import { removeExpiryJobsOf } from './expiry-jobs';
import { leftovers, snapshot, type Snapshot } from './leftovers';

/** Before a run on a database of its own: the database made and migrated when new (as the server would), then its snapshot. */
export async function snapshotBeforeRun(databaseUrl: string, redisUrl: string): Promise<Snapshot> {
  await ensureDatabase(databaseUrl);
  await migrateDatabase(databaseUrl);
  return snapshot(databaseUrl, redisUrl);
}

/**
 * Removes what a run made since `before` in a database and a Redis database
 * that only such runs use (the browser tests' own, whose suites drive a server
 * process they cannot reach into), as dropTestEvent removes a suite's event:
 * the events made since, with their rows; the new keys of events and
 * Idempotency-Keys; and the expiry jobs of those events' holds
 * (removeExpiryJobsOf). Run it once the servers that made them have stopped,
 * then check with `leftovers` (a delivery's job, say, is not removed here).
 */
export async function removeWhatTheRunMade(before: Snapshot, databaseUrl: string, redisUrl: string): Promise<void> {
  const made = await leftovers(before, databaseUrl, redisUrl);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (const id of made.events) for (const sql of EVENT_ROWS_DELETE) await db.query(sql, [id]);
  } finally {
    await db.end();
  }
  const redis = masters(createRedisClient({ redisUrl, redisClusterNodes: null }, { maxRetriesPerRequest: 1 }))[0]!;
  const expiry = new Queue(EXPIRY_QUEUE, { connection: workerConnection(redisUrl), prefix: queuePrefix() });
  try {
    for (const key of made.keys) if (key.startsWith('{ev:') || key.startsWith('idem:')) await redis.del(key);
    const keysMatching = async (match: string) => (await redis.scanStream({ match, count: 1000 }).toArray()).flat() as string[];
    for (const id of made.events) await removeExpiryJobsOf(expiry, keysMatching, id);
  } finally {
    await expiry.close();
    redis.disconnect();
  }
}
