// A buyer holds seats (by id or best available in a tier) or general-admission
// tickets: one Redis script takes all or nothing, and PostgreSQL hears of it later.
import { queuePassEvent, RATE_LIMIT_WINDOW_MS, type BestAttempt, type HoldAttempt, type HoldRequestBase } from '@holdfast/hold-store';
import { DEFAULT_HOLD_OUTBOX_MAX_PENDING, type DomainContext } from './context';
import type { Catalog } from './event-catalog';
import { errors, type AppError } from './errors';
import { holdIdOf, isUuid, newHoldId } from './ids';
import { isoOfMs } from './iso-time';
import type { Hold, HoldItem, HoldRecordJson } from './hold-view';
import { findAnyHold } from './holds';
import { primeEvent } from './prime-event';
import { syncSeatIndex } from './seat-index';
import { assertOnSale, salesClosedError } from './sale-window';

export type HoldSelector =
  | { kind: 'seats'; seatIds: string[] }
  | { kind: 'best'; tier: string; quantity: number }
  | { kind: 'tickets'; ticketTypeId: string; quantity: number };

/**
 * The claim of the request's Idempotency-Key (the API's middleware holds it).
 * Its seed names the hold id every request holding the claim takes, so a retry
 * that took over the claim of a request that never answered (its process died,
 * or its answer could not be stored) finds that request's hold.
 */
export interface KeyClaim {
  /** 24 hex digits, fixed for the claim's life: the hold id's last part. */
  seed: string;
  /** An earlier request held the claim and its lease lapsed without an answer. */
  takenOver: boolean;
  /** Gives the claim a new seed, or null when the claim is no longer this request's. */
  reseed(): Promise<string | null>;
}

export interface CreateHoldInput {
  eventId: string;
  customerId: string;
  selector: HoldSelector;
  /** The Holdfast-Queue-Pass header: needed while the event has a waiting room (issue 29). */
  queuePass?: string;
  /** Set when the request carries an Idempotency-Key. */
  keyClaim?: KeyClaim;
}

/** What a buyer refused because PostgreSQL is behind is told to wait. */
const HOLD_BACKLOG_RETRY_AFTER_SECONDS = 5;

export async function createHold(ctx: DomainContext, input: CreateHoldInput): Promise<Hold> {
  try {
    const hold = await takeHold(ctx, input);
    ctx.metrics.holdOutcome('created');
    return hold;
  } catch (err) {
    ctx.metrics.holdOutcome((err as { code?: string }).code ?? 'ERROR');
    throw err;
  }
}

/** Refusals decided before any hold script ran; the scripts count every other request themselves. */
const REFUSED_BEFORE_SCRIPT = new Set(['VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE', 'SEAT_NOT_FOUND', 'TICKET_TYPE_NOT_FOUND']);

/**
 * A hold request refused before its script ran (a body that is not valid, an
 * unknown seat, ticket type or tier) still counts against the customer's rate
 * limit, so probing ids is slowed down like holding is. Answers RATE_LIMITED
 * when this request is over the limit, else null: the refusal stands as it is.
 * Requests naming no known event are not counted (there is no event to count
 * them in), and a counter that cannot be reached leaves the refusal as it is.
 */
export async function countRefusedHoldRequest(
  ctx: DomainContext,
  input: { eventId: string; customerId: string; code: string },
): Promise<AppError | null> {
  const { eventId, customerId, code } = input;
  if (!REFUSED_BEFORE_SCRIPT.has(code) || !isUuid(eventId)) return null;
  try {
    if (!(await ctx.catalog.get(eventId))) return null;
    const over = await ctx.store.countHoldRequest({
      eventId, customerId, rateLimit: ctx.settings.holdRateLimitPerMinute, rateWindowMs: RATE_LIMIT_WINDOW_MS,
    });
    if (!over) return null;
    ctx.metrics.holdOutcome('RATE_LIMITED');
    return errors.rateLimited(Math.max(1, Math.ceil(over.retryAfterMs / 1000)));
  } catch (err) {
    ctx.log.debug({ err: (err as Error).message }, 'a refused hold request could not be counted');
    return null;
  }
}

async function takeHold(ctx: DomainContext, input: CreateHoldInput): Promise<Hold> {
  const { eventId, customerId, selector } = input;
  if (!isUuid(eventId)) throw errors.eventNotFound();
  const catalog = await ctx.catalog.get(eventId);
  if (!catalog) throw errors.eventNotFound();
  const { event } = catalog;
  // A keyed request takes the hold id its key's claim names (after an earlier request's, perhaps its hold).
  const claim = input.keyClaim?.takenOver ? await earlierRequestsHold(ctx, input.keyClaim, eventId, customerId) : input.keyClaim;
  if (claim && 'id' in claim) return claim;
  const holdId = claim ? holdIdOf(eventId, claim.seed) : newHoldId(eventId);
  // Draft or closed refused here; the window's bounds by the script, on Redis's clock.
  assertOnSale(event);
  const queuePass = event.waitingRoom ? checkedQueuePass(eventId, input.queuePass) : '';
  const base: HoldRequestBase = {
    eventId, holdId, customerId,
    ttlMs: event.holdTtlSeconds * 1000,
    maxPerCustomer: event.maxTicketsPerCustomer,
    rateLimit: ctx.settings.holdRateLimitPerMinute,
    rateWindowMs: RATE_LIMIT_WINDOW_MS,
    outboxMaxPending: ctx.settings.holdOutboxMaxPending ?? DEFAULT_HOLD_OUTBOX_MAX_PENDING,
    salesStartMs: event.salesStartAt?.getTime() ?? null,
    salesEndMs: event.salesEndAt?.getTime() ?? null,
    queuePass,
  };
  let result: HoldAttempt;
  let items: HoldItem[];
  let totalCents = 0;
  // Each script runs again once when Redis does not know the event (primed in between).
  if (selector.kind === 'tickets') {
    const tt = catalog.ticketTypeById.get(selector.ticketTypeId);
    if (!tt) throw errors.ticketTypeNotFound();
    items = [{ ticketTypeId: tt.id, name: tt.name, priceCents: tt.priceCents, quantity: selector.quantity }];
    totalCents = holdTotalCents(items);
    const req = withFields(base, { recordJson: recordJsonOf(eventId, customerId, items, event.currency, totalCents), ticketTypeId: tt.id, quantity: selector.quantity });
    result = await ctx.store.holdTickets(req);
    if (result.kind === 'not_ready') result = await primedThen(ctx, eventId, () => ctx.store.holdTickets(req));
  } else if (selector.kind === 'seats') {
    const { seatIds } = selector;
    for (const id of seatIds) if (!catalog.seatById.has(id)) throw errors.seatNotFound(seatIds.filter((s) => !catalog.seatById.has(s)));
    items = seatItems(catalog, seatIds);
    totalCents = holdTotalCents(items);
    const req = withFields(base, { candidates: [{ seatIds, recordJson: recordJsonOf(eventId, customerId, items, event.currency, totalCents) }] });
    result = await ctx.store.holdSeats(req);
    if (result.kind === 'not_ready') result = await primedThen(ctx, eventId, () => ctx.store.holdSeats(req));
  } else {
    ({ result, items } = await holdBest(ctx, catalog, base, selector));
    if (result.kind === 'ok') totalCents = holdTotalCents(items);
  }

  switch (result.kind) {
    case 'ok':
      break;
    case 'rate_limited':
      throw errors.rateLimited(Math.max(1, Math.ceil(result.retryAfterMs / 1000)));
    case 'limit_exceeded':
      throw errors.limitExceeded(event.maxTicketsPerCustomer, result.inUse);
    case 'unavailable':
      ctx.persister.notify(eventId); // the script may have served waiting lists (lapsed leases) first
      throw errors.seatsUnavailable(result.seatIds);
    case 'sold_out':
      ctx.persister.notify(eventId);
      throw errors.soldOut(Math.max(0, result.available));
    case 'not_ready':
      throw errors.unavailable('Redis');
    case 'sales_closed':
      throw salesClosedError(event, result.nowMs);
    case 'queue_pass':
      throw errors.queuePassRequired(result.reason);
    case 'outbox_full':
      ctx.log.warn({ eventId, pending: result.pending }, 'hold refused: the event\'s outbox is full (PostgreSQL is behind)');
      ctx.persister.notify(eventId);
      throw errors.holdBacklogFull(HOLD_BACKLOG_RETRY_AFTER_SECONDS);
  }
  ctx.persister.notify(eventId);
  return {
    id: holdId, eventId, customerId, status: 'active',
    createdAt: isoOfMs(result.nowMs),
    expiresAt: isoOfMs(result.nowMs + base.ttlMs),
    items, totalCents, currency: event.currency, orderId: null, releasedBy: null, extensions: 0,
  };
}

/**
 * A request that took over its key's claim: the request before it never
 * answered, so the hold the claim's seed names may exist. A live or bought
 * hold is the answer, as it is now (nothing is held again). None: this
 * request takes that hold id (should the earlier request's script still run,
 * it finds this hold and takes nothing: hold-store's includes/replayed-hold).
 * One that ended otherwise (given back after a 503, released, expired): the
 * key's request holds afresh, under a new seed.
 */
async function earlierRequestsHold(ctx: DomainContext, claim: KeyClaim, eventId: string, customerId: string): Promise<Hold | { seed: string }> {
  const holdId = holdIdOf(eventId, claim.seed);
  const hold = await findAnyHold(ctx, holdId);
  // Live is Redis's word: a hold given back is ended there while its row may still read active.
  const inRedis = await ctx.store.holdRecordStatus(eventId, holdId);
  if (hold?.customerId === customerId && (hold.status === 'confirmed' || (hold.status === 'active' && inRedis === 'active'))) {
    ctx.metrics.holdKeyTakeover?.('answered');
    return hold;
  }
  // No hold in either store, not even the tombstone a give-back leaves before its hold script ran.
  if (!hold && inRedis === null) {
    ctx.metrics.holdKeyTakeover?.('took_its_id');
    return claim;
  }
  const seed = await claim.reseed();
  if (!seed) throw errors.idempotencyInProgress();
  ctx.metrics.holdKeyTakeover?.('afresh');
  return { seed };
}

/** The hold's record as the script stores it (HoldRecordJson, its fields in this order). */
function recordJsonOf(eventId: string, customerId: string, items: HoldItem[], currency: string, totalCents: number): string {
  const record: HoldRecordJson = { eventId, customerId, items, currency, totalCents };
  return JSON.stringify(record);
}

/**
 * `base` with `more` added: the hold script's request. Assigned onto `base`
 * (made for this request alone) rather than spread into a new object: V8 took
 * `{ ...base, candidates }` on a slow path, about ten times the cost of
 * building the object itself (measured in isolation; takeHold was the largest
 * self-time item of the hold use-case).
 */
function withFields<M extends object>(base: HoldRequestBase, more: M): HoldRequestBase & M {
  return Object.assign(base, more);
}

/** Primes the event in Redis (it did not know it), then runs the script again. */
async function primedThen(ctx: DomainContext, eventId: string, run: () => Promise<HoldAttempt>): Promise<HoldAttempt> {
  await primeEvent(ctx, eventId);
  return run();
}

/**
 * The pass a hold of an event with a waiting room carries, as far as it can be
 * judged without Redis (there, inside the hold script: forged, another
 * customer's, ended): none, or not of this event, is refused here.
 */
function checkedQueuePass(eventId: string, pass: string | undefined): string {
  if (!pass) throw errors.queuePassRequired('missing');
  const of = queuePassEvent(pass);
  if (of === null) throw errors.queuePassRequired('forged');
  if (of !== eventId) throw errors.queuePassRequired('other_event');
  return pass;
}

/**
 * A hold's total in cents. Money is stored as bigint and shown as a JSON
 * number, so a total must be an integer JavaScript holds exactly: anything past
 * Number.MAX_SAFE_INTEGER is refused here, before Redis or PostgreSQL see it.
 */
export function holdTotalCents(items: Pick<HoldItem, 'priceCents' | 'quantity'>[]): number {
  const total = items.reduce((t, i) => t + i.priceCents * i.quantity, 0);
  if (!Number.isSafeInteger(total) || total < 0) {
    throw errors.validation({
      fields: [{ path: 'quantity', message: `the hold's total (${total} cents) is larger than an amount can be (${Number.MAX_SAFE_INTEGER} cents)` }],
    });
  }
  return total;
}

function seatItems(catalog: Catalog, seatIds: string[]): HoldItem[] {
  const items: HoldItem[] = [];
  for (const id of seatIds) {
    const s = catalog.seatById.get(id)!;
    items.push({ seatId: s.id, label: s.label, tier: s.tier, priceCents: s.priceCents, quantity: 1 });
  }
  return items;
}

/**
 * Best available: one script (hold-best-12.lua) picks the best free selection
 * in the tier at that instant and holds it, or answers SOLD_OUT. No retry loop
 * on contention: a second call comes only after Redis had to be primed or its
 * seat index built, or when more leases had lapsed than one call gives back.
 */
async function holdBest(
  ctx: DomainContext,
  catalog: Catalog,
  base: HoldRequestBase,
  selector: { tier: string; quantity: number },
): Promise<{ result: HoldAttempt; items: HoldItem[] }> {
  const tierSeats = catalog.tiers.get(selector.tier);
  if (!tierSeats) {
    throw errors.validation({ fields: [{ path: 'tier', message: `this event has no seats in tier "${selector.tier}"` }] });
  }
  // Whatever the script picks, its total is at most that of the tier's dearest seats: refused here when too large.
  holdTotalCents(seatItems(catalog, tierSeats.slice(-selector.quantity).map((s) => s.id)));
  const req = withFields(base, { tier: selector.tier, quantity: selector.quantity, currency: catalog.event.currency });
  let best: BestAttempt | null = null;
  const run = async (): Promise<HoldAttempt> => {
    best = await ctx.store.holdBest(req);
    if (best.kind === 'not_indexed') {
      await syncSeatIndex(ctx, base.eventId);
      best = await ctx.store.holdBest(req);
    }
    // More leases had lapsed than one call gives back (thousands at once in a flash sale):
    // each call gives back 2,048 more, and the request was counted once already.
    while (best.kind === 'again') best = await ctx.store.holdBest({ ...req, rateLimit: 0 });
    // Still no index (Redis lost its data again meanwhile): answered as Redis not ready.
    return best.kind === 'not_indexed' ? { kind: 'not_ready' } : best;
  };
  let result = await run();
  if (result.kind === 'not_ready') result = await primedThen(ctx, base.eventId, run);
  const done = best as BestAttempt | null;
  if (result.kind !== 'ok' || done?.kind !== 'ok') return { result, items: [] };
  return { result, items: seatItems(catalog, done.seatIds) };
}
