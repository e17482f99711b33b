import type { Job } from 'bullmq';
import { deliverWebhook, type DeliverOutcome, type DomainContext, type WebhookDeliverySettings } from '@holdfast/domain';
import { deliverWebhookData } from '@holdfast/jobs';

/**
 * One attempt at one webhook delivery. A failed attempt that may be retried fails the job, so
 * BullMQ runs it again after the backoff; a delivery over (succeeded, given up, or over already:
 * the job ran twice) completes it, and lets the next delivery of the same hold go (`onDone`).
 */
export function deliverWebhookProcessor(ctx: DomainContext, settings: WebhookDeliverySettings, onDone: () => void) {
  return async (job: Job): Promise<DeliverOutcome> => {
    const { deliveryId } = deliverWebhookData.parse(job.data);
    const outcome = await deliverWebhook(ctx, deliveryId, settings);
    if (outcome.kind === 'retry') throw new Error(`webhook delivery ${deliveryId}: ${outcome.error}`);
    onDone();
    return outcome;
  };
}
