// The job queues shared by the API (producer) and the worker (consumer): names,
// payload schemas, and the Redis connection settings each side needs.
import { Queue, type ConnectionOptions } from 'bullmq';
import { holdIdSchema } from '@holdfast/contracts';
import { reconnectOnReadOnly, redisOptionsFromUrl } from '@holdfast/hold-store';
import { injectTraceContext } from '@holdfast/telemetry';
import { Cluster } from 'ioredis';
import { z } from 'zod';

export const EXPIRY_QUEUE = 'holdfast-expiry';
export const MAINTENANCE_QUEUE = 'holdfast-maintenance';
/** Outbound webhook deliveries: one job per delivery, added by the worker's dispatcher. */
export const WEBHOOK_QUEUE = 'holdfast-webhooks';
export const QUEUE_NAMES = [EXPIRY_QUEUE, MAINTENANCE_QUEUE, WEBHOOK_QUEUE] as const;

/** One node's connection options from a redis:// URL: the hold store owns how a URL is read. */
export { redisOptionsFromUrl };

/** Job names on the maintenance queue. */
export const SWEEP_JOB = 'sweep';
export const RECONCILE_JOB = 'reconcile';
/** Deletes webhook history older than WEBHOOK_RETENTION_DAYS (finished deliveries, their attempts, events left without any). */
export const WEBHOOK_RETENTION_JOB = 'webhook-retention';

/** Job names on the expiry queue: one hold's own job, and the job of holds persisted together. */
export const EXPIRE_HOLD_JOB = 'expire-hold';
export const EXPIRE_HOLDS_JOB = 'expire-holds';

/** Holds persisted together whose times lie within this of the first share one job. */
export const EXPIRY_JOB_SPREAD_MS = 250;
/** Most holds in one expiry job. */
export const EXPIRY_JOB_MAX_HOLDS = 500;

export const expireHoldData = z.strictObject({ holdId: holdIdSchema });
export type ExpireHoldData = z.infer<typeof expireHoldData>;
export const expireHoldsData = z.strictObject({ holdIds: z.array(holdIdSchema).min(1).max(EXPIRY_JOB_MAX_HOLDS) });
export type ExpireHoldsData = z.infer<typeof expireHoldsData>;

export const reconcileData = z.strictObject({ requestedBy: z.string().max(200).optional() });
export const sweepData = z.strictObject({});
/** A retention run: events looked at per statement, and how long before it stops starting batches. */
export const webhookRetentionData = z.strictObject({
  batchSize: z.number().int().min(1).max(10_000).optional(),
  budgetMs: z.number().int().min(0).max(600_000).optional(),
});
export type WebhookRetentionData = z.infer<typeof webhookRetentionData>;

/** Reconnects quickly when Redis comes back (BullMQ's default waits up to 20 s). */
const retryStrategy = (times: number) => Math.min(200 * times, 2000);

type ClusterNodes = { host: string; port: number }[] | null | undefined;

/**
 * The queues' key prefix. On a Redis Cluster every key of a queue must share a
 * slot, so the prefix is a hash tag (BullMQ's advice); one Redis keeps `bull`.
 */
export function queuePrefix(clusterNodes?: ClusterNodes): string | undefined {
  return clusterNodes ? '{holdfast}' : undefined;
}

/**
 * Worker connections, as BullMQ asks for production: commands wait for Redis
 * to return (maxRetriesPerRequest: null) instead of failing the job loop. On a
 * cluster: a Cluster client of its own (the caller disconnects it when done).
 */
export function workerConnection(url: string, clusterNodes?: ClusterNodes): ConnectionOptions {
  if (clusterNodes) {
    return new Cluster(clusterNodes, {
      clusterRetryStrategy: retryStrategy,
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      retryDelayOnTryAgain: 200,
      slotsRefreshInterval: 2000,
      redisOptions: { maxRetriesPerRequest: null },
    });
  }
  return { ...redisOptionsFromUrl(url), maxRetriesPerRequest: null, retryStrategy, reconnectOnError: reconnectOnReadOnly() };
}

const KEEP = { removeOnComplete: { age: 3600, count: 10000 }, removeOnFail: { age: 7 * 86400 } };

/**
 * Expiry jobs done are kept for an hour, but never more than 1,000 of them: BullMQ
 * trims completed jobs only when another job of the queue completes, so after a
 * sale its last hour of jobs (about 2 KB each, no TTL) stayed in Redis until the
 * next sale's; a count bounds them whatever the sale's size (bench soak section).
 */
const EXPIRY_KEEP = { ...KEEP, removeOnComplete: { age: 3600, count: 1000 } };

const EXPIRY_ATTEMPTS = { attempts: 10, backoff: { type: 'exponential', delay: 1000 } };

/**
 * The trace the job is scheduled in, in BullMQ's own option for it
 * (`telemetry.metadata`): the worker's span `job <name>` continues it. Nothing
 * when tracing is off.
 */
function traced(): { telemetry?: { metadata: string } } {
  const metadata = injectTraceContext();
  return metadata ? { telemetry: { metadata } } : {};
}

/**
 * The delayed expiry jobs of holds just persisted: holds whose times lie within
 * EXPIRY_JOB_SPREAD_MS of each other share one job (at most EXPIRY_JOB_MAX_HOLDS),
 * due at the latest of their times. A flash sale persists its holds in batches,
 * so this is one job (one BullMQ script in Redis) per batch, not per hold: per
 * hold, the jobs were the largest item of a hold's CPU left in the API after the
 * lean path (docs/benchmarks.md, "Settings chosen by measurement"). The job id names its first hold and its size,
 * so scheduling the same batch twice adds one job.
 */
export async function scheduleExpiries(queue: Queue, holds: { id: string; expiresAt: Date }[], now = Date.now()): Promise<void> {
  if (!holds.length) return;
  const trace = traced();
  const sorted = [...holds].sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime());
  const groups: { id: string; expiresAt: Date }[][] = [];
  for (const hold of sorted) {
    const group = groups[groups.length - 1];
    if (group && group.length < EXPIRY_JOB_MAX_HOLDS && hold.expiresAt.getTime() - group[0]!.expiresAt.getTime() <= EXPIRY_JOB_SPREAD_MS) group.push(hold);
    else groups.push([hold]);
  }
  await queue.addBulk(
    groups.map((group) => ({
      name: EXPIRE_HOLDS_JOB,
      data: { holdIds: group.map((h) => h.id) } satisfies ExpireHoldsData,
      opts: {
        jobId: `exp_${group[0]!.id}_${group.length}`,
        delay: Math.max(0, group[group.length - 1]!.expiresAt.getTime() - now),
        ...EXPIRY_ATTEMPTS,
        ...EXPIRY_KEEP,
        ...trace,
      },
    })),
  );
}

/**
 * One hold's own delayed job, its id the hold id (so scheduling twice adds one
 * job): for a hold whose time moved past its batch's job (it was extended).
 */
export async function scheduleExpiry(queue: Queue, hold: { id: string; expiresAt: Date }, now = Date.now()): Promise<void> {
  await queue.add(EXPIRE_HOLD_JOB, { holdId: hold.id } satisfies ExpireHoldData, {
    jobId: hold.id,
    delay: Math.max(0, hold.expiresAt.getTime() - now),
    ...EXPIRY_ATTEMPTS,
    ...EXPIRY_KEEP,
    ...traced(),
  });
}

/** The job of one webhook delivery on WEBHOOK_QUEUE. */
export const DELIVER_WEBHOOK_JOB = 'deliver-webhook';
/** The backoff type of webhook jobs: the worker's backoffStrategy (capped exponential) computes it. */
export const WEBHOOK_BACKOFF = 'webhook';
export const deliverWebhookData = z.strictObject({ deliveryId: z.uuid() });
export type DeliverWebhookData = z.infer<typeof deliverWebhookData>;

/**
 * Adds one job per delivery, its id the delivery's (so adding the same delivery twice adds one
 * job while the first is kept). Attempts are many: the deliverer gives a delivery up by time
 * (the retry window), not by count.
 */
export async function enqueueWebhookDeliveries(queue: Queue, deliveryIds: string[]): Promise<void> {
  if (!deliveryIds.length) return;
  const trace = traced();
  await queue.addBulk(deliveryIds.map((deliveryId) => ({
    name: DELIVER_WEBHOOK_JOB,
    data: { deliveryId } satisfies DeliverWebhookData,
    opts: { jobId: `wh_${deliveryId}`, attempts: 100_000, backoff: { type: WEBHOOK_BACKOFF }, ...KEEP, ...trace },
  })));
}

/** Asks the worker for a reconciliation run now; returns the job id. */
export async function requestReconcile(queue: Queue, requestedBy: string): Promise<string> {
  const job = await queue.add(RECONCILE_JOB, { requestedBy }, { attempts: 1, ...KEEP, ...traced() });
  return job.id!;
}

/** Jobs per state of each queue (for /metrics). */
export async function queueDepths(queues: Queue[]): Promise<{ queue: string; state: string; count: number }[]> {
  const out: { queue: string; state: string; count: number }[] = [];
  for (const q of queues) {
    const counts = await q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized', 'waiting-children');
    for (const [state, count] of Object.entries(counts)) out.push({ queue: q.name, state, count });
  }
  return out;
}
