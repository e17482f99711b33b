import type { Job, Queue } from 'bullmq';
import { expireHold, type DomainContext, type ExpireOutcome } from '@holdfast/domain';
import { expireHoldsData, scheduleExpiry } from '@holdfast/jobs';

export type ExpireHoldsResult = Record<ExpireOutcome['kind'], number>;

/** Holds of one job expired at once. */
export const EXPIRE_HOLDS_AT_ONCE = 4;

/**
 * Expires the holds persisted together (their job is due at the latest of their
 * times), a few at once. A hold not yet due (extended meanwhile) gets its own job
 * at its new time. Running twice changes nothing; a hold that could not be
 * expired fails the job after the others are done, and the retry does it again.
 */
export function expireHoldsProcessor(ctx: DomainContext, queue: Queue, concurrency = EXPIRE_HOLDS_AT_ONCE) {
  return async (job: Job): Promise<ExpireHoldsResult> => {
    const { holdIds } = expireHoldsData.parse(job.data);
    const tally: ExpireHoldsResult = { expired: 0, not_due: 0, already_ended: 0, missing: 0 };
    const failures: Error[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, holdIds.length) }, async () => {
        while (next < holdIds.length) {
          const holdId = holdIds[next++]!;
          try {
            const outcome = await expireHold(ctx, holdId);
            if (outcome.kind === 'not_due') await scheduleExpiry(queue, { id: holdId, expiresAt: outcome.expiresAt });
            tally[outcome.kind] += 1;
          } catch (err) {
            failures.push(err instanceof Error ? err : new Error(String(err)));
          }
        }
      }),
    );
    if (failures.length) throw new Error(`${failures.length} of ${holdIds.length} holds could not be expired (they run again): ${failures[0]!.message}`);
    return tally;
  };
}
