// Something a seller's systems should hear about happened: it is recorded with its deliveries
// in the same transaction as the change itself, and the worker delivers it later (outbox).
//
// API (for every use-case that emits an event):
//   import { recordWebhookEvent } from './webhook-events';
//   await runTransaction(ctx.db, async (tx) => {
//     ...the change...
//     await recordWebhookEvent(tx, 'waitlist.offered', { entry, hold }, hold.id);
//   });
// - tx: the caller's transaction client (Tx from @holdfast/db); the event and one pending
//   delivery per enabled endpoint subscribed to `type` commit with the change or not at all.
// - type: one of WEBHOOK_EVENT_TYPES (@holdfast/contracts).
// - data: a JSON object, the payload's `data` (by convention the API's own objects:
//   { hold }, { order }, { entry, hold }, { payment, order }).
// - orderingKey: the hold id the event is about (deliveries of one hold to one endpoint go out
//   in order), or null.
// Returns the event id, or null when no endpoint subscribes (then nothing is written: one cheap
// statement). Never call it outside a transaction that makes the change it reports.
import { insertWebhookEvent, insertWebhookEvents, type Tx } from '@holdfast/db';
import type { WebhookEventType } from '@holdfast/contracts';

export async function recordWebhookEvent(
  tx: Tx, type: WebhookEventType, data: Record<string, unknown>, orderingKey: string | null,
): Promise<string | null> {
  return insertWebhookEvent(tx, { type, data, orderingKey });
}

/**
 * recordWebhookEvent for many events of one type in one statement (the same contract): each
 * event's deliveries go out after those of the events given before it with the same key.
 */
export async function recordWebhookEvents(
  tx: Tx, type: WebhookEventType, events: readonly { data: Record<string, unknown>; orderingKey: string | null }[],
): Promise<string[]> {
  return insertWebhookEvents(tx, type, events);
}
