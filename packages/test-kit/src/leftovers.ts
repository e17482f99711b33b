import pg from 'pg';
import { createRedisClient } from '@holdfast/hold-store';

/**
 * What a test run leaves behind in a Redis database and a PostgreSQL database
 * (`npm test`'s REDIS_URL and DATABASE_URL, the browser tests' own): every
 * suite removes the rows and keys it made, so a run that ends with more than
 * it started with names them.
 *
 * Counted: rows of every table, and the keys a test makes per event, hold,
 * request or delivery (an event's keys, idempotency keys, the jobs of holds
 * and deliveries). Not counted: a queue's own keys (its meta, id, events,
 * schedulers and the jobs they keep, at most 100 each), and the current
 * year's order-number row (order_sequences): every run shares them. The first
 * confirm on a new database makes the year's row, and removing it would
 * number a later run's orders from 1 again.
 */
export interface Snapshot {
  keys: Set<string>;
  rows: Map<string, number>;
  /** The ids of the events there were. */
  events: Set<string>;
}

/** Tables every run shares (see above). */
const SHARED_TABLES = ['_prisma_migrations', 'order_sequences'];

/** Keys made per event, hold, request or delivery. */
const PER_TEST_KEY = /^(\{ev:|idem:|[^:]+:[^:]+:(exp_|hld_|wh_))/;

export async function snapshot(databaseUrl: string, redisUrl: string): Promise<Snapshot> {
  return { keys: await keysOf(redisUrl), ...(await rowsOf(databaseUrl)) };
}

export interface Leftovers {
  /** Tables with more rows than before, and how many more. */
  rows: Map<string, number>;
  /** Keys that were not there before. */
  keys: string[];
  /** Events that were not there before. */
  events: string[];
}

/** What is in Redis and the database now that was not in `before`. */
export async function leftovers(before: Snapshot, databaseUrl: string, redisUrl: string): Promise<Leftovers> {
  const now = await snapshot(databaseUrl, redisUrl);
  const rows = new Map<string, number>();
  for (const [table, n] of now.rows) {
    const was = before.rows.get(table) ?? 0;
    if (n > was) rows.set(table, n - was);
  }
  return {
    rows,
    keys: [...now.keys].filter((k) => !before.keys.has(k)).sort(),
    events: [...now.events].filter((id) => !before.events.has(id)).sort(),
  };
}

/** Leftovers as lines: a table each, and keys alike but for their ids as one line with a count and an example. */
export function describeLeftovers(left: Leftovers): string[] {
  const lines = [...left.rows].map(([table, n]) => `table ${table}: ${n} more row(s) than before the run`);
  const byShape = new Map<string, string[]>();
  for (const key of left.keys) {
    const shape = key.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>').replace(/[0-9a-f]{16,}/g, '<hex>');
    byShape.set(shape, [...(byShape.get(shape) ?? []), key]);
  }
  for (const [shape, found] of byShape) lines.push(`key ${shape}: ${found.length} (e.g. ${found[0]})`);
  return lines;
}

async function keysOf(redisUrl: string): Promise<Set<string>> {
  const redis = createRedisClient({ redisUrl, redisClusterNodes: null }, { maxRetriesPerRequest: 1 });
  try {
    const keys = new Set<string>();
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'COUNT', 1000);
      for (const k of found) if (PER_TEST_KEY.test(k)) keys.add(k);
      cursor = next;
    } while (cursor !== '0');
    return keys;
  } finally {
    redis.disconnect();
  }
}

async function rowsOf(databaseUrl: string): Promise<Pick<Snapshot, 'rows' | 'events'>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      `SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> ALL ($1::text[]) ORDER BY 1`, [SHARED_TABLES]);
    const rows = new Map<string, number>();
    const events = new Set<string>();
    if (!tables.rows.length) return { rows, events };
    const counts = await client.query<{ name: string; n: number }>(
      tables.rows.map((t) => `SELECT '${t.name}' AS name, count(*)::int AS n FROM public.${t.name}`).join(' UNION ALL '));
    for (const { name, n } of counts.rows) rows.set(name, n);
    if (rows.has('events')) for (const { id } of (await client.query<{ id: string }>('SELECT id FROM events')).rows) events.add(id);
    return { rows, events };
  } finally {
    await client.end();
  }
}
