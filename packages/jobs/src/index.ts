// The job queues shared by the API (producer) and the worker (consumer): names,
// payload schemas, and the Redis connection settings each side needs.
import { Queue, type ConnectionOptions } from 'bullmq';
import { holdIdSchema } from '@holdfast/contracts';
import { redisOptionsFromUrl } from '@holdfast/hold-store';
import { Cluster } from 'ioredis';
import { z } from 'zod';

export const EXPIRY_QUEUE = 'holdfast-expiry';
export const MAINTENANCE_QUEUE = 'holdfast-maintenance';
export const QUEUE_NAMES = [EXPIRY_QUEUE, MAINTENANCE_QUEUE] as const;

/** One node's connection options from a redis:// URL: the hold store owns how a URL is read. */
export { redisOptionsFromUrl };

/** Job names on the maintenance queue. */
export const SWEEP_JOB = 'sweep';
export const RECONCILE_JOB = 'reconcile';

export const expireHoldData = z.strictObject({ holdId: holdIdSchema });
export type ExpireHoldData = z.infer<typeof expireHoldData>;

export const reconcileData = z.strictObject({ requestedBy: z.string().max(200).optional() });
export const sweepData = z.strictObject({});

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
  return { ...redisOptionsFromUrl(url), maxRetriesPerRequest: null, retryStrategy };
}

const KEEP = { removeOnComplete: { age: 3600, count: 10000 }, removeOnFail: { age: 7 * 86400 } };

/** The delayed expiry job of each hold: its id is the hold id, so scheduling twice adds one job. */
export async function scheduleExpiries(queue: Queue, holds: { id: string; expiresAt: Date }[], now = Date.now()): Promise<void> {
  if (!holds.length) return;
  await queue.addBulk(
    holds.map((h) => ({
      name: 'expire-hold',
      data: { holdId: h.id } satisfies ExpireHoldData,
      opts: {
        jobId: h.id,
        delay: Math.max(0, h.expiresAt.getTime() - now),
        attempts: 10,
        backoff: { type: 'exponential', delay: 1000 },
        ...KEEP,
      },
    })),
  );
}

/** Asks the worker for a reconciliation run now; returns the job id. */
export async function requestReconcile(queue: Queue, requestedBy: string): Promise<string> {
  const job = await queue.add(RECONCILE_JOB, { requestedBy }, { attempts: 1, ...KEEP });
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
