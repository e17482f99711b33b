import { tracingEnabled, withSpan } from '@holdfast/telemetry';
import { IdempotencyStore } from './idempotency-store';
import { QueueStore } from './queue-store';
import type { RedisClient } from './redis-client';
import { eventKeys, type EventKeys } from './keys';
import { registerScripts, runWhole, scriptCommand, writeCoalescer, type ScriptName, type ScriptRunner } from './scripts';
import { PendingUndos } from './pending-undos';
import { mayHaveRun, StoreUnavailableError, translateErrorsOf } from './store-errors';
import { ENDED_HOLD_TTL_MS, HOLD_RECORD_TTL_MS, WAITLIST_GONE_TTL_MS } from './ttls';

/** A hold answered only once this many replicas have it (WAIT after the hold script). */
export interface ReplicaAcks {
  replicas: number;
  timeoutMs: number;
}

/**
 * A hold (or a queue place) its replicas did not acknowledge in time (HOLD_REPLICA_ACKS):
 * a hold was given back, and the request is answered 503 (the message starts like Redis's own NOREPLICAS).
 */
export class ReplicaAckError extends StoreUnavailableError {
  override name = 'ReplicaAckError';
  constructor(readonly acked: number, readonly wanted: number, what = 'the hold') {
    super('replicas', `NOREPLICAS ${what} reached ${acked} of ${wanted} replicas in time`);
  }
}

export type HoldAttempt =
  | { kind: 'ok'; candidate: number; nowMs: number }
  | { kind: 'not_ready' }
  /** Outside the sale window on Redis's clock (its time then). */
  | { kind: 'sales_closed'; nowMs: number }
  | { kind: 'outbox_full'; pending: number }
  | { kind: 'rate_limited'; retryAfterMs: number }
  | { kind: 'limit_exceeded'; inUse: number }
  | { kind: 'unavailable'; seatIds: string[] }
  | { kind: 'sold_out'; available: number }
  /** The event has a waiting room and the queue pass does not let this customer hold (nothing written). */
  | { kind: 'queue_pass'; reason: QueuePassRefusal };

/** Why a queue pass was refused inside a hold script (includes/queue-pass.lua). */
export type QueuePassRefusal = 'forged' | 'other_customer' | 'ended';

/** What every hold attempt carries besides its selection. */
export interface HoldRequestBase {
  eventId: string;
  holdId: string;
  customerId: string;
  ttlMs: number;
  maxPerCustomer: number;
  /** 0 when this attempt must not count against the customer's rate limit. */
  rateLimit: number;
  rateWindowMs: number;
  /** The most outbox entries not yet persisted in PostgreSQL; at it, holds are refused (OUTBOX_FULL). */
  outboxMaxPending: number;
  /** The sale window [start, end) in ms since the epoch, checked by the script on Redis's clock; null or absent: open. */
  salesStartMs?: number | null;
  salesEndMs?: number | null;
  /** The queue pass the request carries, checked by the script; absent or '' when the event has no waiting room. */
  queuePass?: string;
}

/** A selection the seat script may take, with the hold's JSON (items, totals) should it win. */
export interface SeatCandidate {
  seatIds: string[];
  recordJson: string;
}

export interface HoldRecord {
  holdId: string;
  json: string;
  createdAtMs: number;
  expiresAtMs: number;
  status: string;
  /** Times the hold was extended. */
  extensions: number;
}

export interface OutboxEntry extends Omit<HoldRecord, 'status' | 'extensions'> {
  entryId: string;
}

export interface EndHoldInput {
  eventId: string;
  holdId: string;
  customerId: string;
  mode: 'released' | 'expired' | 'confirmed';
  seatIds: string[];
  ticketTypeId: string | null;
  quantity: number;
  /** The claim token of the confirm that gives up (claimHold); its claim goes, others still block. */
  claimToken?: string;
}

export interface ClaimHoldInput {
  eventId: string;
  holdId: string;
  customerId: string;
  token: string;
  leaseMs: number;
  seatIds: string[];
  ticketTypeId: string | null;
  quantity: number;
  /** The event's limit of tickets per customer: lapsed items are taken again only within it. */
  maxPerCustomer: number;
}

/** A confirmed hold to end in Redis with the others of its turn (endConfirmedHold). */
export type ConfirmedHoldEnd = Omit<EndHoldInput, 'mode' | 'claimToken'>;

/** What ending a hold answered: `claimed` and `notDue` only for a release or an expiry (endHold). */
export interface EndHoldResult {
  applied: boolean;
  freed: number;
  offers?: number;
  claimed?: boolean;
  notDue?: boolean;
}

/** A hold whose script got no answer in time, to be given back (giveBackHold): its seats are read from its record. */
export interface LostHold {
  eventId: string;
  holdId: string;
  customerId: string;
  /** The ticket type of a general-admission hold; null for seats. */
  ticketTypeId: string | null;
}

/** What giving back a lost hold found: `given` when the hold script had taken it, `none` when not (its tombstone written), `ended`, `claimed`. */
export type GiveBackResult = { kind: 'given'; freed: number } | { kind: 'none' | 'ended' | 'claimed' };

/** A confirm's read of its hold and claim on its lease in one step (readClaimHold). */
export interface ReadClaimInput {
  eventId: string;
  holdId: string;
  token: string;
  leaseMs: number;
  /** The event's limit of tickets per customer: lapsed items are taken again only within it. */
  maxPerCustomer: number;
}

export type ReadClaimResult =
  /** Redis has no record with items for the hold (ended, lost, or never here): nothing was written. */
  | { kind: 'no_record' }
  | { kind: 'record'; record: HoldRecord; claim: ClaimResult };

export type ClaimResult =
  | { kind: 'live' | 'retaken' }
  | { kind: 'ended'; status: 'released' | 'confirmed' | 'cancelled' }
  | { kind: 'not_ready' }
  | { kind: 'unavailable'; seatIds: string[] }
  | { kind: 'sold_out'; available: number }
  | { kind: 'limit_exceeded'; inUse: number };

export interface PrimeInput {
  eventId: string;
  ticketTypes: { id: string; capacity: number; sold: number }[];
  bought: { customerId: string; quantity: number }[];
  soldSeatIds: string[];
  /** Holds PostgreSQL has ACTIVE and not due: their leases and records are restored for their remaining time. */
  liveHolds?: PrimeHold[];
}

/** A hold PostgreSQL has ACTIVE, as priming restores it in Redis. */
export interface PrimeHold {
  holdId: string;
  customerId: string;
  createdAtMs: number;
  expiresAtMs: number;
  extensions: number;
  /** The hold record's JSON (event, customer, items, currency, total), as the hold scripts write it. */
  recordJson: string;
  seatIds: string[];
  ticketTypeId: string | null;
  quantity: number;
}

/** An entry to put in line: scope "t:<tier>" or "tt:<ticket type id>"; a ticket type's name and price go in its offer. */
export interface WaitlistJoinInput {
  eventId: string;
  entryId: string;
  /** Join order (PostgreSQL's sequence): the line is kept in it. */
  seq: number;
  customerId: string;
  scope: string;
  quantity: number;
  name?: string;
  priceCents?: number;
  currency: string;
  offerMs: number;
  maxPerCustomer: number;
  /** Put back after Redis lost it: no check that the items are free now. */
  restore?: boolean;
}

export type WaitlistJoinResult =
  | { kind: 'ok'; offers: { entryId: string; holdId: string }[] }
  | { kind: 'already' }
  /** Restore only: the entry left its line, or was not needed, since PostgreSQL was read. */
  | { kind: 'gone' }
  | { kind: 'available'; free: number }
  | { kind: 'not_ready' };

export type WaitlistPlace = { kind: 'waiting'; position: number } | { kind: 'offered'; holdId: string; expiresAtMs: number };

/** How long Redis remembers that an order's cancellation was applied (a retry within it changes nothing). */
const CANCELLED_MARK_TTL_MS = 7 * 24 * 3600_000;

export interface ExtendHoldInput {
  eventId: string;
  holdId: string;
  customerId: string;
  ttlMs: number;
  /** The latest expiry allowed, ms since the epoch. */
  latestExpiresAtMs: number;
  seatIds: string[];
  ticketTypeId: string | null;
  quantity: number;
}

export type ExtendAttempt =
  | { kind: 'ok'; expiresAtMs: number }
  | { kind: 'missing' }
  | { kind: 'not_active'; status: string }
  | { kind: 'expired' }
  | { kind: 'cap'; expiresAtMs: number };

/** The consumer group of the processes that drain the outboxes into PostgreSQL. */
export const OUTBOX_GROUP = 'holdfast-persisters';

function toOutboxEntry([entryId, fields]: [string, string[]]): OutboxEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
  return { entryId, holdId: f.holdId!, json: f.json!, createdAtMs: Number(f.createdAt), expiresAtMs: Number(f.expiresAt) };
}

/** What a best-available request asks for besides the hold's base. */
export interface BestRequest {
  tier: string;
  quantity: number;
  currency: string;
  /** Usable seats the script looks at for q side by side (default bestWindow(quantity)). */
  window?: number;
}

export type BestAttempt =
  | { kind: 'ok'; candidate: number; nowMs: number; sideBySide: boolean; seatIds: string[] }
  | Exclude<HoldAttempt, { kind: 'ok' }>
  | { kind: 'not_indexed' }
  /** More leases had lapsed than one call gives back: nothing held, nothing counted twice if called again with rateLimit 0. */
  | { kind: 'again' };

/**
 * How many usable free seats hold-best looks at to find q seats side by side
 * before it settles for the q cheapest: 48 + 16 per seat asked for, at most
 * 1,024 (and never fewer than q). Rows of 20–40 seats: two or more rows' worth.
 */
export function bestWindow(quantity: number): number {
  return Math.max(quantity, Math.min(1024, 48 + 16 * quantity));
}

/** One seat of the free-seat index: its rank orders by tier, price, section, row, number. */
export interface IndexedSeat {
  id: string;
  rank: number;
  /** Same number for seats of one section and row. */
  rowId: number;
  number: number;
  priceCents: number;
  label: string;
}

/** A tier's ranks, lowest to highest, inclusive. */
export interface TierRange {
  tier: string;
  lo: number;
  hi: number;
}

export interface FreeSeatSync {
  /** The index was complete before this chunk. */
  wasComplete: boolean;
  /** Free seats that were missing from the free set (drift), added. */
  added: number;
  /** Taken or sold seats that were in the free set (drift), removed. */
  removed: number;
  /** Free seats whose lease had lapsed by time (not drift), added. */
  lapsed: number;
}

/**
 * A hold script that may have run though its call failed (no answer in time, or
 * its connection lost after it was sent) may have taken a hold whose buyer was
 * answered 503: give it back, at once on the same connection (ordered after the
 * script), or once Redis can be reached again (PendingUndos). Not awaited: Redis
 * may still be frozen, and the buyer's answer does not wait for it.
 */
function giveBackIfLost<T>(err: unknown, giveBack: (attempt: T | null) => Promise<unknown>): void {
  if (mayHaveRun(err)) void giveBack(null).catch(() => undefined);
}

/** KEYS[1..12] of end-hold-12.lua and give-back-hold-12.lua (end-lease): a hold's keys, its ticket type's ('' for seats). */
function endLeaseKeys(k: EventKeys, customerId: string, holdId: string, tt: string): string[] {
  return [
    k.ready, k.sold, k.held, k.customer(customerId), k.bought,
    tt ? k.ticketType(tt) : k.ready, tt ? k.ticketTypeExpiry(tt) : k.ready, tt ? k.ticketTypeHolds(tt) : k.ready,
    k.hold(holdId), k.claim(holdId), k.free, k.seatIndex,
  ];
}

function parse(reply: (string | number)[]): HoldAttempt {
  const [tag, ...rest] = reply;
  switch (tag) {
    case 'OK':
      return { kind: 'ok', candidate: Number(rest[0]), nowMs: Number(rest[1]) };
    case 'NOT_READY':
      return { kind: 'not_ready' };
    case 'SALES_CLOSED':
      return { kind: 'sales_closed', nowMs: Number(rest[0]) };
    case 'OUTBOX_FULL':
      return { kind: 'outbox_full', pending: Number(rest[0]) };
    case 'RATE_LIMITED':
      return { kind: 'rate_limited', retryAfterMs: Number(rest[0]) };
    case 'LIMIT_EXCEEDED':
      return { kind: 'limit_exceeded', inUse: Number(rest[0]) };
    case 'UNAVAILABLE':
      return { kind: 'unavailable', seatIds: rest.map(String) };
    case 'SOLD_OUT':
      return { kind: 'sold_out', available: Number(rest[0]) };
    case 'QUEUE_PASS':
      return { kind: 'queue_pass', reason: String(rest[0]) as QueuePassRefusal };
    default:
      throw new Error(`unexpected hold script reply ${String(tag)}`);
  }
}

function parseClaim(reply: (string | number)[]): ClaimResult {
  switch (reply[0]) {
    case 'OK':
      return { kind: reply[1] === 'retaken' ? 'retaken' : 'live' };
    case 'ENDED':
      return { kind: 'ended', status: reply[1] === 'confirmed' || reply[1] === 'cancelled' ? reply[1] : 'released' };
    case 'NOT_READY':
      return { kind: 'not_ready' };
    case 'UNAVAILABLE':
      return { kind: 'unavailable', seatIds: reply.slice(1).map(String) };
    case 'SOLD_OUT':
      return { kind: 'sold_out', available: Number(reply[1]) };
    case 'LIMIT_EXCEEDED':
      return { kind: 'limit_exceeded', inUse: Number(reply[1]) };
    default:
      throw new Error(`unexpected claim script reply ${String(reply[0])}`);
  }
}

/**
 * The Redis hold store: holds are leases (SET NX PX per seat, counters with lazy
 * expiry per ticket type), taken all or nothing by one Lua script per operation.
 * It is an efficiency gate only; PostgreSQL decides every sale.
 */
export class HoldStore {
  private readonly run: Record<ScriptName, ScriptRunner>;
  /** Sends the commands of one event-loop turn in one socket write (scripts.ts). */
  private readonly coalesce: () => void;
  /** Idempotency keys, on the same connection. */
  readonly idempotency: IdempotencyStore;
  /** The events' waiting rooms (issue 29), on the same connection. */
  readonly queue: QueueStore;
  /** Give-backs (and keys' releases) that could not be sent yet, sent once Redis can be reached. */
  readonly undos: PendingUndos;

  constructor(private readonly redis: RedisClient, private readonly replicaAcks: ReplicaAcks | null = null) {
    this.coalesce = writeCoalescer(redis);
    this.run = registerScripts(redis, this.coalesce);
    this.undos = new PendingUndos(redis);
    this.idempotency = new IdempotencyStore(redis, undefined, this.undos);
    // With replica acks, a queue place or pass is answered only once the replicas have it (as a hold is).
    this.queue = new QueueStore(this.run, redis, replicaAcks && replicaAcks.replicas > 0
      ? (name, keys, args) => this.#acknowledgedRun(name, keys, args, (reply) => ({ kind: reply[0] === 'OK' ? 'ok' : String(reply[0]), reply }), async () => undefined)
        .then((r) => r.reply)
      : null);
  }

  /**
   * Runs a hold script and parses its reply; with replica acks, WAIT follows on the
   * same connection (the slot's master, one round trip) and an 'ok' too few
   * replicas have is given back (ReplicaAckError). A script that got no answer in
   * time (Redis frozen or far away: the caller answers 503) is given back too,
   * `giveBack(null)`, sent at once on the same connection so Redis runs it right
   * after the script, should the script run at all. This and #acknowledgedRun are
   * `#` methods, off the prototype: translateErrorsOf wraps every prototype
   * method (a rest array, an apply and a promise's catch each), and the public
   * method that calls them is wrapped already.
   */
  #acknowledged<T extends { kind: string }>(
    name: ScriptName, keys: string[], args: (string | number)[],
    parseReply: (reply: (string | number)[]) => T, giveBack: (attempt: T | null) => Promise<unknown>,
  ): Promise<T> {
    // The span `hold.script`, when tracing is on: the script's EVALSHA is its child.
    if (!tracingEnabled()) return this.#acknowledgedRun(name, keys, args, parseReply, giveBack);
    return withSpan('hold.script', { 'holdfast.script': name }, async (span) => {
      const attempt = await this.#acknowledgedRun(name, keys, args, parseReply, giveBack);
      span?.setAttribute('holdfast.hold.outcome', attempt.kind);
      return attempt;
    });
  }

  async #acknowledgedRun<T extends { kind: string }>(
    name: ScriptName, keys: string[], args: (string | number)[],
    parseReply: (reply: (string | number)[]) => T, giveBack: (attempt: T | null) => Promise<unknown>,
  ): Promise<T> {
    if (!this.replicaAcks || this.replicaAcks.replicas === 0) {
      let reply: (string | number)[];
      try {
        reply = await this.run[name](keys, args);
      } catch (err) {
        giveBackIfLost(err, giveBack);
        throw err;
      }
      return parseReply(reply);
    }
    const { replicas, timeoutMs } = this.replicaAcks;
    const p = this.redis.pipeline() as unknown as Record<string, (...a: unknown[]) => unknown> & { exec(): Promise<[Error | null, unknown][] | null> };
    p[scriptCommand(name)]!(keys.length, ...keys, ...args);
    p.wait!(replicas, timeoutMs);
    let res: [Error | null, unknown][] | null;
    try {
      res = await p.exec();
    } catch (err) {
      giveBackIfLost(err, giveBack);
      throw err;
    }
    if (!res) throw new Error('hold pipeline was aborted');
    const [[e1, reply], [e2, acked]] = res as [[Error | null, unknown], [Error | null, unknown]];
    if (e1) {
      // The slot moved (nothing ran there): learn the new owner now, so the caller's retry finds it.
      if (/^(MOVED|ASK) /.test(e1.message) && 'refreshSlotsCache' in this.redis) {
        (this.redis as unknown as { refreshSlotsCache(cb?: () => void): void }).refreshSlotsCache();
      }
      giveBackIfLost(e1, giveBack);
      throw e1;
    }
    const attempt = parseReply(reply as (string | number)[]);
    if (attempt.kind !== 'ok') return attempt;
    if (e2 || Number(acked) < replicas) {
      await giveBack(attempt).catch(() => undefined);
      throw new ReplicaAckError(e2 ? 0 : Number(acked), replicas, name.startsWith('queue') ? 'the queue place' : 'the hold');
    }
    return attempt;
  }


  /** Holds the first candidate selection whose seats are all free (one round trip). */
  holdSeats(req: HoldRequestBase & { candidates: SeatCandidate[] }): Promise<HoldAttempt> {
    const k = eventKeys(req.eventId);
    const { candidates } = req;
    // Built with plain loops (no flatMap, map or spreads): this runs on every hold.
    const keys = [
      k.ready, k.sold, k.held, k.customer(req.customerId), k.bought,
      k.rateLimit(req.customerId), k.hold(req.holdId), k.outbox, k.free,
    ];
    const args: (string | number)[] = [
      req.holdId, req.customerId, req.ttlMs, req.maxPerCustomer, req.rateLimit, req.rateWindowMs,
      k.channel, candidates.length, req.ttlMs + HOLD_RECORD_TTL_MS,
    ];
    for (const c of candidates) args.push(c.seatIds.length);
    for (const c of candidates) args.push(c.recordJson);
    for (const c of candidates) {
      for (const seatId of c.seatIds) {
        keys.push(k.seat(seatId));
        args.push(seatId);
      }
    }
    keys.push(k.queuePasses, k.queueActive);
    args.push(req.salesStartMs ?? '', req.salesEndMs ?? '', req.outboxMaxPending, req.queuePass ?? '');
    return this.#acknowledged('holdSeats', keys, args, parse, (a) => {
      if (!a) return this.#giveBackSoon(req, null);
      return a.kind === 'ok' ? this.#undoSoon(req, () => this.endHold({
        eventId: req.eventId, holdId: req.holdId, customerId: req.customerId, mode: 'released',
        seatIds: req.candidates[a.candidate - 1]?.seatIds ?? [], ticketTypeId: null, quantity: 0,
      })) : Promise.resolve();
    });
  }

  /**
   * Best available in one tier, decided inside one script (hold-best-12.lua):
   * the best free selection at this instant is held, or SOLD_OUT. One round trip.
   */
  holdBest(req: HoldRequestBase & BestRequest): Promise<BestAttempt> {
    const k = eventKeys(req.eventId);
    const keys = [
      k.ready, k.sold, k.held, k.customer(req.customerId), k.bought,
      k.rateLimit(req.customerId), k.hold(req.holdId), k.outbox, k.free, k.seatIndex, k.queuePasses, k.queueActive,
    ];
    const args = [
      req.holdId, req.customerId, req.ttlMs, req.maxPerCustomer, req.rateLimit, req.rateWindowMs,
      k.channel, req.tier, req.quantity, k.seatPrefix, req.eventId, req.currency, req.window ?? bestWindow(req.quantity),
      req.outboxMaxPending, req.ttlMs + HOLD_RECORD_TTL_MS, req.salesStartMs ?? '', req.salesEndMs ?? '', req.queuePass ?? '',
    ];
    const parseBest = (reply: (string | number)[]): BestAttempt => {
      if (reply[0] === 'NOT_INDEXED') return { kind: 'not_indexed' };
      if (reply[0] === 'AGAIN') return { kind: 'again' };
      if (reply[0] !== 'OK') return parse(reply) as Exclude<HoldAttempt, { kind: 'ok' }>;
      return { kind: 'ok', candidate: 1, nowMs: Number(reply[1]), sideBySide: Number(reply[2]) === 1, seatIds: reply.slice(3).map(String) };
    };
    return this.#acknowledged('holdBest', keys, args, parseBest, (a) => a ? this.#undoSoon(req, () => this.endHold({
      eventId: req.eventId, holdId: req.holdId, customerId: req.customerId, mode: 'released',
      seatIds: a.kind === 'ok' ? a.seatIds : [], ticketTypeId: null, quantity: req.quantity,
    })) : this.#giveBackSoon(req, null));
  }

  /**
   * Builds or repairs the free-seat index for a chunk of an event's seats
   * (sync-free-seats-4.lua); `tiers` on the last chunk marks the index complete.
   */
  async syncFreeSeats(
    eventId: string, seats: readonly IndexedSeat[], last: { tiers: readonly TierRange[]; seatCount: number } | null,
  ): Promise<FreeSeatSync> {
    const k = eventKeys(eventId);
    const args: (string | number)[] = [k.seatPrefix, seats.length, last ? last.tiers.length : 0, last ? last.seatCount : 0];
    for (const s of seats) args.push(s.id, s.rank, s.rowId, s.number, s.priceCents, s.label);
    for (const t of last?.tiers ?? []) args.push(t.tier, t.lo, t.hi);
    const [complete, added, removed, lapsed] = (await this.run.syncFreeSeats([k.sold, k.held, k.free, k.seatIndex], args)).map(Number);
    return { wasComplete: complete === 1, added: added!, removed: removed!, lapsed: lapsed! };
  }

  /** Whether the event's free-seat index is complete. */
  async isSeatIndexed(eventId: string): Promise<boolean> {
    return (await this.redis.hexists(eventKeys(eventId).seatIndex, '_n')) === 1;
  }

  /** Holds general-admission tickets of one type (one round trip). */
  holdTickets(
    req: HoldRequestBase & { ticketTypeId: string; quantity: number; recordJson: string },
  ): Promise<HoldAttempt> {
    const k = eventKeys(req.eventId);
    const keys = [
      k.ready, k.ticketType(req.ticketTypeId), k.ticketTypeExpiry(req.ticketTypeId),
      k.ticketTypeHolds(req.ticketTypeId), k.customer(req.customerId), k.bought,
      k.rateLimit(req.customerId), k.hold(req.holdId), k.outbox, k.queuePasses, k.queueActive,
    ];
    const args = [
      req.holdId, req.customerId, req.ttlMs, req.maxPerCustomer, req.rateLimit, req.rateWindowMs,
      req.recordJson, k.channel, req.ticketTypeId, req.quantity, req.outboxMaxPending, req.ttlMs + HOLD_RECORD_TTL_MS,
      req.salesStartMs ?? '', req.salesEndMs ?? '', req.queuePass ?? '',
    ];
    return this.#acknowledged('holdTickets', keys, args, parse, (a) => a ? this.#undoSoon(req, () => this.endHold({
      eventId: req.eventId, holdId: req.holdId, customerId: req.customerId, mode: 'released',
      seatIds: [], ticketTypeId: req.ticketTypeId, quantity: req.quantity,
    })) : this.#giveBackSoon(req, req.ticketTypeId));
  }

  /**
   * Counts a refused hold request in the customer's rate-limit window (one round
   * trip, on the refusal path only); answers how long to wait when over the limit.
   */
  async countHoldRequest(req: Pick<HoldRequestBase, 'eventId' | 'customerId' | 'rateLimit' | 'rateWindowMs'>): Promise<{ retryAfterMs: number } | null> {
    const reply = await this.run.countHoldRequest([eventKeys(req.eventId).rateLimit(req.customerId)], [req.rateLimit, req.rateWindowMs]);
    return reply[0] === 'RATE_LIMITED' ? { retryAfterMs: Number(reply[1]) } : null;
  }

  /**
   * Undoes a hold the buyer was not given (its script may have run though its call
   * failed, or too few replicas have it): sent now, and kept to send again while
   * Redis cannot be reached, for as long as the hold's lease (PendingUndos).
   */
  #undoSoon(req: Pick<HoldRequestBase, 'holdId' | 'ttlMs'>, undo: () => Promise<unknown>): Promise<void> {
    return this.undos.send(`hold:${req.holdId}`, undo, Date.now() + req.ttlMs);
  }

  #giveBackSoon(req: Pick<HoldRequestBase, 'eventId' | 'holdId' | 'customerId' | 'ttlMs'>, ticketTypeId: string | null): Promise<void> {
    // What is kept holds the hold's ids only, not the request (its candidates' JSON).
    const lost: LostHold = { eventId: req.eventId, holdId: req.holdId, customerId: req.customerId, ticketTypeId };
    return this.#undoSoon(req, () => this.giveBackHold(lost));
  }

  /**
   * Gives back a hold whose script may have run though its call failed
   * (give-back-hold-12.lua): released, its seats read from its record, when that
   * script took it; when it did not (yet), only the hold's tombstone is written,
   * so the script takes nothing should it run later. Send it right after the
   * hold script, on the same client, so Redis runs it after that script. Sent
   * whole (runWhole). Idempotent.
   */
  async giveBackHold(input: LostHold): Promise<GiveBackResult> {
    const k = eventKeys(input.eventId);
    const tt = input.ticketTypeId ?? '';
    const keys = endLeaseKeys(k, input.customerId, input.holdId, tt);
    const args = [input.holdId, input.customerId, k.channel, tt, ENDED_HOLD_TTL_MS.released, k.seatPrefix];
    const reply = await runWhole(this.redis, 'giveBackHold', keys, args);
    switch (reply[0]) {
      case 'OK':
        return { kind: 'given', freed: Number(reply[1]) };
      case 'NONE':
        return { kind: 'none' };
      case 'ALREADY':
        return { kind: 'ended' };
      case 'CLAIMED':
        return { kind: 'claimed' };
      default:
        throw new Error(`unexpected give-back script reply ${String(reply[0])}`);
    }
  }

  /**
   * Ends a hold in Redis (compare-and-delete); idempotent. `claimed`: a confirm in flight holds it, nothing done.
   * `notDue`: an expiry before the hold's time on Redis's clock, nothing done.
   */
  async endHold(input: EndHoldInput): Promise<EndHoldResult> {
    const k = eventKeys(input.eventId);
    const tt = input.ticketTypeId ?? '';
    const keys = endLeaseKeys(k, input.customerId, input.holdId, tt);
    for (const seatId of input.seatIds) keys.push(k.seat(seatId));
    const args = [
      input.holdId, input.customerId, input.mode, k.channel, tt, input.quantity, ENDED_HOLD_TTL_MS[input.mode], input.claimToken ?? '',
      ...input.seatIds,
    ];
    const reply = await this.run.endHold(keys, args);
    if (reply[0] === 'CLAIMED') return { applied: false, freed: 0, claimed: true };
    if (reply[0] === 'NOT_DUE') return { applied: false, freed: 0, notDue: true };
    return reply[0] === 'ALREADY' ? { applied: false, freed: 0 } : { applied: true, freed: Number(reply[1]), offers: Number(reply[2] ?? 0) };
  }

  /**
   * A confirm takes the hold's lease first, on Redis's clock: extended (or taken
   * again where it lapsed and the item is free) to at least now + leaseMs, all
   * or nothing, under the confirm's token; items taken again count against the
   * customer's limit as a new hold would. See claim-hold-11.lua.
   */
  async claimHold(input: ClaimHoldInput): Promise<ClaimResult> {
    const k = eventKeys(input.eventId);
    const tt = input.ticketTypeId ?? '';
    const keys = [
      k.ready, k.sold, k.held,
      tt ? k.ticketType(tt) : k.ready, tt ? k.ticketTypeExpiry(tt) : k.ready, tt ? k.ticketTypeHolds(tt) : k.ready,
      k.hold(input.holdId), k.customer(input.customerId), k.claim(input.holdId), k.free, k.bought,
      ...input.seatIds.map(k.seat),
    ];
    const args = [
      input.holdId, input.token, input.leaseMs, tt, input.quantity, k.channel, input.customerId, input.maxPerCustomer,
      ...input.seatIds,
    ];
    return parseClaim(await this.run.claimHold(keys, args));
  }

  /**
   * A confirm's first step in one round trip (read-claim-hold-7.lua): the hold's
   * record is read and, from its items, the claim of claimHold is taken. No record
   * with items in Redis: 'no_record', nothing written (read PostgreSQL, then claimHold).
   */
  async readClaimHold(input: ReadClaimInput): Promise<ReadClaimResult> {
    const k = eventKeys(input.eventId);
    const keys = [k.ready, k.sold, k.held, k.hold(input.holdId), k.claim(input.holdId), k.free, k.bought];
    const args = [
      input.holdId, input.token, input.leaseMs, k.channel, input.maxPerCustomer,
      k.seatPrefix, k.customerPrefix, k.ticketTypePrefix, k.ticketTypeExpiryPrefix, k.ticketTypeHoldsPrefix,
    ];
    const reply = await this.run.readClaimHold(keys, args);
    if (reply[0] === 'NO_RECORD') return { kind: 'no_record' };
    const [json, createdAt, expiresAt, status, extensions] = reply;
    return {
      kind: 'record',
      record: {
        holdId: input.holdId, json: String(json), createdAtMs: Number(createdAt), expiresAtMs: Number(expiresAt),
        status: status ? String(status) : 'active', extensions: Number(extensions || 0),
      },
      claim: parseClaim(reply.slice(5)),
    };
  }

  /**
   * Ends confirmed holds in Redis as endHold does with mode 'confirmed', all of
   * one event in one script call (end-confirmed-holds-6.lua); the answers in order.
   */
  async endConfirmedHolds(eventId: string, holds: readonly ConfirmedHoldEnd[]): Promise<EndHoldResult[]> {
    if (!holds.length) return [];
    const k = eventKeys(eventId);
    const keys = [k.ready, k.sold, k.held, k.bought, k.free, k.seatIndex];
    const args: (string | number)[] = [k.channel, ENDED_HOLD_TTL_MS.confirmed, holds.length];
    for (const h of holds) {
      if (h.eventId !== eventId) throw new Error(`hold ${h.holdId} is not of event ${eventId}`);
      const tt = h.ticketTypeId ?? '';
      keys.push(
        k.customer(h.customerId), tt ? k.ticketType(tt) : k.ready, tt ? k.ticketTypeExpiry(tt) : k.ready,
        tt ? k.ticketTypeHolds(tt) : k.ready, k.hold(h.holdId), k.claim(h.holdId),
      );
      args.push(h.holdId, h.customerId, tt, h.quantity, h.seatIds.length);
      for (const seatId of h.seatIds) {
        keys.push(k.seat(seatId));
        args.push(seatId);
      }
    }
    const reply = await this.run.endConfirmedHolds(keys, args);
    const out: EndHoldResult[] = [];
    for (let i = 0; i < holds.length; i += 1) {
      out.push(reply[2 * i] === 'OK' ? { applied: true, freed: Number(reply[2 * i + 1]), offers: 0 } : { applied: false, freed: 0 });
    }
    return out;
  }

  /**
   * Ends a confirmed hold in Redis (as endHold with mode 'confirmed') together with
   * the other confirmed holds asked for in the same event-loop turn: one script
   * call per event (endConfirmedHolds) for a whole confirm batch, not one per hold.
   * Its promise settles with its own answer, or the call's error.
   */
  endConfirmedHold(input: ConfirmedHoldEnd): Promise<EndHoldResult> {
    return new Promise((resolve, reject) => {
      this.#confirmedEnds.push({ input, resolve, reject });
      if (this.#confirmedEnds.length === 1) process.nextTick(() => this.#endConfirmedTurn());
    });
  }

  /** The confirmed ends asked for in this turn (endConfirmedHold). */
  #confirmedEnds: { input: ConfirmedHoldEnd; resolve(r: EndHoldResult): void; reject(err: unknown): void }[] = [];

  #endConfirmedTurn(): void {
    const ends = this.#confirmedEnds;
    this.#confirmedEnds = [];
    const byEvent = new Map<string, typeof ends>();
    for (const e of ends) {
      const list = byEvent.get(e.input.eventId);
      if (list) list.push(e);
      else byEvent.set(e.input.eventId, [e]);
    }
    for (const [eventId, list] of byEvent) {
      this.endConfirmedHolds(eventId, list.map((e) => e.input)).then(
        (results) => list.forEach((e, i) => e.resolve(results[i]!)),
        (err: unknown) => {
          // Redis unreachable: every end of the call failed alike. A script error (one hold's keys
          // not what the script expects) stops the call at that hold: each hold is ended alone then
          // (ends are idempotent), so one hold's trouble leaves the others' ends as they were.
          if (list.length === 1 || err instanceof StoreUnavailableError) {
            list.forEach((e) => e.reject(err));
            return;
          }
          for (const e of list) this.endHold({ ...e.input, mode: 'confirmed' }).then(e.resolve, e.reject);
        },
      );
    }
  }

  /**
   * A confirm that will not commit gives its claim back (its own token only): a
   * release or expiry that comes next is no longer held off by it.
   */
  async releaseClaim(eventId: string, holdId: string, token: string): Promise<void> {
    await this.redis.hdel(eventKeys(eventId).claim(holdId), token);
  }

  /**
   * Takes a lost hold's items again (reconciliation), all or nothing, within the
   * customer's limit; the hold counts against its customer again.
   */
  async retakeHold(input: {
    eventId: string; holdId: string; customerId: string; leaseMs: number;
    seatIds: string[]; ticketTypeId: string | null; quantity: number; maxPerCustomer: number;
  }): Promise<HoldAttempt> {
    const k = eventKeys(input.eventId);
    const tt = input.ticketTypeId ?? '';
    const keys = [
      k.ready, k.sold, k.held,
      tt ? k.ticketType(tt) : k.ready, tt ? k.ticketTypeExpiry(tt) : k.ready, tt ? k.ticketTypeHolds(tt) : k.ready,
      k.hold(input.holdId), k.customer(input.customerId), k.free, k.bought, ...input.seatIds.map(k.seat),
    ];
    const args = [
      input.holdId, input.leaseMs, tt, input.quantity, k.channel, input.customerId, input.maxPerCustomer, ...input.seatIds,
    ];
    const reply = await this.run.retakeHold(keys, args);
    return reply[0] === 'OK' ? { kind: 'ok', candidate: 1, nowMs: 0 } : parse(reply);
  }

  /** Moves every lease of a live hold to now + ttl (capped), all or nothing, on Redis's clock. */
  async extendHold(input: ExtendHoldInput): Promise<ExtendAttempt> {
    const k = eventKeys(input.eventId);
    const tt = input.ticketTypeId ?? '';
    const keys = [
      k.held, k.customer(input.customerId), tt ? k.ticketTypeExpiry(tt) : k.held, k.hold(input.holdId),
      ...input.seatIds.map(k.seat),
    ];
    const args = [input.holdId, input.ttlMs, input.latestExpiresAtMs, tt, input.quantity, HOLD_RECORD_TTL_MS, ...input.seatIds];
    const [tag, value] = await this.run.extendHold(keys, args);
    switch (tag) {
      case 'OK': return { kind: 'ok', expiresAtMs: Number(value) };
      case 'MISSING': return { kind: 'missing' };
      case 'NOT_ACTIVE': return { kind: 'not_active', status: String(value) };
      case 'EXPIRED': return { kind: 'expired' };
      case 'CAP': return { kind: 'cap', expiresAtMs: Number(value) };
      default: throw new Error(`unexpected extend script reply ${String(tag)}`);
    }
  }

  /** Loads an event's sale state from PostgreSQL's numbers, unless already primed. */
  async primeEvent(input: PrimeInput): Promise<boolean> {
    const k = eventKeys(input.eventId);
    const ttIndex = new Map(input.ticketTypes.map((t, i) => [t.id, i + 1]));
    // A hold of a ticket type no longer there has nothing to restore.
    const live = (input.liveHolds ?? []).filter((h) => !h.ticketTypeId || ttIndex.has(h.ticketTypeId));
    const keys = [
      k.ready, k.sold, k.bought, k.held,
      ...input.ticketTypes.map((t) => k.ticketType(t.id)),
      ...input.ticketTypes.map((t) => k.ticketTypeHolds(t.id)),
      ...input.ticketTypes.map((t) => k.ticketTypeExpiry(t.id)),
      ...live.flatMap((h) => (h.ticketTypeId ? [] : h.seatIds.map(k.seat))),
      ...live.map((h) => k.customer(h.customerId)),
      ...live.map((h) => k.hold(h.holdId)),
    ];
    const args = [
      input.ticketTypes.length, input.bought.length, live.length, input.soldSeatIds.length, HOLD_RECORD_TTL_MS,
      ...input.ticketTypes.flatMap((t) => [t.capacity, t.sold]),
      ...input.bought.flatMap((b) => [b.customerId, b.quantity]),
      ...input.soldSeatIds,
      ...live.flatMap((h) => [h.holdId, h.customerId, h.expiresAtMs, h.createdAtMs, h.extensions, h.recordJson, ...(h.ticketTypeId
        ? [ttIndex.get(h.ticketTypeId)!, h.quantity]
        : [0, h.seatIds.length, ...h.seatIds])]),
    ];
    const reply = await this.run.primeEvent(keys, args);
    return Number(reply) === 1;
  }

  /** Redis's clock, ms since the epoch: holds expire on it, so their expiry is decided on it. */
  async nowMs(): Promise<number> {
    const [sec, micro] = await this.redis.time();
    return Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
  }

  async isPrimed(eventId: string): Promise<boolean> {
    return (await this.redis.exists(eventKeys(eventId).ready)) === 1;
  }

  /** Forgets an event's primed state so the next request loads it again from PostgreSQL. */
  async unprime(eventId: string): Promise<void> {
    await this.redis.del(eventKeys(eventId).ready);
  }

  /** Available tickets per ticket type, or null when the event is not primed. */
  async readAvailability(eventId: string, ticketTypeIds: string[]): Promise<Map<string, number> | null> {
    if (ticketTypeIds.length === 0) return new Map();
    const k = eventKeys(eventId);
    const keys = [k.ready, ...ticketTypeIds.flatMap((t) => [k.ticketType(t), k.ticketTypeExpiry(t), k.ticketTypeHolds(t)])];
    const reply = await this.run.readAvailability(keys, []);
    if (reply[0] !== 'OK') return null;
    return new Map(ticketTypeIds.map((id, i) => [id, Number(reply[i + 1])]));
  }

  /** Seats held now and seats sold, as Redis sees them (one round trip). */
  async seatStates(eventId: string): Promise<{ primed: boolean; held: Set<string>; sold: Set<string> }> {
    const k = eventKeys(eventId);
    const res = await this.redis
      .multi()
      .exists(k.ready)
      .zrangebyscore(k.held, Date.now(), '+inf')
      .smembers(k.sold)
      .exec();
    if (!res) throw new Error('seat state transaction was aborted');
    for (const [err] of res) if (err) throw err;
    return {
      primed: res[0]![1] === 1,
      held: new Set(res[1]![1] as string[]),
      sold: new Set(res[2]![1] as string[]),
    };
  }

  /**
   * The status of the hold's record in Redis: 'active' while the hold is held there
   * (whatever PostgreSQL's row says yet: a hold given back ends in Redis first), how
   * it ended (its tombstone), or null when Redis has no record of it.
   */
  async holdRecordStatus(eventId: string, holdId: string): Promise<string | null> {
    this.coalesce();
    return this.redis.hget(eventKeys(eventId).hold(holdId), 'status');
  }

  /** The hold's record as the hold script wrote it, or null. */
  async getHoldRecord(eventId: string, holdId: string): Promise<HoldRecord | null> {
    this.coalesce();
    const h = await this.redis.hgetall(eventKeys(eventId).hold(holdId));
    if (!h.json) return null;
    return {
      holdId,
      json: h.json,
      createdAtMs: Number(h.createdAt),
      expiresAtMs: Number(h.expiresAt),
      status: h.status ?? 'active',
      extensions: Number(h.extensions ?? 0),
    };
  }

  /** Entries of an event's outbox not yet persisted (acknowledged entries are deleted). */
  async outboxLength(eventId: string): Promise<number> {
    return this.redis.xlen(eventKeys(eventId).outbox);
  }

  /** The oldest entries of an event's outbox (holds still to be persisted). */
  async readOutbox(eventId: string, count = 500): Promise<OutboxEntry[]> {
    const entries = await this.redis.xrange(eventKeys(eventId).outbox, '-', '+', 'COUNT', count);
    return entries.map(toOutboxEntry);
  }

  /**
   * Moves an outbox entry PostgreSQL refused to the event's parked stream, with
   * the error, in one MULTI: the outbox goes on draining past it.
   */
  async parkOutboxEntry(eventId: string, entry: OutboxEntry, error: string): Promise<void> {
    const k = eventKeys(eventId);
    const res = await this.redis
      .multi()
      .xadd(k.outboxParked, '*', 'holdId', entry.holdId, 'createdAt', entry.createdAtMs, 'expiresAt', entry.expiresAtMs,
        'json', entry.json, 'entryId', entry.entryId, 'error', error, 'parkedAt', Date.now())
      .xdel(k.outbox, entry.entryId)
      .exec();
    if (!res) throw new Error('parking an outbox entry was aborted');
    for (const [err] of res) if (err) throw err;
  }

  /** The entries parked for an event (oldest first), with the error PostgreSQL gave. */
  async parkedOutbox(eventId: string, count = 100): Promise<(OutboxEntry & { error: string })[]> {
    const entries = await this.redis.xrange(eventKeys(eventId).outboxParked, '-', '+', 'COUNT', count);
    return entries.map(([, fields]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
      return {
        entryId: f.entryId!, holdId: f.holdId!, json: f.json!,
        createdAtMs: Number(f.createdAt), expiresAtMs: Number(f.expiresAt), error: f.error!,
      };
    });
  }

  async ackOutbox(eventId: string, entryIds: string[]): Promise<void> {
    if (entryIds.length) await this.redis.xdel(eventKeys(eventId).outbox, ...entryIds);
  }

  /**
   * Entries of an event's outbox for one drainer (`consumer`) of the consumer
   * group OUTBOX_GROUP: first entries another drainer claimed and left idle for
   * `minIdleMs` (it died: XAUTOCLAIM takes them over), then new ones
   * — after this drainer's own unacknowledged ones, which come first
   * (XREADGROUP). Each entry is handed to one drainer at a time; several
   * processes drain one event's outbox side by side without reading an entry twice.
   */
  async claimOutbox(eventId: string, consumer: string, count = 500, minIdleMs = 30_000): Promise<OutboxEntry[]> {
    const key = eventKeys(eventId).outbox;
    for (let attempt = 0; ; attempt++) {
      try {
        // This drainer's own entries not yet acknowledged (a write that failed is retried).
        const own = (await this.redis.xreadgroup('GROUP', OUTBOX_GROUP, consumer, 'COUNT', count, 'STREAMS', key, '0')) as
          [string, [string, string[]][]][] | null;
        const mine = (own?.[0]?.[1] ?? []).filter((e) => e && e[1]);
        if (mine.length) return mine.map(toOutboxEntry);
        const [, taken] = (await this.redis.xautoclaim(key, OUTBOX_GROUP, consumer, minIdleMs, '0-0', 'COUNT', count)) as [string, [string, string[]][]];
        const live = taken.filter((e) => e && e[1]);
        if (live.length) return live.map(toOutboxEntry);
        const read = (await this.redis.xreadgroup('GROUP', OUTBOX_GROUP, consumer, 'COUNT', count, 'STREAMS', key, '>')) as
          [string, [string, string[]][]][] | null;
        return (read?.[0]?.[1] ?? []).filter((e) => e && e[1]).map(toOutboxEntry);
      } catch (err) {
        // No group yet (first drain of this event, or the stream was lost): create it, read again.
        if (attempt > 0 || !/NOGROUP/.test(String((err as Error).message))) throw err;
        await this.redis.xgroup('CREATE', key, OUTBOX_GROUP, '0', 'MKSTREAM').catch((e: Error) => {
          if (!/BUSYGROUP/.test(e.message)) throw e;
        });
      }
    }
  }

  /**
   * Puts a waiting-list entry in its line (lua/waitlist-join-6.lua), then serves
   * the event's lines: the offers made come back (this entry's among them or not).
   */
  async waitlistJoin(input: WaitlistJoinInput): Promise<WaitlistJoinResult> {
    const k = eventKeys(input.eventId);
    const keys = [k.ready, k.waitlist, k.waitLine(input.scope), k.waitScopes, k.waitConfig, k.waitGone(input.entryId)];
    const data = JSON.stringify({ c: input.customerId, q: input.quantity, s: input.scope, n: input.name ?? null, p: input.priceCents ?? 0 });
    const args = [
      input.entryId, input.seq, data, input.scope, input.quantity, input.eventId, input.currency, input.offerMs,
      HOLD_RECORD_TTL_MS, input.maxPerCustomer, input.restore ? 'restore' : '', WAITLIST_GONE_TTL_MS,
    ];
    const reply = await this.run.waitlistJoin(keys, args);
    switch (reply[0]) {
      case 'OK': {
        const offers: { entryId: string; holdId: string }[] = [];
        for (let i = 1; i + 1 < reply.length; i += 2) offers.push({ entryId: String(reply[i]), holdId: String(reply[i + 1]) });
        return { kind: 'ok', offers };
      }
      case 'ALREADY': return { kind: 'already' };
      case 'GONE': return { kind: 'gone' };
      case 'AVAILABLE': return { kind: 'available', free: Number(reply[1]) };
      case 'NOT_READY': return { kind: 'not_ready' };
      default: throw new Error(`unexpected waitlist join reply ${String(reply[0])}`);
    }
  }

  /** Takes an entry out of its line; an entry with an offer is left alone and its offer's hold id answered. */
  async waitlistLeave(eventId: string, entryId: string, scope: string): Promise<{ kind: 'left' } | { kind: 'offered'; holdId: string }> {
    const k = eventKeys(eventId);
    const reply = await this.run.waitlistLeave(
      [k.waitlist, k.waitLine(scope), k.waitOffer(entryId), k.waitScopes, k.waitGone(entryId)], [entryId, scope, WAITLIST_GONE_TTL_MS],
    );
    return reply[0] === 'OFFERED' ? { kind: 'offered', holdId: String(reply[1]) } : { kind: 'left' };
  }

  /** Where entries stand in Redis: each one's place in its line (1-based) or its offer, else null. */
  async waitlistPlaces(eventId: string, entries: { id: string; scope: string }[]): Promise<Map<string, WaitlistPlace>> {
    const out = new Map<string, WaitlistPlace>();
    if (!entries.length) return out;
    const k = eventKeys(eventId);
    const pipe = this.redis.pipeline();
    for (const e of entries) pipe.zrank(k.waitLine(e.scope), e.id).get(k.waitOffer(e.id));
    const res = (await pipe.exec()) ?? [];
    entries.forEach((e, i) => {
      const [rankErr, rank] = res[2 * i] ?? [];
      const [offerErr, offer] = res[2 * i + 1] ?? [];
      if (rankErr || offerErr) throw rankErr ?? offerErr;
      if (typeof offer === 'string') {
        const [holdId, expiresAt] = offer.split('|');
        out.set(e.id, { kind: 'offered', holdId: holdId!, expiresAtMs: Number(expiresAt) });
      } else if (rank !== null && rank !== undefined) {
        out.set(e.id, { kind: 'waiting', position: Number(rank) + 1 });
      }
    });
    return out;
  }

  /** How many entries wait in each line of the event (scope -> count). */
  async waitlistLengths(eventId: string, scopes: string[]): Promise<Map<string, number>> {
    const k = eventKeys(eventId);
    const pipe = this.redis.pipeline();
    for (const s of scopes) pipe.zcard(k.waitLine(s));
    const res = (await pipe.exec()) ?? [];
    return new Map(scopes.map((s, i) => [s, Number(res[i]?.[1] ?? 0)]));
  }

  /**
   * An order PostgreSQL cancelled gives its seats and tickets back in Redis, to
   * the waiting lists first (lua/cancel-order-7.lua); idempotent.
   */
  async cancelOrder(input: {
    eventId: string; holdId: string; customerId: string; seatIds: string[]; ticketTypeId: string | null; quantity: number;
  }): Promise<{ applied: boolean; offers: number; notReady?: boolean }> {
    const k = eventKeys(input.eventId);
    const tt = input.ticketTypeId ?? '';
    const keys = [k.ready, k.sold, k.bought, k.free, k.seatIndex, k.hold(input.holdId), tt ? k.ticketType(tt) : k.ready];
    const args = [input.customerId, input.quantity, tt, CANCELLED_MARK_TTL_MS, ...input.seatIds];
    const reply = await this.run.cancelOrder(keys, args);
    if (reply[0] === 'NOT_READY') return { applied: false, offers: 0, notReady: true };
    return reply[0] === 'OK' ? { applied: true, offers: Number(reply[1]) } : { applied: false, offers: 0 };
  }

  /** The event's offer settings as the waitlist scripts read them (an admin changed the offer time). */
  async setWaitlistConfig(eventId: string, offerMs: number, maxPerCustomer: number): Promise<void> {
    const k = eventKeys(eventId);
    if (await this.redis.exists(k.waitConfig)) await this.redis.hset(k.waitConfig, 'offerMs', offerMs, 'max', maxPerCustomer);
  }

  /** Acknowledges persisted entries of the group and removes them from the stream (one round trip). */
  async ackClaimedOutbox(eventId: string, entryIds: string[]): Promise<void> {
    if (!entryIds.length) return;
    const key = eventKeys(eventId).outbox;
    const res = await this.redis.multi().xack(key, OUTBOX_GROUP, ...entryIds).xdel(key, ...entryIds).exec();
    for (const [err] of res ?? []) if (err) throw err;
  }
}

translateErrorsOf(HoldStore);
