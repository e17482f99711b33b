// Webhook history past its retention period goes: finished deliveries with their attempts, and
// events left with no delivery, a bounded batch per statement; pending or queued ones stay, whatever their age.
import { deleteExpiredWebhookBatch } from '@holdfast/db';
import type { DomainContext } from './context';

export interface PurgeWebhookHistoryOptions {
  /** Deliveries finished, and events created, longer ago than this are deleted (WEBHOOK_RETENTION_DAYS). */
  retentionMs: number;
  /** Events looked at per statement (each statement is its own short transaction). */
  batchSize?: number;
  /** No new batch starts after this long: the next run goes on where the old rows still are. */
  budgetMs?: number;
  /** The clock the cutoff is taken from (tests). */
  now?: Date;
}

export interface PurgeWebhookHistoryReport {
  events: number;
  deliveries: number;
  attempts: number;
  batches: number;
  /** False when the budget ran out before every event older than the cutoff was looked at. */
  complete: boolean;
  durationMs: number;
}

export const DEFAULT_PURGE_BATCH_SIZE = 1000;
export const DEFAULT_PURGE_BUDGET_MS = 5_000;

/**
 * Deletes the webhook history older than the retention period, oldest event first. Each batch
 * locks its events with SKIP LOCKED and deletes in one statement, so it is safe to run twice at
 * once (they take different events) and again after a crash (what is gone stays gone, the rest
 * is found again); it never holds a lock longer than one batch's statement.
 */
export async function purgeWebhookHistory(ctx: DomainContext, opts: PurgeWebhookHistoryOptions): Promise<PurgeWebhookHistoryReport> {
  const batchSize = opts.batchSize ?? DEFAULT_PURGE_BATCH_SIZE;
  const budgetMs = opts.budgetMs ?? DEFAULT_PURGE_BUDGET_MS;
  const cutoff = new Date((opts.now ?? new Date()).getTime() - opts.retentionMs);
  const t0 = performance.now();
  const report: PurgeWebhookHistoryReport = { events: 0, deliveries: 0, attempts: 0, batches: 0, complete: false, durationMs: 0 };
  let after: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const batch = await deleteExpiredWebhookBatch(ctx.db, cutoff, batchSize, after);
    report.batches += 1;
    report.events += batch.events;
    report.deliveries += batch.deliveries;
    report.attempts += batch.attempts;
    if (batch.examined < batchSize || !batch.last) {
      report.complete = true;
      break;
    }
    after = batch.last;
    if (performance.now() - t0 >= budgetMs) break;
  }
  report.durationMs = Math.round(performance.now() - t0);
  return report;
}
