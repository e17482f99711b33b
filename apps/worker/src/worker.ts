import type { Server } from 'node:http';
import { Queue, Worker, type Job } from 'bullmq';
import pino, { type Logger } from 'pino';
import { PRETTY_TRANSPORT, prettyLogs, type Config } from '@holdfast/config';
import { createDb } from '@holdfast/db';
import { createDomain, dispatchWebhookDeliveries, requeueWebhookDeliveries, webhookRetryDelayMs, type DomainContext } from '@holdfast/domain';
import { createRedisClient, HoldStore, maxmemoryPolicy, ReconcileStore } from '@holdfast/hold-store';
import { withJobSpan } from '@holdfast/telemetry';
import {
  DELIVER_WEBHOOK_JOB, EXPIRE_HOLD_JOB, EXPIRE_HOLDS_JOB, EXPIRY_QUEUE, MAINTENANCE_QUEUE, RECONCILE_JOB, SWEEP_JOB, WEBHOOK_BACKOFF, WEBHOOK_QUEUE,
  WEBHOOK_RETENTION_JOB,
  enqueueWebhookDeliveries, queuePrefix, scheduleExpiries, workerConnection,
} from '@holdfast/jobs';
import { createWorkerMetrics, serveMetrics, type WorkerMetrics } from './metrics';
import { deliverWebhookProcessor } from './processors/deliver-webhook.processor';
import { expireHoldProcessor } from './processors/expire-hold.processor';
import { expireHoldsProcessor } from './processors/expire-holds.processor';
import { reconcileProcessor } from './processors/reconcile.processor';
import { sweepProcessor } from './processors/sweep.processor';
import { webhookRetentionProcessor } from './processors/webhook-retention.processor';

export interface WorkerOptions {
  log?: Logger;
  /** How often the sweep runs (ms); default 10 s. */
  sweepEveryMs?: number;
  /** How often reconciliation runs (ms); default config.reconcileEverySeconds. */
  reconcileEveryMs?: number;
  /** Port of the worker's /metrics; null for none; default config.workerMetricsPort. */
  metricsPort?: number | null;
  /** BullMQ lock of an active job; a worker dead for longer loses its jobs to others. */
  lockDurationMs?: number;
  concurrency?: number;
  /** How often the jobs of queued webhook deliveries are added again (Redis may have lost them); default 60 s. */
  webhookRequeueEveryMs?: number;
  /** How often webhook history past WEBHOOK_RETENTION_DAYS is deleted (a job on the maintenance queue); default 60 s. */
  webhookRetentionEveryMs?: number;
}

export interface WorkerHandle {
  ctx: DomainContext;
  metrics: WorkerMetrics;
  metricsUrl: string | null;
  expiryQueue: Queue;
  maintenanceQueue: Queue;
  webhookQueue: Queue;
  /** Moves recorded webhook deliveries to their queue now (it also runs every config.webhooks.dispatchEveryMs). */
  dispatchWebhooks(): Promise<number>;
  /** Drains the jobs in hand (at most drainMs, default 10 s) and lets go of every connection. */
  close(drainMs?: number): Promise<void>;
}

export function createWorkerLogger(config: Pick<Config, 'logLevel' | 'logFormat' | 'nodeEnv'>): Logger {
  const options = { name: 'holdfast-worker', level: config.logLevel };
  return prettyLogs(config, process.stdout.isTTY === true) ? pino({ ...options, transport: PRETTY_TRANSPORT }) : pino(options);
}

/**
 * Starts the job processors: per-hold expiry, the sweep, reconciliation and
 * webhook retention on job schedulers. Every Redis connection reconnects by itself; the schedulers
 * are re-declared periodically because a Redis that lost its data lost them too.
 */
export async function startWorker(config: Config, opts: WorkerOptions = {}): Promise<WorkerHandle> {
  const log = opts.log ?? createWorkerLogger(config);
  const sweepEveryMs = opts.sweepEveryMs ?? 10_000;
  const reconcileEveryMs = opts.reconcileEveryMs ?? config.reconcileEverySeconds * 1000;
  const webhookRetentionEveryMs = opts.webhookRetentionEveryMs ?? 60_000;
  const db = createDb(config.databaseUrl, {
    poolSize: 5,
    connectionTimeoutMillis: Math.max(3000, config.database.connectTimeoutMs),
    queryTimeoutMillis: config.database.workerQueryTimeoutMs,
    idleInTransactionTimeoutMillis: config.database.idleInTransactionTimeoutMs,
    keepAliveMillis: config.database.keepAliveMs,
  });
  // The domain's own client: bounded retries, so a job fails (and is retried) rather than hangs.
  const redis = createRedisClient(config, {
    maxRetriesPerRequest: 2, connectTimeout: 3000, commandTimeout: 5000,
    retryStrategy: (times) => Math.min(200 * times, 2000),
  });
  redis.on('error', (err) => log.debug({ err: err.message }, 'redis connection error'));
  const connection = workerConnection(config.redisUrl, config.redisClusterNodes);
  const prefix = queuePrefix(config.redisClusterNodes);
  const expiryQueue = new Queue(EXPIRY_QUEUE, { connection, prefix });
  const maintenanceQueue = new Queue(MAINTENANCE_QUEUE, { connection, prefix });
  const webhookQueue = new Queue(WEBHOOK_QUEUE, { connection, prefix });
  for (const q of [expiryQueue, maintenanceQueue, webhookQueue]) q.on('error', (err) => log.debug({ err: err.message, queue: q.name }, 'queue connection error'));
  const metrics = createWorkerMetrics();
  const rs = new ReconcileStore(redis);
  const ctx = createDomain({
    db,
    store: new HoldStore(redis),
    settings: {
      holdRateLimitPerMinute: config.holdRateLimitPerMinute, holdOutboxMaxPending: config.holdOutboxMaxPending, webhooks: config.webhooks,
    },
    log,
    metrics: {
      ...metrics.domain,
      holdsExpired(count) {
        metrics.domain.holdsExpired(count);
        // Shared with the API's /metrics, which reads it on scrape.
        void rs.addStat('holds_expired', count).catch(() => undefined);
      },
    },
    onHoldsPersisted: (rows) => scheduleExpiries(expiryQueue, rows),
  });

  const policy = await maxmemoryPolicy(redis);
  if (policy !== 'noeviction') {
    log.warn({ maxmemoryPolicy: policy ?? 'unknown' },
      'REDIS maxmemory-policy IS NOT noeviction: Redis may evict hold leases and queued jobs under memory pressure; set maxmemory-policy noeviction');
  }

  const workerOpts = {
    connection,
    prefix,
    concurrency: opts.concurrency ?? 4,
    lockDuration: opts.lockDurationMs ?? 10_000,
    stalledInterval: Math.max(1000, Math.floor((opts.lockDurationMs ?? 10_000) / 2)),
    maxStalledCount: 3,
  };
  const expireOne = expireHoldProcessor(ctx);
  const expireBatch = expireHoldsProcessor(ctx, expiryQueue);
  const sweep = sweepProcessor(ctx, rs);
  const reconcileJob = reconcileProcessor(ctx, rs, (e) => metrics.repair(e.kind, e.count));
  const webhookRetention = webhookRetentionProcessor(ctx, config.webhooks.retentionMs, (table, count) => {
    if (count) metrics.webhookRowsDeleted.inc({ table }, count);
  });
  // Webhooks: the dispatcher moves the deliveries that may go now (recorded in PostgreSQL with
  // the change that caused them) to their queue; one run at a time in this process.
  let dispatching: Promise<number> | null = null;
  let dispatchAgain = false;
  const dispatchWebhooks = (): Promise<number> => {
    if (dispatching) {
      dispatchAgain = true;
      return dispatching;
    }
    dispatching = (async () => {
      let n = 0;
      do {
        dispatchAgain = false;
        n += await dispatchWebhookDeliveries(ctx, (ids) => enqueueWebhookDeliveries(webhookQueue, ids));
      } while (dispatchAgain);
      return n;
    })().finally(() => {
      dispatching = null;
    });
    return dispatching;
  };
  const deliver = deliverWebhookProcessor(ctx, config.webhooks, () => {
    void dispatchWebhooks().catch((err: Error) => log.debug({ err: err.message }, 'webhook dispatch failed; it runs again'));
  });
  const workers = [
    // Each job runs in its span `job <name>` (when tracing is on), a child of the trace that scheduled it.
    new Worker(EXPIRY_QUEUE, (job: Job, token?: string) => withJobSpan(job, async () => {
      if (job.name === EXPIRE_HOLDS_JOB) return expireBatch(job);
      if (job.name === EXPIRE_HOLD_JOB) return expireOne(job, token);
      throw new Error(`unknown expiry job ${job.name}`);
    }), workerOpts),
    new Worker(WEBHOOK_QUEUE, (job: Job) => withJobSpan(job, async () => {
      if (job.name === DELIVER_WEBHOOK_JOB) return deliver(job);
      throw new Error(`unknown webhook job ${job.name}`);
    }), {
      ...workerOpts,
      // Deliveries wait on receivers (up to the timeout each): more at once than the other queues.
      concurrency: Math.max(workerOpts.concurrency, 16),
      // Retries: base, 2 base, 4 base, ... capped (WEBHOOK_RETRY_*).
      settings: {
        backoffStrategy: (attemptsMade: number, type?: string) =>
          (type === WEBHOOK_BACKOFF ? webhookRetryDelayMs(attemptsMade, config.webhooks) : 1000 * 2 ** Math.max(0, attemptsMade - 1)),
      },
    }),
    new Worker(MAINTENANCE_QUEUE, (job: Job) => withJobSpan(job, async () => {
      if (job.name === SWEEP_JOB) return sweep(job);
      if (job.name === RECONCILE_JOB) return reconcileJob(job);
      if (job.name === WEBHOOK_RETENTION_JOB) return webhookRetention(job);
      throw new Error(`unknown maintenance job ${job.name}`);
    }), { ...workerOpts, concurrency: 1 }),
  ];
  for (const w of workers) {
    w.on('completed', (job) => metrics.jobs.inc({ queue: w.name, name: job.name, result: 'completed' }));
    w.on('failed', (job, err) => {
      metrics.jobs.inc({ queue: w.name, name: job?.name ?? 'unknown', result: 'failed' });
      log.warn({ queue: w.name, jobId: job?.id, attempts: job?.attemptsMade, err: err.message }, 'job failed');
    });
    w.on('stalled', (jobId) => log.warn({ queue: w.name, jobId }, 'job stalled; it runs again'));
    w.on('error', (err) => log.debug({ queue: w.name, err: err.message }, 'worker connection error'));
  }

  const declareSchedulers = async () => {
    await maintenanceQueue.upsertJobScheduler('sweep', { every: sweepEveryMs }, { name: SWEEP_JOB, data: {}, opts: { removeOnComplete: 100, removeOnFail: 100 } });
    await maintenanceQueue.upsertJobScheduler('reconcile', { every: reconcileEveryMs }, {
      name: RECONCILE_JOB, data: { requestedBy: 'schedule' }, opts: { removeOnComplete: 100, removeOnFail: 100 },
    });
    await maintenanceQueue.upsertJobScheduler('webhook-retention', { every: webhookRetentionEveryMs }, {
      name: WEBHOOK_RETENTION_JOB, data: {}, opts: { removeOnComplete: 100, removeOnFail: 100 },
    });
  };
  await declareSchedulers().catch((err: Error) => log.warn({ err: err.message }, 'could not declare job schedulers yet'));
  const redeclare = setInterval(() => {
    void declareSchedulers().catch((err: Error) => log.debug({ err: err.message }, 'could not declare job schedulers'));
  }, Math.min(sweepEveryMs, 10_000));

  const dispatchTimer = setInterval(() => {
    void dispatchWebhooks().catch((err: Error) => log.debug({ err: err.message }, 'webhook dispatch failed; it runs again'));
  }, config.webhooks.dispatchEveryMs);
  // A Redis that lost its data lost the jobs of queued deliveries with it: they are added again
  // now and then (a job that exists is not added twice).
  const requeueTimer = setInterval(() => {
    void requeueWebhookDeliveries(ctx, (ids) => enqueueWebhookDeliveries(webhookQueue, ids))
      .catch((err: Error) => log.debug({ err: err.message }, 'webhook requeue failed; it runs again'));
  }, opts.webhookRequeueEveryMs ?? 60_000);

  const metricsPort = opts.metricsPort === undefined ? config.workerMetricsPort : opts.metricsPort;
  let server: Server | null = null;
  let metricsUrl: string | null = null;
  if (metricsPort !== null) {
    // A port that is taken (another worker on the host) costs the metrics, never the jobs: the
    // worker goes on without them (a crash here would restart it for ever, re-running its jobs).
    try {
      ({ server, url: metricsUrl } = await serveMetrics(metrics, metricsPort));
    } catch (err) {
      log.error({ err: (err as Error).message, port: metricsPort }, 'worker metrics not served: the port could not be opened; set WORKER_METRICS_PORT to a free one (0 picks one)');
    }
  }
  log.info({ sweepEveryMs, reconcileEveryMs, webhookRetentionEveryMs, metricsUrl }, 'worker started');

  return {
    ctx, metrics, metricsUrl, expiryQueue, maintenanceQueue, webhookQueue, dispatchWebhooks,
    async close(drainMs = 10_000) {
      clearInterval(redeclare);
      clearInterval(dispatchTimer);
      clearInterval(requeueTimer);
      await dispatching?.catch(() => undefined);
      // Finish the jobs in hand, then let go of the connections. While Redis is
      // unreachable a drain never ends: after drainMs the jobs in hand are
      // abandoned (their locks lapse and another worker runs them again).
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        Promise.all(workers.map((w) => w.close())).then(() => true),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(false), drainMs))),
      ]);
      clearTimeout(timer);
      if (!drained) {
        log.warn({ drainMs }, 'could not drain the jobs in hand (Redis unreachable?); they will run again elsewhere');
        await Promise.race([Promise.all(workers.map((w) => w.close(true))), new Promise((r) => setTimeout(r, 1000))]);
        for (const w of workers) void w.disconnect().catch(() => undefined);
      }
      await ctx.persister.flush().catch(() => undefined);
      ctx.persister.stop();
      if (drained) await Promise.all([expiryQueue.close(), maintenanceQueue.close(), webhookQueue.close()]);
      else for (const q of [expiryQueue, maintenanceQueue, webhookQueue]) void q.disconnect().catch(() => undefined);
      if (server) {
        server.closeAllConnections();
        await new Promise((r) => server!.close(r));
      }
      redis.disconnect();
      // A cluster connection is the worker's own instance: BullMQ leaves it open.
      if (typeof (connection as { disconnect?: unknown }).disconnect === 'function') (connection as { disconnect(): void }).disconnect();
      await db.$disconnect();
      log.info('worker stopped');
    },
  };
}
