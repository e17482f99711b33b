/**
 * Redis key names: the one place that knows their shapes. Every key of an
 * event carries the hash tag {ev:<id>}, so all of one event's keys live in one
 * Redis Cluster slot and one script may touch them together. The builders, the
 * SCAN patterns and the parser below are all made from the two tables here.
 */

/** An event's keys of which it has one: kind -> name after the hash tag. */
const SINGLE_KEYS = {
  ready: 'ready',
  sold: 'sold',
  held: 'held',
  bought: 'bought',
  outbox: 'outbox',
  outboxParked: 'outbox:parked',
  channel: 'changes',
  free: 'free',
  seatIndex: 'seatix',
  /** The waiting lists (see lua/includes/waitlist.lua): entries, scopes with entries, settings. */
  waitlist: 'wl',
  waitScopes: 'wls',
  waitConfig: 'wlcfg',
  queueConfig: 'q:cfg',
  queuePre: 'q:pre',
  queueLine: 'q:line',
  queueActive: 'q:active',
  queuePasses: 'q:pass',
  queueJoinedAt: 'q:at',
  queueProofs: 'q:pow',
} as const;

/** An event's keys of which it has one per seat, customer, hold or ticket type: kind -> name before the id. */
const PER_ID_KEYS = {
  seat: 'seat',
  customer: 'cust',
  rateLimit: 'rl',
  hold: 'hold',
  claim: 'claim',
  ticketType: 'tt',
  ticketTypeExpiry: 'ttexp',
  ticketTypeHolds: 'ttq',
  /** A waiting list's line, by scope ("t:<tier>" or "tt:<ticket type id>"). */
  waitLine: 'wlq',
  /** An entry's offer ("hold id|expiresAt ms"), by entry id. */
  waitOffer: 'wlo',
  /** An entry that left its line or was never needed (WAITLIST_GONE_TTL_MS): putting entries back (restore) skips it. */
  waitGone: 'wlg',
} as const;

export type SingleKeyKind = keyof typeof SINGLE_KEYS;
export type PerIdKeyKind = keyof typeof PER_ID_KEYS;
export type EventKeyKind = SingleKeyKind | PerIdKeyKind;

const hashTag = (eventId: string) => `{ev:${eventId}}`;
const isPerId = (kind: EventKeyKind): kind is PerIdKeyKind => kind in PER_ID_KEYS;

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
  const p = hashTag(eventId);
  const one = (kind: SingleKeyKind) => `${p}:${SINGLE_KEYS[kind]}`;
  const perId = (kind: PerIdKeyKind) => {
    const prefix = `${p}:${PER_ID_KEYS[kind]}:`;
    return (id: string) => prefix + id;
  };
  return {
    ready: one('ready'),
    sold: one('sold'),
    held: one('held'),
    bought: one('bought'),
    outbox: one('outbox'),
    /** Outbox records PostgreSQL refused (kept with the error for a human; never retried by themselves). */
    outboxParked: one('outboxParked'),
    channel: one('channel'),
    /** Free seats (zset seat id -> rank) and the seat index they are ranked by (hold-best, sync-free-seats). */
    free: one('free'),
    seatIndex: one('seatIndex'),
    waitlist: one('waitlist'),
    waitScopes: one('waitScopes'),
    waitConfig: one('waitConfig'),
    waitLine: perId('waitLine'),
    waitOffer: perId('waitOffer'),
    waitGone: perId('waitGone'),
    /** The waiting room (issue 29, includes/queue-room.lua): its six keys in the scripts' order, and the proofs of work taken. */
    queue: Object.freeze([
      one('queueConfig'), one('queuePre'), one('queueLine'), one('queueActive'), one('queuePasses'), one('queueJoinedAt'),
    ] as const),
    queuePasses: one('queuePasses'),
    queueActive: one('queueActive'),
    queueProofs: one('queueProofs'),
    /** Prefix of the seat keys, for scripts that find their seats themselves (hold-best, read-claim-hold). */
    seatPrefix: `${p}:${PER_ID_KEYS.seat}:`,
    /** Prefixes of the keys a script reading a hold's record builds from it (read-claim-hold). */
    customerPrefix: `${p}:${PER_ID_KEYS.customer}:`,
    ticketTypePrefix: `${p}:${PER_ID_KEYS.ticketType}:`,
    ticketTypeExpiryPrefix: `${p}:${PER_ID_KEYS.ticketTypeExpiry}:`,
    ticketTypeHoldsPrefix: `${p}:${PER_ID_KEYS.ticketTypeHolds}:`,
    seat: perId('seat'),
    customer: perId('customer'),
    rateLimit: perId('rateLimit'),
    hold: perId('hold'),
    /** Confirms in flight for a hold: token -> until ms (claim-hold). */
    claim: perId('claim'),
    ticketType: perId('ticketType'),
    ticketTypeExpiry: perId('ticketTypeExpiry'),
    ticketTypeHolds: perId('ticketTypeHolds'),
  };
}

export type EventKeys = Readonly<ReturnType<typeof buildEventKeys>>;

/**
 * A SCAN MATCH (or PSUBSCRIBE) pattern: every key of the event, or only its
 * keys of one kind (every id of a per-id kind). `'*'` as the event id matches
 * every event's keys.
 */
export function eventKeyPattern(eventId: string, kind?: EventKeyKind): string {
  const p = hashTag(eventId);
  if (!kind) return `${p}*`;
  return isPerId(kind) ? `${p}:${PER_ID_KEYS[kind]}:*` : `${p}:${SINGLE_KEYS[kind]}`;
}

/** The pattern every event's change channel matches (for PSUBSCRIBE). */
export const CHANGE_CHANNEL_PATTERN = eventKeyPattern('*', 'channel');

/** What a key name says: its event, its kind, and for per-id kinds the id (seat, customer, hold, ticket type). */
export type ParsedEventKey =
  | { eventId: string; kind: SingleKeyKind; id: null }
  | { eventId: string; kind: PerIdKeyKind; id: string };

const SINGLE_BY_NAME = new Map(Object.entries(SINGLE_KEYS).map(([kind, name]) => [name as string, kind as SingleKeyKind]));
const PER_ID_BY_NAME = new Map(Object.entries(PER_ID_KEYS).map(([kind, name]) => [name as string, kind as PerIdKeyKind]));

/** Reads a key name eventKeys made; null for any other key. */
export function parseEventKey(key: string): ParsedEventKey | null {
  if (!key.startsWith('{ev:')) return null;
  const close = key.indexOf('}:', 4);
  if (close < 0) return null;
  const eventId = key.slice(4, close);
  const rest = key.slice(close + 2);
  const single = SINGLE_BY_NAME.get(rest);
  if (single) return { eventId, kind: single, id: null };
  const colon = rest.indexOf(':');
  const perId = colon > 0 ? PER_ID_BY_NAME.get(rest.slice(0, colon)) : undefined;
  return perId ? { eventId, kind: perId, id: rest.slice(colon + 1) } : null;
}

/** Keys of the process-wide state kept in Redis besides the events' (statistics, the last reconciliation). */
export const globalKeys = {
  /** A counter shared by the API's and the worker's /metrics. */
  stat: (name: string) => `holdfast:stats:${name}`,
  reconcileReport: 'holdfast:reconcile:last',
  /** An idempotency key, by the hash of its principal and key (idempotency-store.ts). */
  idempotency: (hash: string) => `idem:${hash}`,
} as const;
