import { Queue } from 'bullmq';
import pg from 'pg';
import { ensureDatabase, migrateDatabase } from '@holdfast/db';
import { createRedisClient } from '@holdfast/hold-store';
import { QUEUE_NAMES, workerConnection } from '@holdfast/jobs';
import { EVENT_ROWS_DELETE } from './event-rows';
import { leftovers, snapshot, type Snapshot } from './leftovers';

/** A job's keys: `<prefix>:<queue>:<job id>`, and `:logs` or `:lock` after them. */
const JOB_KEY = /^([^:]+):([^:]+):((?:exp_|hld_|wh_)[^:]+)/;

/** Before a run on a database of its own: the database made and migrated when new (as the server would), then its snapshot. */
export async function snapshotBeforeRun(databaseUrl: string, redisUrl: string): Promise<Snapshot> {
  await ensureDatabase(databaseUrl);
  await migrateDatabase(databaseUrl);
  return snapshot(databaseUrl, redisUrl);
}

/**
 * Removes what a run made since `before` in a database and a Redis database
 * that only such runs use (the browser tests' own, whose suites drive a server
 * process they cannot reach into): the events made since, with their rows;
 * the keys the leftover check counts that are new (an event's, an
 * Idempotency-Key's); and the new jobs of holds and deliveries, each removed
 * from its queue as BullMQ removes a job. Run it once the servers that made
 * them have stopped, then check with `leftovers`.
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
  const jobs = new Map<string, Set<string>>();
  const plain: string[] = [];
  for (const key of made.keys) {
    const job = JOB_KEY.exec(key);
    if (!job) {
      plain.push(key);
      continue;
    }
    const [, prefix, queue, id] = job;
    if (!(QUEUE_NAMES as readonly string[]).includes(queue!)) continue;
    const name = `${prefix}\n${queue}`;
    jobs.set(name, (jobs.get(name) ?? new Set()).add(id!));
  }
  const redis = createRedisClient({ redisUrl, redisClusterNodes: null }, { maxRetriesPerRequest: 1 });
  try {
    for (const key of plain) await redis.del(key);
  } finally {
    redis.disconnect();
  }
  for (const [name, ids] of jobs) {
    const [prefix, queueName] = name.split('\n') as [string, string];
    const queue = new Queue(queueName, { connection: workerConnection(redisUrl), prefix });
    try {
      for (const id of ids) await queue.remove(id);
    } finally {
      await queue.close();
    }
  }
}
