import type { Job } from 'bullmq';
import { expireDueHolds, type DomainContext } from '@holdfast/domain';
import type { ReconcileStore } from '@holdfast/hold-store';
import { sweepData } from '@holdfast/jobs';

/**
 * The safety net under the expiry jobs: persists holds left in any outbox
 * (an API died before draining it), then expires every due ACTIVE hold in
 * PostgreSQL (jobs lost with Redis's data never run).
 */
export function sweepProcessor(ctx: DomainContext, rs: ReconcileStore) {
  return async (job: Job): Promise<{ persisted: number; expired: number }> => {
    sweepData.parse(job.data ?? {});
    const events = await rs.eventsWithOutbox();
    const persisted = events.length ? await ctx.persister.flush(events) : 0;
    const expired = await expireDueHolds(ctx);
    if (persisted || expired) ctx.log.info({ persisted, expired }, 'sweep persisted and expired holds');
    return { persisted, expired };
  };
}
