import { DelayedError, type Job } from 'bullmq';
import { expireHold, type DomainContext } from '@holdfast/domain';
import { expireHoldData } from '@holdfast/jobs';

/**
 * Expires one hold at its expiresAt. A job that fires early (clock skew) moves
 * itself back to the delayed set; running twice changes nothing.
 */
export function expireHoldProcessor(ctx: DomainContext) {
  return async (job: Job, token?: string): Promise<string> => {
    const { holdId } = expireHoldData.parse(job.data);
    const outcome = await expireHold(ctx, holdId);
    if (outcome.kind === 'not_due' && token) {
      await job.moveToDelayed(outcome.expiresAt.getTime() + 10, token);
      throw new DelayedError();
    }
    return outcome.kind === 'already_ended' ? `already ${outcome.status.toLowerCase()}` : outcome.kind;
  };
}
