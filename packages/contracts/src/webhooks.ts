// Outbound webhooks (issue 30): the event types holdfast delivers, what an admin registers,
// and the shapes the admin endpoints answer with.
import { z } from 'zod';

/** Every event type a webhook endpoint may subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'order.confirmed', 'hold.expired', 'hold.released', 'waitlist.offered', 'waitlist.offer_expired', 'payment.refund_required',
] as const;
export const webhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventType>;

/** The longest URL an endpoint may have. */
export const WEBHOOK_URL_MAX_CHARS = 2000;

export const webhookUrl = z
  .string()
  .trim()
  .min(1)
  .max(WEBHOOK_URL_MAX_CHARS)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'an absolute http(s) URL')
  .refine((s) => {
    try {
      const u = new URL(s);
      return !u.username && !u.password && !u.hash;
    } catch {
      return true;
    }
  }, 'no user name, password or fragment');

export const adminWebhookBody = z.strictObject({
  url: webhookUrl,
  events: z.array(webhookEventType).min(1, 'at least one event type').max(WEBHOOK_EVENT_TYPES.length)
    .refine((e) => new Set(e).size === e.length, 'each event type once'),
});

/** PATCH /v1/admin/webhooks/{id}: turn deliveries off (or on again). */
export const adminWebhookPatchBody = z.strictObject({ enabled: z.boolean() });

const time = z.string().meta({ format: 'date-time' });

export const webhookObject = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(webhookEventType),
  enabled: z.boolean(),
  createdAt: time,
});

/** As answered once, by the registration: with the signing secret. */
export const webhookWithSecretObject = webhookObject.extend({ secret: z.string() });

export const webhookAttemptObject = z.object({
  attempt: z.number().int(),
  status: z.enum(['succeeded', 'failed']),
  /** The receiver's HTTP status; null when none came (timeout, refused connection, a refused address). */
  responseCode: z.number().int().nullable(),
  error: z.string().nullable(),
  at: time,
  durationMs: z.number().int(),
});

export const webhookDeliveryObject = z.object({
  id: z.string(),
  eventId: z.string(),
  type: webhookEventType,
  /** pending: recorded, not yet sent; queued: being sent or retried; succeeded; failed: given up. */
  status: z.enum(['pending', 'queued', 'succeeded', 'failed']),
  attempts: z.array(webhookAttemptObject),
  createdAt: time,
  finishedAt: time.nullable(),
});

/** What a receiver gets: the body of every delivery. */
export const webhookPayload = z.object({
  id: z.string(),
  type: webhookEventType,
  createdAt: time,
  data: z.record(z.string(), z.unknown()),
});

const nextCursor = z.string().nullable();

/** The admin webhook endpoints' answers. */
export const webhookResponses = {
  webhookCreated: z.object({ webhook: webhookWithSecretObject }),
  webhook: z.object({ webhook: webhookObject }),
  webhooks: z.object({ webhooks: z.array(webhookObject), nextCursor }),
  webhookDeliveries: z.object({ deliveries: z.array(webhookDeliveryObject), nextCursor }),
};
