import type { Job } from 'bullmq';
import { reconcile, type DomainContext, type RepairEntry } from '@holdfast/domain';
import type { ReconcileStore } from '@holdfast/hold-store';
import { reconcileData } from '@holdfast/jobs';

/** One reconciliation run (scheduled, or asked for by an admin); the report is stored by the use-case. */
export function reconcileProcessor(ctx: DomainContext, rs: ReconcileStore, onRepair: (e: RepairEntry) => void) {
  return async (job: Job) => {
    const { requestedBy } = reconcileData.parse(job.data ?? {});
    const report = await reconcile(ctx, rs, { onRepair });
    ctx.log.info({ jobId: job.id, requestedBy, repairs: report.repairs }, 'reconciliation job done');
    return { durationMs: report.durationMs, events: report.events, repairs: report.repairs };
  };
}
