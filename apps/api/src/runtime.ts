import { Queue } from 'bullmq';
import pino, { type DestinationStream, type Logger } from 'pino';
import { PRETTY_TRANSPORT, prettyLogs, type Config } from '@holdfast/config';
import { createDb, type Db } from '@holdfast/db';
import { createDomain, type DomainContext } from '@holdfast/domain';
import {
  ChangeFeed, createRedisClient, HoldStore, maxmemoryPolicy, ReconcileStore, type RedisClient, type RedisTarget,
} from '@holdfast/hold-store';
import { EXPIRY_QUEUE, MAINTENANCE_QUEUE, WEBHOOK_QUEUE, queuePrefix, scheduleExpiries } from '@holdfast/jobs';
import type { Express } from 'express';
import { createApp } from './app';
import { createMetrics, type Metrics } from './metrics';

export interface ApiRuntime {
  app: Express;
  ctx: DomainContext;
  db: Db;
  redis: RedisClient;
  log: Logger;
  metrics: Metrics;
  queues: { expiry: Queue; maintenance: Queue; webhooks: Queue };
  close(): Promise<void>;
}

/** JSON lines, or human-readable lines on a terminal (LOG_FORMAT); secrets are never written. */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat' | 'nodeEnv'>, name: string, destination?: DestinationStream): Logger {
  const options = {
    name,
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.stripe-signature', 'token', '*.token'], remove: true },
  };
  if (destination) return pino(options, destination);
  return prettyLogs(config, process.stdout.isTTY === true) ? pino({ ...options, transport: PRETTY_TRANSPORT }) : pino(options);
}

/**
 * The API's Redis connection fails fast: no offline queue, one retry, short
 * timeouts, so a request answers 503 within 2 seconds while Redis is away, and
 * the client reconnects by itself when it returns.
 */
export function createApiRedis(target: string | RedisTarget): RedisClient {
  return createRedisClient(typeof target === 'string' ? { redisUrl: target, redisClusterNodes: null } : target, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // What a frozen Redis (connection up, no answers) costs a request: short enough that
    // the answer still fits the 2 s budget (docs/benchmarks.md, "Settings chosen by measurement").
    commandTimeout: 1000,
    connectTimeout: 1500,
    retryStrategy: (times) => Math.min(100 * times, 1000),
    lazyConnect: true,
  });
}

/** Wires the API: PostgreSQL, Redis, the domain and the HTTP app (not yet listening). */
export async function createApiRuntime(config: Config, log = createLogger(config, 'holdfast-api')): Promise<ApiRuntime> {
  const db = createDb(config.databaseUrl, {
    poolSize: 20,
    connectionTimeoutMillis: config.database.connectTimeoutMs,
    queryTimeoutMillis: config.database.queryTimeoutMs,
    idleInTransactionTimeoutMillis: config.database.idleInTransactionTimeoutMs,
    keepAliveMillis: config.database.keepAliveMs,
  });
  const redis = createApiRedis(config);
  redis.on('error', (err) => log.debug({ err: err.message }, 'redis connection error'));
  await redis.connect();
  const policy = await maxmemoryPolicy(redis);
  if (policy !== 'noeviction') {
    log.warn({ maxmemoryPolicy: policy ?? 'unknown' },
      'REDIS maxmemory-policy IS NOT noeviction: Redis may evict hold leases and queued jobs under memory pressure; set maxmemory-policy noeviction');
  }
  // Producers only (the worker process consumes). They share the fail-fast client
  // above, so adding a job while Redis is away errors at once instead of queueing.
  const prefix = queuePrefix(config.redisClusterNodes);
  const queues = {
    expiry: new Queue(EXPIRY_QUEUE, { connection: redis, prefix }),
    maintenance: new Queue(MAINTENANCE_QUEUE, { connection: redis, prefix }),
    // Outbound webhook deliveries: only the worker adds them; here for /metrics and the dashboard.
    webhooks: new Queue(WEBHOOK_QUEUE, { connection: redis, prefix }),
  };
  for (const q of Object.values(queues)) q.on('error', (err) => log.debug({ err: err.message, queue: q.name }, 'queue connection error'));
  const rs = new ReconcileStore(redis);
  const store = new HoldStore(redis, config.holdReplicaAcks > 0
    ? { replicas: config.holdReplicaAcks, timeoutMs: config.holdReplicaAckTimeoutMs } : null);
  const metrics = createMetrics({ queues: Object.values(queues), stats: rs, undos: store.undos });
  // Pub/sub needs a connection of its own (on a cluster, one per shard: sharded
  // pub/sub); it may queue while Redis is away.
  const subscriber = createRedisClient(config, { lazyConnect: true, subscriber: true, retryStrategy: (times) => Math.min(100 * times, 1000) });
  subscriber.on('error', (err) => log.debug({ err: err.message }, 'redis subscriber connection error'));
  await subscriber.connect();
  const feed = new ChangeFeed(subscriber);
  const ctx = createDomain({
    db,
    store,
    settings: {
      holdRateLimitPerMinute: config.holdRateLimitPerMinute,
      holdOutboxMaxPending: config.holdOutboxMaxPending,
      holdIdempotencyLeaseMs: config.holdIdempotencyLeaseMs,
      confirmBatch: {
        maxBatch: config.confirmBatchMax, maxWaitMs: config.confirmBatchWaitMs, maxWaiting: config.confirmMaxWaiting,
        inFlight: config.confirmBatchInFlight,
      },
      confirmClaim: config.confirmClaim,
      webhooks: config.webhooks,
    },
    log,
    metrics: metrics.domain,
    // Each persisted batch of holds gets its delayed expiry job(s), off the request path.
    onHoldsPersisted: (rows) => scheduleExpiries(queues.expiry, rows),
  });
  const app = createApp({
    ctx, config, log, metrics, feed,
    checks: { postgres: () => db.$queryRaw`SELECT 1`, redis: () => redis.ping() },
    reconcile: { queue: queues.maintenance, store: rs },
    queues: Object.values(queues),
  });
  return {
    app, ctx, db, redis, log, metrics, queues,
    async close() {
      ctx.queueTicker.stop();
      ctx.confirms.stop();
      await ctx.persister.flush().catch(() => undefined);
      ctx.persister.stop();
      await Promise.all(Object.values(queues).map((q) => q.close().catch(() => undefined)));
      redis.disconnect();
      subscriber.disconnect();
      await db.$disconnect();
    },
  };
}
