// Response shapes of the HTTP contract, as zod schemas: the OpenAPI document is
// generated from these and from the request schemas, and tests parse answers with them.
import { z } from 'zod';

const time = z.string().meta({ format: 'date-time' });

/**
 * Every `error.code` the API answers with (docs/http-api.md, "Errors", says when).
 * A new code is added here and to the reference; clients generated from the
 * document see the list as a union (apps/api/test/openapi.test.ts keeps it equal
 * to the codes the domain and the middleware can make).
 */
export const errorCodes = [
  'VALIDATION_FAILED', 'INVALID_SIGNATURE', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'EVENT_NOT_FOUND', 'SEAT_NOT_FOUND',
  'TICKET_TYPE_NOT_FOUND', 'HOLD_NOT_FOUND', 'ORDER_NOT_FOUND', 'SEATS_UNAVAILABLE', 'SOLD_OUT', 'HOLD_ALREADY_CONFIRMED',
  'HOLD_EXPIRED', 'HOLD_NOT_ACTIVE', 'HOLD_EXTENSION_LIMIT', 'HOLD_TIME_CAP', 'SALES_CLOSED', 'PAYMENT_NOT_FOUND',
  'PAYMENT_NOT_REFUNDABLE', 'PAYMENT_REJECTED', 'IDEMPOTENCY_IN_PROGRESS', 'PAYLOAD_TOO_LARGE', 'LIMIT_EXCEEDED',
  'IDEMPOTENCY_KEY_REUSED', 'RATE_LIMITED', 'INTERNAL', 'SERVICE_UNAVAILABLE', 'OVERLOADED', 'STREAM_LIMIT_REACHED',
  'WAITLIST_ENTRY_NOT_FOUND', 'WAITLIST_NOT_NEEDED',
  'QUEUE_NOT_FOUND', 'QUEUE_PASS_REQUIRED',
  'WEBHOOK_NOT_FOUND',
] as const;
export const errorCode = z.enum(errorCodes);
export type ErrorCode = z.infer<typeof errorCode>;

export const errorBody = z
  .object({
    error: z.object({
      code: errorCode,
      message: z.string(),
      details: z.unknown().optional(),
    }),
  });

export const seatItem = z.object({ seatId: z.string(), label: z.string(), tier: z.string(), priceCents: z.number().int(), quantity: z.literal(1) });
export const ticketItem = z.object({ ticketTypeId: z.string(), name: z.string(), priceCents: z.number().int(), quantity: z.number().int() });
export const holdItem = z.union([seatItem, ticketItem]);

export const holdStatus = z.enum(['active', 'confirmed', 'expired', 'released']);

export const holdObject = z
  .object({
    id: z.string(),
    eventId: z.string(),
    customerId: z.string(),
    status: holdStatus,
    createdAt: time,
    expiresAt: time,
    items: z.array(holdItem),
    totalCents: z.number().int(),
    currency: z.string(),
    orderId: z.string().nullable(),
    releasedBy: z.enum(['customer', 'admin']).nullable(),
    extensions: z.number().int(),
  });

export const orderObject = z
  .object({
    id: z.string(),
    number: z.string().regex(/^[A-Z]+-\d{4}-\d{6,}$/),
    eventId: z.string(),
    customerId: z.string(),
    holdId: z.string(),
    /** `cancelled`: an admin cancelled it (its seats and tickets went back, its payment is owed a refund). */
    status: z.enum(['confirmed', 'cancelled']),
    items: z.array(holdItem),
    totalCents: z.number().int(),
    currency: z.string(),
    paymentReference: z.string(),
    createdAt: time,
    /** When an admin cancelled it (only on a cancelled order). */
    cancelledAt: time.optional(),
  });

export const eventObject = z
  .object({
    id: z.string(),
    name: z.string(),
    startsAt: time,
    currency: z.string(),
    holdTtlSeconds: z.number().int(),
    maxTicketsPerCustomer: z.number().int(),
    maxHoldExtensions: z.number().int(),
    maxHoldSeconds: z.number().int(),
    waitlistOfferSeconds: z.number().int(),
    salesStatus: z.enum(['draft', 'on_sale', 'closed']),
    salesStartAt: time.nullable(),
    salesEndAt: time.nullable(),
    /** The waiting room's settings; null when the event has none. */
    waitingRoom: z.object({
      admitPerMinute: z.number().int(), maxActive: z.number().int(), passSeconds: z.number().int(),
      preQueueSeconds: z.number().int(), challengeBits: z.number().int(),
    }).nullable(),
    seatCount: z.number().int(),
    ticketTypes: z.array(
      z.object({ id: z.string(), name: z.string(), priceCents: z.number().int(), capacity: z.number().int(), available: z.number().int() }),
    ),
  });

export const seatObject = z
  .object({
    id: z.string(), label: z.string(), section: z.string(), row: z.string(), number: z.number().int(), tier: z.string(),
    priceCents: z.number().int(), status: z.enum(['available', 'held', 'sold']),
  });

export const paymentStatus = z.enum(['applied', 'refund_required', 'ignored']);

export const paymentObject = z
  .object({
    id: z.string(),
    provider: z.string(),
    reference: z.string(),
    holdId: z.string().nullable(),
    amountCents: z.number().int().nullable(),
    currency: z.string().nullable(),
    status: paymentStatus,
    reason: z.string().nullable(),
    orderId: z.string().nullable(),
    receivedAt: time,
    refund: z.object({ by: z.string(), at: time, note: z.string() }).nullable(),
  });

export const auditEntryObject = z
  .object({
    at: time, actor: z.string(), action: z.string(), holdId: z.string().nullable(), orderId: z.string().nullable(),
    reason: z.string().nullable(),
  });

const nextCursor = z.string().nullable();

/** What reconciliation repairs, one kind each. */
export const repairKind = z.enum([
  'sold_set_missing', // a seat SOLD in PostgreSQL missing from Redis's sold set: added
  'sold_set_extra', // a seat in Redis's sold set that PostgreSQL has AVAILABLE (seen twice): removed
  'sold_seat_key', // a lease or held entry on a seat already SOLD: removed
  'ga_counter', // a ticket type's cap/sold/held differing from PostgreSQL and its live holds: rewritten (row locked, one script)
  'hold_restored', // an ACTIVE hold whose leases were lost: taken again for its remaining time
  'hold_ended', // an ACTIVE hold whose leases were lost and whose items someone else has now: ended
  'key_without_ttl', // a seat key, hold record or rate-limit key without a TTL: given one (or removed)
  'stale_lease', // a seat lease whose hold has ended in PostgreSQL (its end never reached Redis; seen twice): removed
  'seat_index_rebuilt', // an event with seats primed in Redis without its free-seat index (Redis lost it): built again
  'free_set_missing', // a free seat (not sold, no lease) missing from the free set best available walks: added
  'free_set_extra', // a sold or leased seat in the free set: removed
  'bought_count', // a customer's tickets bought (counted by the per-customer limit) differing from PostgreSQL's orders: rewritten
  'waitlist_restored', // a waiting-list entry PostgreSQL has waiting missing from its Redis line (lost with Redis's data): put back in join order
]);

/** What one reconciliation run found and repaired (repairs by kind; the first entries for a human to read). */
export const reconcileReportObject = z.object({
  startedAt: time,
  finishedAt: time,
  durationMs: z.number(),
  events: z.number().int(),
  repairs: z.record(repairKind, z.number().int()),
  /** The first repairs of the run (up to 200); `count`: how many repairs the entry stands for (1 when absent). */
  entries: z.array(z.object({ kind: repairKind, eventId: z.string(), detail: z.string(), count: z.number().int().optional() })),
  errors: z.array(z.object({ eventId: z.string(), message: z.string() })),
});

const salesCount = { sold: z.number().int(), held: z.number().int(), available: z.number().int(), revenueCents: z.number().int() };
export const salesObject = z.object({
  eventId: z.string(),
  currency: z.string(),
  asOf: time,
  orders: z.number().int(),
  revenueCents: z.number().int(),
  tiers: z.array(z.object({ tier: z.string(), total: z.number().int(), ...salesCount })),
  ticketTypes: z.array(z.object({ id: z.string(), name: z.string(), capacity: z.number().int(), ...salesCount })),
  perMinute: z.array(z.object({ minute: time, holds: z.number().int(), orders: z.number().int() })),
  /** The waiting lists: entries waiting and offers open, in all and per tier and ticket type (those with entries). */
  waitlist: z.object({
    waiting: z.number().int(),
    offered: z.number().int(),
    tiers: z.array(z.object({ tier: z.string(), waiting: z.number().int(), offered: z.number().int() })),
    ticketTypes: z.array(z.object({ id: z.string(), waiting: z.number().int(), offered: z.number().int() })),
  }),
});

/** A waiting-list entry (issue 30): its place while waiting, its offer (a hold of the customer) while offered. */
export const waitlistEntryObject = z.object({
  id: z.string(),
  state: z.enum(['waiting', 'offered', 'purchased', 'expired', 'left', 'removed']),
  /** 1-based place in its line while waiting, else null. */
  position: z.number().int().nullable(),
  tier: z.string().optional(),
  ticketTypeId: z.string().optional(),
  quantity: z.number().int(),
  createdAt: time,
  offer: z.object({ holdId: z.string(), expiresAt: time }).nullable(),
});

/** The admin's view of an entry: whose it is, too. */
export const adminWaitlistEntryObject = waitlistEntryObject.extend({ customerId: z.string() });

export const responses = {
  health: z.object({ status: z.literal('ok') }),
  ready: z.object({ status: z.literal('ready') }),
  token: z.object({ token: z.string() }),
  event: z.object({ event: eventObject }),
  /** Where a buyer stands in an event's waiting room (issue 29). */
  queue: z.object({
    queue: z.object({
      state: z.enum(['waiting', 'admitted', 'ended', 'none']),
      position: z.number().int(),
      etaSeconds: z.number().int(),
      /**
       * While waiting: the places the room had admitted when this was answered (the count the stream's
       * `queue` messages carry as `admitted`): the place is now position − (the stream's admitted − this).
       */
      admitted: z.number().int().optional(),
      pass: z.string().optional(),
      passExpiresAt: time.optional(),
    }),
  }),
  /** The seller's view of a waiting room. */
  queueAdmin: z.object({
    waiting: z.number().int(), admitted: z.number().int(), active: z.number().int(),
    admitPerMinute: z.number().int(), maxActive: z.number().int(), paused: z.boolean(),
    /** The median wait of the latest places admitted (up to 101), seconds; null before any. */
    medianWaitSeconds: z.number().int().nullable(),
  }),
  events: z.object({ events: z.array(eventObject), nextCursor }),
  seats: z.object({ seats: z.array(seatObject) }),
  hold: z.object({ hold: holdObject }),
  holds: z.object({ holds: z.array(holdObject), nextCursor }),
  order: z.object({ order: orderObject }),
  orders: z.object({ orders: z.array(orderObject), nextCursor }),
  payments: z.object({ payments: z.array(paymentObject), nextCursor }),
  audit: z.object({ entries: z.array(auditEntryObject), nextCursor }),
  received: z.object({ received: z.literal(true) }),
  sales: z.object({ sales: salesObject }),
  payment: z.object({ payment: paymentObject }),
  time: z.object({ serverTime: time }),
  reconcileQueued: z.object({ jobId: z.string(), status: z.literal('queued') }),
  reconcileReport: z.object({ report: reconcileReportObject.nullable() }),
  waitlistEntry: z.object({ entry: waitlistEntryObject }),
  waitlistEntries: z.object({ entries: z.array(waitlistEntryObject) }),
  adminWaitlist: z.object({ entries: z.array(adminWaitlistEntryObject) }),
  adminWaitlistEntry: z.object({ entry: adminWaitlistEntryObject }),
  queuesSession: z.object({ url: z.string(), expiresInSeconds: z.number().int().min(0) }),
};
