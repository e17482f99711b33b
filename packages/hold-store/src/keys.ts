/**
 * Redis key names. Every key of an event carries the hash tag {ev:<id>}, so all
 * of one event's keys live in one Redis Cluster slot and one script may touch
 * them together.
 */
export function eventKeys(eventId: string): EventKeys {
  let keys = known.get(eventId);
  if (!keys) {
    if (known.size >= KNOWN_MAX) known.clear();
    known.set(eventId, (keys = Object.freeze(buildEventKeys(eventId))));
  }
  return keys;
}

/**
 * An event's key names are the same on every request: made once per event (the
 * hold path asked for them on every hold, ten strings and nine closures each
 * time), bounded, cleared when full.
 */
const known = new Map<string, EventKeys>();
const KNOWN_MAX = 10_000;

function buildEventKeys(eventId: string) {
  const p = `{ev:${eventId}}`;
  return {
    ready: `${p}:ready`,
    sold: `${p}:sold`,
    held: `${p}:held`,
    bought: `${p}:bought`,
    outbox: `${p}:outbox`,
    /** Outbox records PostgreSQL refused (kept with the error for a human; never retried by themselves). */
    outboxParked: `${p}:outbox:parked`,
    channel: `${p}:changes`,
    /** Free seats (zset seat id -> rank) and the seat index they are ranked by (hold-best, sync-free-seats). */
    free: `${p}:free`,
    seatIndex: `${p}:seatix`,
    /** Prefix of the seat keys, for scripts that find their seats themselves (hold-best). */
    seatPrefix: `${p}:seat:`,
    seat: (seatId: string) => `${p}:seat:${seatId}`,
    customer: (customerId: string) => `${p}:cust:${customerId}`,
    rateLimit: (customerId: string) => `${p}:rl:${customerId}`,
    hold: (holdId: string) => `${p}:hold:${holdId}`,
    /** Confirms in flight for a hold: token -> until ms (claim-hold). */
    claim: (holdId: string) => `${p}:claim:${holdId}`,
    ticketType: (ticketTypeId: string) => `${p}:tt:${ticketTypeId}`,
    ticketTypeExpiry: (ticketTypeId: string) => `${p}:ttexp:${ticketTypeId}`,
    ticketTypeHolds: (ticketTypeId: string) => `${p}:ttq:${ticketTypeId}`,
  };
}

export type EventKeys = Readonly<ReturnType<typeof buildEventKeys>>;

/** The pattern every event's change channel matches (for PSUBSCRIBE). */
export const CHANGE_CHANNEL_PATTERN = '{ev:*}:changes';
