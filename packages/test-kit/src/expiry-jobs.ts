import type { Job, Queue } from 'bullmq';
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
