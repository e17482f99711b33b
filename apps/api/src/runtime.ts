import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import type { Config } from '@holdfast/config';
import { createDb, type Db } from '@holdfast/db';
import { createDomain, type DomainContext } from '@holdfast/domain';
import { ChangeFeed, HoldStore } from '@holdfast/hold-store';
import type { Express } from 'express';
import { createApp } from './app';
import { createMetrics, type Metrics } from './metrics';

export interface ApiRuntime {
  app: Express;
  ctx: DomainContext;
  db: Db;
  redis: Redis;
  log: Logger;
  metrics: Metrics;
  close(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'logLevel'>, name: string): Logger {
  return pino({
    name,
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.stripe-signature', 'token', '*.token'], remove: true },
  });
}

/**
 * The API's Redis connection fails fast: no offline queue, one retry, short
 * timeouts, so a request answers 503 within 2 seconds while Redis is away, and
 * the client reconnects by itself when it returns.
 */
export function createApiRedis(url: string): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1500,
    connectTimeout: 1500,
    retryStrategy: (times) => Math.min(100 * times, 1000),
    lazyConnect: true,
  });
}

/** Wires the API: PostgreSQL, Redis, the domain and the HTTP app (not yet listening). */
export async function createApiRuntime(config: Config, log = createLogger(config, 'holdfast-api')): Promise<ApiRuntime> {
  const db = createDb(config.databaseUrl, { poolSize: 20, connectionTimeoutMillis: 1500 });
  const redis = createApiRedis(config.redisUrl);
  redis.on('error', (err) => log.debug({ err: err.message }, 'redis connection error'));
  await redis.connect();
  // Pub/sub needs a connection of its own; it may queue while Redis is away.
  const subscriber = new Redis(config.redisUrl, { lazyConnect: true, retryStrategy: (times) => Math.min(100 * times, 1000) });
  subscriber.on('error', (err) => log.debug({ err: err.message }, 'redis subscriber connection error'));
  await subscriber.connect();
  const feed = new ChangeFeed(subscriber);
  const metrics = createMetrics();
  const ctx = createDomain({
    db,
    store: new HoldStore(redis),
    settings: { holdRateLimitPerMinute: config.holdRateLimitPerMinute },
    log,
    metrics: metrics.domain,
  });
  const app = createApp({
    ctx, config, log, metrics, feed,
    checks: { postgres: () => db.$queryRaw`SELECT 1`, redis: () => redis.ping() },
  });
  return {
    app, ctx, db, redis, log, metrics,
    async close() {
      await ctx.persister.flush().catch(() => undefined);
      ctx.persister.stop();
      redis.disconnect();
      subscriber.disconnect();
      await db.$disconnect();
    },
  };
}
