/**
 * Jest global setup: the tests talk to the real PostgreSQL and Redis, so fail
 * fast, with one clear line, when either is not reachable.
 */
import Redis from 'ioredis';
import { Client } from 'pg';

export default async function globalSetup(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

  const pg = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  try {
    await pg.connect();
    await pg.query('SELECT 1');
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable at ${databaseUrl} (${(error as Error).message}); start it first`);
  } finally {
    await pg.end().catch(() => undefined);
  }

  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5000, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Redis is not reachable at ${redisUrl} (${(error as Error).message}); start it first`);
  } finally {
    redis.disconnect();
  }
}
