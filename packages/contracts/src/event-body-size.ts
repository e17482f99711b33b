// How large a valid `POST /v1/admin/events` body can be, computed from the
// contract's own limits: the API sizes that endpoint's body limit with it.
import { EVENT_LIMITS, LAYOUT_LIMITS, MAX_EVENT_SEATS, SEAT_LIMITS } from './seat-layout';

/**
 * JSON as the most long-winded common client writes it: every character of a
 * string as a `\uXXXX` escape (6 bytes; Python's `json.dumps` writes any
 * character outside ASCII so by default, and any serializer writes control
 * characters so), and a space after every `:` and `,` (also `json.dumps`'s
 * default). Keys are written plainly. No serializer writes a valid body longer
 * than this without adding whitespace of its own (indentation) or spelling
 * numbers and times out at more length than they need.
 */
export function longestJson(value: unknown): string {
  if (typeof value === 'string') {
    let out = '"';
    for (let i = 0; i < value.length; i += 1) out += `\\u${value.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return `${out}"`;
  }
  if (Array.isArray(value)) return `[${value.map(longestJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${longestJson(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

const text = (chars: number) => 'x'.repeat(chars);
/** Times at their longest: nanoseconds and an offset (the sale's end after its start). */
const LONGEST_TIME = '2027-01-01T19:00:00.123456789+05:30';
const LONGEST_LATER_TIME = '2027-01-02T19:00:00.123456789+05:30';

/** The fields of a body besides its seats or layout, each at its longest (`seatsOrLayout` is left empty). */
export function longestEventEnvelope(seatsOrLayout: 'seats' | 'layout'): Record<string, unknown> {
  return {
    name: text(EVENT_LIMITS.nameChars),
    startsAt: LONGEST_TIME,
    currency: 'USD',
    holdTtlSeconds: 3600,
    maxTicketsPerCustomer: 100,
    maxHoldExtensions: 10,
    maxHoldSeconds: 7200,
    waitlistOfferSeconds: 172800,
    salesStatus: 'on_sale',
    salesStartAt: LONGEST_TIME,
    salesEndAt: LONGEST_LATER_TIME,
    waitingRoom: { admitPerMinute: 1_000_000, maxActive: 1_000_000, passSeconds: 7200, preQueueSeconds: 86_400, challengeBits: 24 },
    ticketTypes: Array.from({ length: EVENT_LIMITS.ticketTypes }, () => ({
      name: text(EVENT_LIMITS.nameChars), priceCents: SEAT_LIMITS.maxPriceCents, capacity: EVENT_LIMITS.maxTicketCapacity,
    })),
    ...(seatsOrLayout === 'seats' ? { seats: [] } : { layout: { sections: [] } }),
  };
}

/** A seat at its longest: the longest section, row and tier, the largest number and price. */
export function longestSeat(section = text(SEAT_LIMITS.sectionChars), row = text(SEAT_LIMITS.rowChars)) {
  return { section, row, number: SEAT_LIMITS.maxNumber, tier: text(SEAT_LIMITS.tierChars), priceCents: SEAT_LIMITS.maxPriceCents };
}

const bytes = (value: unknown) => longestJson(value).length; // ASCII only
/** `n` items of `itemBytes` added to an empty list: the items and the `, ` between them. */
const listOf = (n: number, itemBytes: number) => n * itemBytes + Math.max(0, n - 1) * 2;

/** The largest body with a `seats` list: MAX_EVENT_SEATS seats at their longest, every other field at its longest. */
export function largestSeatsBodyBytes(): number {
  return bytes(longestEventEnvelope('seats')) + listOf(MAX_EVENT_SEATS, bytes(longestSeat()));
}

/**
 * A bound on the largest body with a `layout` (not reached: it counts every
 * section at its longest, and each range of rows at its longest, as many ranges
 * as the layout may have seats, since each range makes one seat at least).
 */
export function largestLayoutBodyBound(): number {
  const section = bytes({ name: text(SEAT_LIMITS.sectionChars), rows: [] });
  const range = bytes({
    from: LAYOUT_LIMITS.maxRow, to: LAYOUT_LIMITS.maxRow, seatsPerRow: SEAT_LIMITS.maxNumber,
    tier: text(SEAT_LIMITS.tierChars), priceCents: SEAT_LIMITS.maxPriceCents,
  });
  return bytes(longestEventEnvelope('layout')) + listOf(LAYOUT_LIMITS.sections, section) + listOf(MAX_EVENT_SEATS, range);
}

/**
 * The body limit of `POST /v1/admin/events`: its largest valid body as
 * `longestJson` writes it, with seats or with a layout, whichever is larger (about
 * 60 MiB: 100,000 seats of 621 bytes each). One byte more is `413 PAYLOAD_TOO_LARGE`.
 */
export const CREATE_EVENT_BODY_LIMIT_BYTES = Math.max(largestSeatsBodyBytes(), largestLayoutBodyBound());
