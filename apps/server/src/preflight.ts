import { Redis } from 'ioredis';
import type { Config } from '@holdfast/config';
import { ensureDatabase, migrateDatabase } from '@holdfast/db';

/** A start-up failure with a one-line message saying what is wrong and how to fix it. */
export class StartupError extends Error {
  override name = 'StartupError';
}

function where(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol.startsWith('redis') ? 6379 : 5432)}`;
}

/** Checks both services answer, creates the database if needed and applies the migrations. */
export async function preflight(config: Config): Promise<{ createdDatabase: boolean; evictionWarning: string | null }> {
  let createdDatabase: boolean;
  try {
    createdDatabase = await ensureDatabase(config.databaseUrl);
  } catch (err) {
    throw new StartupError(
      `Cannot reach PostgreSQL at ${where(config.databaseUrl)} (${(err as Error).message.split('\n')[0]}): start it (e.g. \`docker compose up -d postgres\`) or set DATABASE_URL.`,
    );
  }
  const evictionWarning = config.redisClusterNodes ? await checkCluster(config) : await checkRedis(config);
  try {
    await migrateDatabase(config.databaseUrl);
  } catch (err) {
    throw new StartupError(`Could not apply the database migrations: ${(err as Error).message.split('\n')[0]}`);
  }
  return { createdDatabase, evictionWarning };
}

function evictionWarningOf(value: string | null): string | null {
  return value && value !== 'noeviction'
    ? `Redis maxmemory-policy is "${value}", not "noeviction": Redis may evict holds and queued jobs under memory pressure. Set maxmemory-policy noeviction.`
    : null;
}

/** A Redis Cluster must answer and serve every slot (cluster_state:ok) before anything starts. */
async function checkCluster(config: Config): Promise<string | null> {
  const seeds = config.redisClusterNodes!.map((n) => `${n.host}:${n.port}`).join(',');
  // Ask the seeds one by one (a cluster client would wait for ever on a cluster without slots).
  let state: string | null = null;
  let policy: string | null = null;
  let reason = 'connection refused';
  for (const seed of config.redisClusterNodes!) {
    const node = new Redis({ ...seed, lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
    node.on('error', () => undefined);
    try {
      await node.connect();
      state = /cluster_state:(\w+)/.exec(String(await node.cluster('INFO')))?.[1] ?? 'unknown';
      const reply = await node.config('GET', 'maxmemory-policy').catch(() => null);
      policy = Array.isArray(reply) ? String(reply[1]) : null;
      break;
    } catch (err) {
      reason = redisReason(err);
    } finally {
      node.disconnect();
    }
  }
  if (state === null) {
    throw new StartupError(
      `Cannot reach the Redis Cluster at ${seeds} (${reason}): start it (e.g. \`scripts/redis-cluster.sh start\`) or set REDIS_CLUSTER_NODES.`,
    );
  }
  if (state !== 'ok') {
    throw new StartupError(`The Redis Cluster at ${seeds} is not ready (cluster_state:${state}): every slot needs a master before holdfast starts.`);
  }
  return evictionWarningOf(policy);
}

async function checkRedis(config: Config): Promise<string | null> {
  const redis = new Redis(config.redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  let evictionWarning: string | null = null;
  try {
    await redis.connect();
    await redis.ping();
    const policy = await redis.config('GET', 'maxmemory-policy').catch(() => null);
    evictionWarning = evictionWarningOf(Array.isArray(policy) ? String(policy[1]) : null);
  } catch (err) {
    throw new StartupError(
      `Cannot reach Redis at ${where(config.redisUrl)} (${redisReason(err)}): start it (e.g. \`docker compose up -d redis\`) or set REDIS_URL.`,
    );
  } finally {
    redis.disconnect();
  }
  return evictionWarning;
}

function redisReason(err: unknown): string {
  const message = (err as Error).message.split('\n')[0] ?? '';
  return message === 'Connection is closed.' ? 'connection refused' : message;
}
