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
  const redis = new Redis(config.redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  let evictionWarning: string | null = null;
  try {
    await redis.connect();
    await redis.ping();
    const policy = await redis.config('GET', 'maxmemory-policy').catch(() => null);
    const value = Array.isArray(policy) ? String(policy[1]) : null;
    if (value && value !== 'noeviction') {
      evictionWarning = `Redis maxmemory-policy is "${value}", not "noeviction": Redis may evict holds and queued jobs under memory pressure. Set maxmemory-policy noeviction.`;
    }
  } catch (err) {
    throw new StartupError(
      `Cannot reach Redis at ${where(config.redisUrl)} (${redisReason(err)}): start it (e.g. \`docker compose up -d redis\`) or set REDIS_URL.`,
    );
  } finally {
    redis.disconnect();
  }
  try {
    await migrateDatabase(config.databaseUrl);
  } catch (err) {
    throw new StartupError(`Could not apply the database migrations: ${(err as Error).message.split('\n')[0]}`);
  }
  return { createdDatabase, evictionWarning };
}

function redisReason(err: unknown): string {
  const message = (err as Error).message.split('\n')[0] ?? '';
  return message === 'Connection is closed.' ? 'connection refused' : message;
}
