import type { Job } from 'bullmq';
import { purgeWebhookHistory, type DomainContext, type PurgeWebhookHistoryReport } from '@holdfast/domain';
import { webhookRetentionData } from '@holdfast/jobs';

/**
 * Deletes the webhook history older than the retention period (WEBHOOK_RETENTION_DAYS), a
 * bounded batch per statement and at most `budgetMs` a run (the maintenance queue runs one job
 * at a time, so the sweep never waits long behind it); what is left goes in the next run.
 */
export function webhookRetentionProcessor(
  ctx: DomainContext, retentionMs: number, onDeleted: (table: 'events' | 'deliveries' | 'attempts', count: number) => void,
) {
  return async (job: Job): Promise<PurgeWebhookHistoryReport> => {
    const { batchSize, budgetMs } = webhookRetentionData.parse(job.data ?? {});
    const report = await purgeWebhookHistory(ctx, { retentionMs, batchSize, budgetMs });
    onDeleted('events', report.events);
    onDeleted('deliveries', report.deliveries);
    onDeleted('attempts', report.attempts);
    if (report.events || report.deliveries || report.attempts || !report.complete) {
      ctx.log.info({ jobId: job.id, ...report }, 'webhook retention deleted old events, deliveries and attempts');
    }
    return report;
  };
}
