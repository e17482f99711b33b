import type { Job, Queue } from 'bullmq';
import { EXPIRE_HOLDS_PER_TRANSACTION, expireHolds, type DomainContext, type ExpireOutcome } from '@holdfast/domain';
import { expireHoldsData, scheduleExpiry } from '@holdfast/jobs';

export type ExpireHoldsResult = Record<ExpireOutcome['kind'], number>;

/**
 * Expires the holds persisted together (their job is due at the latest of their
 * times), EXPIRE_HOLDS_PER_TRANSACTION in one transaction. A hold not yet due
 * (extended meanwhile) gets its own job at its new time. Running twice changes
 * nothing; a slice that could not be expired fails the job after the other
 * slices are done, and the retry does it again.
 */
export function expireHoldsProcessor(ctx: DomainContext, queue: Queue, perTransaction = EXPIRE_HOLDS_PER_TRANSACTION) {
  return async (job: Job): Promise<ExpireHoldsResult> => {
    const { holdIds } = expireHoldsData.parse(job.data);
    const tally: ExpireHoldsResult = { expired: 0, not_due: 0, already_ended: 0, missing: 0 };
    const failures: Error[] = [];
    for (let i = 0; i < holdIds.length; i += perTransaction) {
      try {
        const outcomes = await expireHolds(ctx, holdIds.slice(i, i + perTransaction));
        for (const [holdId, outcome] of outcomes) {
          if (outcome.kind === 'not_due') await scheduleExpiry(queue, { id: holdId, expiresAt: outcome.expiresAt });
          tally[outcome.kind] += 1;
        }
      } catch (err) {
        failures.push(err instanceof Error ? err : new Error(String(err)));
      }
    }
    if (failures.length) throw new Error(`${failures.length} of ${Math.ceil(holdIds.length / perTransaction)} slices of ${holdIds.length} holds could not be expired (they run again): ${failures[0]!.message}`);
    return tally;
  };
}
