// Request schemas shared by the API (validation), the web app and the OpenAPI
// document. Every object is strict: unknown fields are refused.
import { z } from 'zod';
import { EVENT_LIMITS, LAYOUT_LIMITS, layoutSeatCount, MAX_EVENT_SEATS, SEAT_LIMITS } from './seat-layout';

export * from './seat-layout';
export * from './event-body-size';
export * from './webhooks';
export * from './proof-of-work';

const isoTime = z.iso.datetime({ offset: true });
const currency = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code in upper case, e.g. "USD"');
const cents = z.number().int().min(0).max(100_000_000);
/**
 * PostgreSQL text holds neither NUL nor a lone UTF-16 surrogate (not valid
 * UTF-8): refuse both at the door, a 400 rather than a 500.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const storableText = (s: string) => !s.includes('\u0000') && !LONE_SURROGATE.test(s);
const noNul = storableText;
const name = z.string().trim().min(1).max(EVENT_LIMITS.nameChars).refine(noNul, 'no NUL characters or lone surrogates');

/** A section's or row's name: part of the seat's label, `<section>-<row>-<number>`. */
const labelPart = (max: number) => z.string().trim().min(1).max(max)
  .regex(/^[^-\s]+$/, 'no dashes or spaces (the label is section-row-number)').refine(noNul, 'no NUL characters or lone surrogates');
const tier = z.string().trim().min(1).max(SEAT_LIMITS.tierChars).refine(noNul, 'no NUL characters or lone surrogates');
const seatPrice = z.number().int().min(0).max(SEAT_LIMITS.maxPriceCents);

export const seatInput = z.strictObject({
  section: labelPart(SEAT_LIMITS.sectionChars),
  row: labelPart(SEAT_LIMITS.rowChars),
  number: z.number().int().min(1).max(SEAT_LIMITS.maxNumber),
  tier,
  priceCents: seatPrice,
});

const rowNumber = z.number().int().min(1).max(LAYOUT_LIMITS.maxRow);

/** Rows `from` to `to` (both included), each of `seatsPerRow` seats numbered from 1, of one tier and price. */
export const layoutRowRange = z
  .strictObject({ from: rowNumber, to: rowNumber, seatsPerRow: z.number().int().min(1).max(SEAT_LIMITS.maxNumber), tier, priceCents: seatPrice })
  .refine((r) => r.to >= r.from, { path: ['to'], message: 'must be at least from' });

/** A section and its rows by range; rows not in any range have no seats. */
export const layoutSection = z
  .strictObject({
    name: labelPart(SEAT_LIMITS.sectionChars),
    rows: z.array(layoutRowRange).min(1, 'at least one range of rows').max(LAYOUT_LIMITS.rangesPerSection),
  })
  .superRefine((section, ctx) => {
    const order = section.rows.map((r, i) => ({ ...r, i })).sort((a, b) => a.from - b.from || a.i - b.i);
    // Sorted by `from`, a range overlaps an earlier one when it starts at or before the furthest row reached so far.
    let reach = order[0];
    for (const r of order.slice(1)) {
      if (reach && r.from <= reach.to) {
        const [first, second] = reach.i < r.i ? [reach, r] : [r, reach];
        ctx.addIssue({
          code: 'custom', path: ['rows', second.i],
          message: `rows ${second.from}-${second.to} overlap rows ${first.from}-${first.to} (rows.${first.i}): a row has one tier and price`,
        });
      }
      if (!reach || r.to > reach.to) reach = r;
    }
  });

/**
 * Sections × rows × seats per row, a tier and price by range of rows: the seats
 * are made by the server (`expandLayout`), at most MAX_EVENT_SEATS of them.
 */
export const seatLayout = z
  .strictObject({ sections: z.array(layoutSection).min(1, 'at least one section').max(LAYOUT_LIMITS.sections) })
  .superRefine((layout, ctx) => {
    const seen = new Map<string, number>();
    layout.sections.forEach((s, i) => {
      const first = seen.get(s.name);
      if (first === undefined) seen.set(s.name, i);
      else ctx.addIssue({ code: 'custom', path: ['sections', i, 'name'], message: `section ${s.name} is already sections.${first}` });
    });
    const seats = layoutSeatCount(layout);
    if (seats > MAX_EVENT_SEATS) {
      ctx.addIssue({
        code: 'custom', path: [],
        message: `the layout makes ${seats.toLocaleString('en-US')} seats; an event has at most ${MAX_EVENT_SEATS.toLocaleString('en-US')}`,
      });
    }
  });
export type SeatLayoutInput = z.infer<typeof seatLayout>;

export const ticketTypeInput = z.strictObject({
  name,
  priceCents: cents,
  capacity: z.number().int().min(1).max(EVENT_LIMITS.maxTicketCapacity),
});

const holdTtlSeconds = z.number().int().min(1).max(3600);
const maxTicketsPerCustomer = z.number().int().min(1).max(100);
/** How many times a hold may be extended (0: never). */
const maxHoldExtensions = z.number().int().min(0).max(10);
/** The most a hold may last from its creation, extensions included (at most 2 hours). */
const maxHoldSeconds = z.number().int().min(1).max(7200);
/** How long a waiting-list offer (a hold made for the next entry in line) lasts: up to 48 hours. */
const waitlistOfferSeconds = z.number().int().min(1).max(172_800);
export const salesStatus = z.enum(['draft', 'on_sale', 'closed']);

/** The waiting room's limits (issue 29): what `waitingRoom` takes and how far. */
export const WAITING_ROOM_LIMITS = {
  maxAdmitPerMinute: 1_000_000,
  maxActive: 1_000_000,
  minPassSeconds: 30,
  maxPassSeconds: 7200,
  maxPreQueueSeconds: 86_400,
  maxChallengeBits: 24,
} as const;

/**
 * An event's waiting room (null: off). Places are admitted at most
 * `admitPerMinute` a minute and never more than `maxActive` at once; a pass
 * lasts `passSeconds` without a hold; joining opens `preQueueSeconds` before
 * the sale; `challengeBits` > 0 asks each join for a proof of work.
 */
export const waitingRoomSettings = z.strictObject({
  admitPerMinute: z.number().int().min(1).max(WAITING_ROOM_LIMITS.maxAdmitPerMinute),
  maxActive: z.number().int().min(1).max(WAITING_ROOM_LIMITS.maxActive),
  passSeconds: z.number().int().min(WAITING_ROOM_LIMITS.minPassSeconds).max(WAITING_ROOM_LIMITS.maxPassSeconds),
  preQueueSeconds: z.number().int().min(0).max(WAITING_ROOM_LIMITS.maxPreQueueSeconds),
  challengeBits: z.number().int().min(0).max(WAITING_ROOM_LIMITS.maxChallengeBits).default(0),
});
export type WaitingRoomSettings = z.output<typeof waitingRoomSettings>;

/** Joining a waiting room: the proof of work's nonce when the room asks for one (challengeBits > 0). */
export const queueJoinBody = z
  .strictObject({ nonce: z.string().min(1).max(128).refine(noNul, 'no NUL characters or lone surrogates') })
  .partial()
  .optional();

/** The seller's controls of a waiting room; at least one. */
export const queuePatchBody = z
  .strictObject({
    paused: z.boolean(),
    admitPerMinute: waitingRoomSettings.shape.admitPerMinute,
    maxActive: waitingRoomSettings.shape.maxActive,
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

/** The seats come as a list (`seats`) or as a layout the server expands (`layout`): one of them, or neither for general admission only. */
export const createEventBody = z
  .strictObject({
    name,
    startsAt: isoTime,
    currency: currency.default('USD'),
    holdTtlSeconds: holdTtlSeconds.default(600),
    maxTicketsPerCustomer: maxTicketsPerCustomer.default(10),
    maxHoldExtensions: maxHoldExtensions.default(1),
    maxHoldSeconds: maxHoldSeconds.optional(),
    waitlistOfferSeconds: waitlistOfferSeconds.default(1800),
    salesStatus: salesStatus.default('on_sale'),
    salesStartAt: isoTime.nullable().default(null),
    salesEndAt: isoTime.nullable().default(null),
    waitingRoom: waitingRoomSettings.nullable().default(null),
    seats: z.array(seatInput).max(MAX_EVENT_SEATS).optional(),
    layout: seatLayout.optional(),
    ticketTypes: z.array(ticketTypeInput).max(EVENT_LIMITS.ticketTypes).default([]),
  })
  .superRefine((b, ctx) => {
    if (b.seats !== undefined && b.layout !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['layout'], message: 'give seats or layout, not both' });
    }
  });
export type CreateEventBody = z.infer<typeof createEventBody>;

/** The settings an admin may change after creation; seats and ticket types stay as created. */
export const updateEventBody = z
  .strictObject({
    name,
    startsAt: isoTime,
    holdTtlSeconds,
    maxTicketsPerCustomer,
    maxHoldExtensions,
    maxHoldSeconds,
    waitlistOfferSeconds,
    salesStatus,
    salesStartAt: isoTime.nullable(),
    salesEndAt: isoTime.nullable(),
    waitingRoom: waitingRoomSettings.nullable(),
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');
export type UpdateEventBody = z.infer<typeof updateEventBody>;

const id = z.string().min(1).max(200);

/** Exactly one selector: seat ids, best available in a tier, or general admission. */
export const createHoldBody = z
  .strictObject({
    seatIds: z.array(id).min(1, 'at least one seat').max(100),
    tier: z.string().min(1).max(50),
    ticketTypeId: id,
    quantity: z.number().int().min(1).max(100),
  })
  .partial()
  .superRefine((b, ctx) => {
    const selectors = (['seatIds', 'tier', 'ticketTypeId'] as const).filter((k) => b[k] !== undefined);
    if (selectors.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: selectors.length ? [selectors[1]!] : [],
        message: 'give exactly one of seatIds, tier (with quantity) or ticketTypeId (with quantity)',
      });
      return;
    }
    if (b.seatIds) {
      if (b.quantity !== undefined) ctx.addIssue({ code: 'custom', path: ['quantity'], message: 'not allowed with seatIds' });
      const seen = new Set<string>();
      b.seatIds.forEach((s, i) => {
        if (seen.has(s)) ctx.addIssue({ code: 'custom', path: ['seatIds', i], message: 'duplicate seat id' });
        seen.add(s);
      });
    } else if (b.quantity === undefined) {
      ctx.addIssue({ code: 'custom', path: ['quantity'], message: 'required with tier or ticketTypeId' });
    }
  });
export type CreateHoldBody = z.infer<typeof createHoldBody>;

/**
 * createHoldBody's output for the body nearly every hold sends, `{"seatIds":
 * [...]}` alone with 1–100 distinct strings of 1–200 characters, checked by
 * hand; undefined for any other body, which the schema then parses (and words
 * its errors). Whatever this accepts the schema accepts to an equal output
 * (apps/api/test/quick-hold-body.test.ts); zod's parse of that shape was 1.7 % of a hold's CPU.
 */
export function quickHoldBody(raw: unknown): CreateHoldBody | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const seatIds = (raw as { seatIds?: unknown }).seatIds;
  if (!Array.isArray(seatIds) || seatIds.length < 1 || seatIds.length > 100) return undefined;
  let own = 0;
  for (const key in raw) {
    if (!Object.hasOwn(raw, key) || key !== 'seatIds') return undefined;
    own += 1;
  }
  if (own !== 1 || Object.getPrototypeOf(raw) !== Object.prototype) return undefined;
  const out: string[] = [];
  for (let i = 0; i < seatIds.length; i += 1) {
    const s: unknown = seatIds[i];
    if (typeof s !== 'string' || s.length < 1 || s.length > 200) return undefined;
    for (let j = 0; j < i; j += 1) if (out[j] === s) return undefined;
    out.push(s);
  }
  return { seatIds: out };
}

/** Who a bearer token speaks for: a buyer, an integrator's backend, or an admin. */
export const role = z.enum(['customer', 'service', 'admin']);

export const demoTokenBody = z.strictObject({
  customerId: z.string().trim().min(1).max(100).refine(noNul, 'no NUL characters or lone surrogates'),
  role: role.default('customer'),
});

export const adminReleaseBody = z.strictObject({ reason: z.string().trim().min(1).max(500).refine(noNul, 'no NUL characters or lone surrogates') });

export const confirmBody = z.strictObject({ paymentReference: z.string().min(1).max(255).refine(noNul, 'no NUL characters or lone surrogates') });

/**
 * Stripe's event envelope, as far as holdfast reads it. Not strict: Stripe adds
 * fields freely, and the signature already proved who sent it.
 */
export const stripeEventEnvelope = z.object({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(255),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

const stripeMetadata = z.record(z.string(), z.string()).nullish();
const stripeCurrency = z.string().regex(/^[a-zA-Z]{3}$/);

/** `payment_intent.succeeded`: data.object is a PaymentIntent. */
export const stripePaymentIntent = z.object({
  id: z.string().min(1).max(255),
  amount_received: z.number().int().min(0),
  currency: stripeCurrency,
  metadata: stripeMetadata,
});

/** `checkout.session.completed`: data.object is a Checkout Session. */
export const stripeCheckoutSession = z.object({
  id: z.string().min(1).max(255),
  /** 'paid' once the money is there; 'unpaid' for a delayed method (SEPA, ACH) until async_payment_succeeded. */
  payment_status: z.string().min(1).max(64),
  payment_intent: z.string().min(1).max(255).nullish(),
  amount_total: z.number().int().min(0),
  currency: stripeCurrency,
  metadata: stripeMetadata,
});

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().min(1).max(500).optional(),
});

export const emptyQuery = z.strictObject({});
/** A body that may be absent or `{}`. */
export const emptyBody = z.strictObject({}).optional();

const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a uuid in lower case');

export const adminHoldsQuery = listQuery.extend({
  eventId: uuid.optional(),
  status: z.enum(['active', 'confirmed', 'expired', 'released']).optional(),
});
export const adminOrdersQuery = listQuery.extend({
  eventId: uuid.optional(),
  /** An order number (or part of one), a customer id, or a seat label (section-row-number). */
  q: z.string().trim().min(1).max(200).refine(noNul, 'no NUL characters or lone surrogates').optional(),
});
export const adminRefundBody = z.strictObject({
  note: z.string().trim().min(1).max(1000).refine(noNul, 'no NUL characters or lone surrogates'),
});
export const adminPaymentsQuery = listQuery.extend({ status: z.enum(['applied', 'refund_required', 'ignored']).optional() });
export const adminAuditQuery = listQuery.extend({ eventId: uuid.optional() });

/** Turns zod issues into the contract's `details`: which field, and why. */
export function issuesToDetails(error: z.ZodError): { fields: { path: string; message: string }[] } {
  const pathOf = (path: PropertyKey[]) => (path.length ? path.map(String).join('.') : '(body)');
  return {
    // An unknown field is named by its own path, one entry per field.
    fields: error.issues.flatMap((i) =>
      i.code === 'unrecognized_keys'
        ? i.keys.map((key) => ({ path: pathOf([...i.path, key]), message: 'unknown field' }))
        : [{ path: pathOf(i.path), message: i.message }],
    ),
  };
}

export { z };
export * from './responses';
export * from './hold-id';

/** Joining a waiting list: a tier (seats, best available) or a ticket type, and how many. */
export const joinWaitlistBody = z
  .strictObject({
    tier: z.string().min(1).max(50),
    ticketTypeId: id,
    quantity: z.number().int().min(1).max(100),
  })
  .partial({ tier: true, ticketTypeId: true })
  .superRefine((b, ctx) => {
    if ((b.tier === undefined) === (b.ticketTypeId === undefined)) {
      ctx.addIssue({ code: 'custom', path: b.tier !== undefined ? ['ticketTypeId'] : [], message: 'give exactly one of tier or ticketTypeId (with quantity)' });
    }
  });
export type JoinWaitlistBody = z.infer<typeof joinWaitlistBody>;

/** An admin cancels an order: why, and whether it was refunded at the provider already. */
export const adminCancelOrderBody = z.strictObject({
  reason: z.string().trim().min(1).max(500).refine(noNul, 'no NUL characters or lone surrogates'),
  refunded: z.boolean().default(false),
});
