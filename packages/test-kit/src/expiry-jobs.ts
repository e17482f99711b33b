import type { Job, Queue } from 'bullmq';
import { holdIdOf } from '@holdfast/contracts';
import { EXPIRE_HOLDS_JOB } from '@holdfast/jobs';
import { waitFor, type WaitOptions } from './wait';

const STATES = ['delayed', 'waiting', 'active', 'completed', 'failed', 'prioritized'] as const;

/** The expiry jobs of holds persisted together that name the hold, newest first. */
export async function batchExpiryJobsOf(queue: Queue, holdId: string): Promise<Job[]> {
  const jobs = await queue.getJobs([...STATES], 0, -1);
  return jobs
    .filter((j) => j?.name === EXPIRE_HOLDS_JOB && ((j.data as { holdIds?: string[] }).holdIds ?? []).includes(holdId))
    .sort((a, b) => b.timestamp - a.timestamp);
}

/** The hold's expiry job: its own (job id = hold id, once its time moved), else the newest of its batch's. */
export async function expiryJobOf(queue: Queue, holdId: string): Promise<Job | undefined> {
  return (await queue.getJob(holdId)) ?? (await batchExpiryJobsOf(queue, holdId))[0];
}

/** Whether an expiry job's result counts the hold as expired by that run (a batch job's tally, or a hold's own job's word). */
export function expiredByRun(job: Job): boolean {
  const value: unknown = job.returnvalue;
  return value === 'expired' || (typeof value === 'object' && value !== null && ((value as { expired?: number }).expired ?? 0) > 0);
}

/** Waits until the job `find` gives has finished (and passes `also`, when given); returns it. */
export function finishedJob(what: string, find: () => Promise<Job | undefined>, options?: WaitOptions, also: (job: Job) => boolean = () => true): Promise<Job> {
  return waitFor(what, async () => {
    const job = await find();
    return job?.finishedOn !== undefined && also(job) && job;
  }, options);
}

/**
 * Removes the expiry jobs of an event's holds, whatever their state: a batch's
 * job id names its first hold (`exp_<hold id>_<n>`), a hold's own job is its
 * id, and a hold id carries its event's id (holdIdOf). Left, they wait in the
 * queue for a worker of some later run. `keysMatching` lists the keys of a
 * SCAN pattern (on every master of a cluster).
 */
export async function removeExpiryJobsOf(queue: Queue, keysMatching: (pattern: string) => Promise<string[]>, eventId: string): Promise<void> {
  const hold = holdIdOf(eventId, '');
  const prefix = queue.toKey('');
  for (const jobId of [`exp_${hold}`, hold]) {
    const keys = await keysMatching(`${prefix}${jobId}*`);
    // A job's own keys are `<prefix><id>` and `<prefix><id>:logs` (or `:lock`): the job is the id before them.
    const ids = new Set(keys.map((k) => k.slice(prefix.length).split(':')[0]!));
    for (const id of ids) await queue.remove(id);
  }
}
