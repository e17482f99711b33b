// A payment (Stripe's webhook or an integrator's confirm call) turns a hold into an order. Confirms
// are grouped (confirm-batcher.ts): each runs under its own savepoint inside one batch transaction
// whose conditional writes are the fence, the order numbers taken last for the whole batch.
import { randomUUID } from 'node:crypto';
import {
  ConfirmOutcomeUnknown, findHold, findOrderByHold, TransactionConflict, UniqueViolation, type ConfirmBatchItem, type ConfirmBatchResult, type HoldRow,
} from '@holdfast/db';
import type { ClaimHoldInput, ClaimResult } from '@holdfast/hold-store';
import type { DomainContext } from './context';
import { AppError, errors } from './errors';
import { endHoldInRedis } from './holds';
import { endQueuePass } from './waiting-room';
import { holdContents, rowFromRecord, type HoldItem } from './hold-view';
import { eventOfHoldId } from './ids';
import { orderFromRow, type Order } from './orders';
import { primeEvent } from './prime-event';

/** The payment that pays for the hold. */
export interface PaymentInput {
  /** 'stripe' for the webhook, 'service' for an integrator's (or admin's) confirm call. */
  provider: string;
  reference: string;
  /** The provider's event id: recorded once (payments.provider_event_id is unique). */
  providerEventId?: string;
  /** What was paid; defaults to the hold's total (an integrator confirms after capturing it). */
  amountCents?: number;
  currency?: string;
}

export interface ConfirmInput {
  holdId: string;
  payment: PaymentInput;
  /** Set when an admin confirms: the confirmation is written to the audit log as theirs. */
  auditActor?: string;
}

export interface ConfirmOptions {
  /**
   * Test seam: the year of the order number. Without it (always, from the API) the year is
   * PostgreSQL's, read when the batch takes its numbers (the order's createdAt year).
   */
  orderYear?: number;
}

export interface ConfirmResult {
  order: Order;
  /** false when the hold was confirmed before: the caller answers 200 with the same order. */
  created: boolean;
}

/** Attempts per confirm when PostgreSQL reports a serialization failure, deadlock or unique race. */
const MAX_ATTEMPTS = 6;
/** Times a confirm takes its claim again because the backlog outlasted it, before it answers 503. */
const MAX_RECLAIMS = 3;
/**
 * How long a confirm's claim keeps the hold's seats and tickets leased to it, on Redis's
 * clock, and how long before its end a batch may no longer commit on it (the longest a batch's
 * statement and COMMIT may take once sent): DomainSettings.confirmClaim, else these.
 */
export const DEFAULT_CONFIRM_CLAIM = { leaseMs: 60_000, marginMs: 2_500 };

type ClaimedHold = Pick<HoldRow, 'id' | 'eventId' | 'customerId' | 'items'>;

/** A confirm's claim on its hold's lease (claimHoldLease), taken before its transaction. */
export interface HoldClaim {
  hold: ClaimedHold;
  /** The hold as Redis's record has it (its row is written from it when the outbox has not yet); null when read from PostgreSQL. */
  record: ConfirmBatchItem['record'];
  /** This confirm's own claim token: its give-up frees nothing another confirm of the hold still claims. */
  token: string;
  /** Whether the hold's items are leased to this confirm in Redis; only then may its transaction sell them. */
  held: boolean;
  /** When (performance.now() ms) a batch may no longer commit on this claim: taken + lease - margin. */
  until: number;
  /** The claim script's input, to take the claim again with the same token (renew). */
  input: ClaimHoldInput;
}

export type ConfirmTxOutcome =
  | { kind: 'created'; order: Order; row: ClaimedHold }
  | { kind: 'existing'; order: Order; row: ClaimedHold }
  | { kind: 'refused'; row: ClaimedHold; error: AppError; mode: 'expired' | 'released' };

/**
 * Confirms a hold. Rules (the contract's "Confirming"):
 * - first the hold's lease is taken in Redis, on Redis's clock (claimHoldLease):
 *   whether a payment is in time is decided by the clock that hands seats to
 *   other buyers, and no seat goes to another buyer while this confirm can commit;
 * - then it joins the next confirm batch (ConfirmBatcher) under its own
 *   savepoint, answered after the batch's COMMIT; a full backlog refuses it (503 OVERLOADED);
 * - a hold becomes at most one order (hold row locked, orders.hold_id unique);
 *   a confirmed hold answers with its order (created: false);
 * - a released hold is refused (HOLD_NOT_ACTIVE); one whose lease could not be
 *   taken, or whose items were sold behind Redis's back (Redis lost its data),
 *   is refused with HOLD_EXPIRED and marked EXPIRED: the contract's two refusals;
 * - whatever Redis says, PostgreSQL's conditional writes decide (seats
 *   AVAILABLE → SOLD, sold + q <= capacity), or the savepoint is rolled back;
 * - order numbers are per year, gap-free, in commit order: taken last, once per batch.
 */
export async function confirmHold(ctx: DomainContext, input: ConfirmInput, options: ConfirmOptions = {}): Promise<ConfirmResult> {
  try {
    const result = await confirm(ctx, input, options);
    ctx.metrics.confirmOutcome(result.created ? 'created' : 'existing');
    return result;
  } catch (err) {
    ctx.metrics.confirmOutcome((err as { code?: string }).code ?? 'ERROR');
    throw err;
  }
}

async function confirm(ctx: DomainContext, input: ConfirmInput, options: ConfirmOptions): Promise<ConfirmResult> {
  const ticket = ctx.confirms.admit();
  let claim: HoldClaim | undefined;
  /** Set once the confirm's outcome is known: from then on finishConfirm ends the claim. */
  let settled = false;
  try {
    claim = await claimHoldLease(ctx, input.holdId);
    const { payment } = input;
    const item: ConfirmBatchItem = {
      holdId: input.holdId, year: options.orderYear ?? null, held: claim.held, claimUntil: claim.until,
      provider: payment.provider, providerEventId: payment.providerEventId ?? null, reference: payment.reference,
      amountCents: payment.amountCents ?? null, currency: payment.currency ?? null, auditActor: input.auditActor ?? null,
      record: claim.record,
    };
    const renew = async () => {
      const renewed = await renewClaim(ctx, claim!);
      claim = renewed;
      item.held = renewed.held;
      item.claimUntil = renewed.until;
    };
    for (let attempt = 1, reclaims = 0; ; attempt++) {
      let result: ConfirmBatchResult;
      try {
        result = await ctx.confirms.run(item, ticket, renew);
      } catch (err) {
        // A deadlock between batches (duplicate confirms of one hold on two API processes): try again.
        if (err instanceof TransactionConflict && attempt < MAX_ATTEMPTS) {
          await backoff(attempt);
          continue;
        }
        // Anything else (PostgreSQL unreachable, a timeout): the claim lapses with its lease.
        throw err;
      }
      if (result.kind === 'lapsed') {
        // The backlog outlasted the claim: nothing was written. Claim the lease again (the same
        // token): still this hold's, it is renewed; lapsed and taken by another buyer, the hold
        // is no longer held and the next batch answers it expired.
        if (++reclaims > MAX_RECLAIMS) throw errors.unavailable('PostgreSQL (confirm backlog)');
        await renew();
        attempt--;
        continue;
      }
      if (result.kind === 'unique' || result.kind === 'busy') {
        // A unique race (two processes inserting the same hold's row), or a row another transaction
        // kept locked past the lock timeout: retry; a duplicate finds the hold CONFIRMED next time.
        if (attempt < MAX_ATTEMPTS) {
          await backoff(attempt);
          continue;
        }
        if (result.kind === 'busy') throw new TransactionConflict(`hold ${input.holdId} stayed locked`);
        throw new UniqueViolation(`confirm of hold ${input.holdId}`);
      }
      const outcome = outcomeOf(result, claim);
      settled = true;
      return finishConfirm(ctx, claim, outcome);
    }
  } catch (err) {
    // Nothing committed as far as this confirm knows (a 503, a refusal by retries): its claim goes back now.
    // Not when PostgreSQL could not say whether its batch committed: its order may exist, the claim lapses.
    if (claim && !settled && !(err instanceof ConfirmOutcomeUnknown)) await giveBackClaim(ctx, claim);
    throw err;
  } finally {
    ctx.confirms.leave(ticket);
  }
}

function outcomeOf(result: ConfirmBatchResult, claim: HoldClaim): ConfirmTxOutcome {
  const row = claim.hold;
  switch (result.kind) {
    case 'created':
    case 'existing':
      return { kind: result.kind, order: orderFromRow(result.order!), row };
    case 'released':
      return { kind: 'refused', row, error: errors.holdNotActive(), mode: 'released' };
    case 'expired':
    case 'fence':
      return { kind: 'refused', row, error: errors.holdExpired(), mode: 'expired' };
    case 'limit':
      // PostgreSQL's fence on the customer's limit (maxTicketsPerCustomer): the hold is over.
      return {
        kind: 'refused', row, mode: 'expired',
        error: errors.limitExceeded(result.detail?.limit ?? 0, result.detail?.owned ?? 0),
      };
    case 'not_found':
      throw errors.holdNotFound();
    default:
      throw new Error(`confirm of hold ${row.id} ended as ${result.kind}`);
  }
}

/**
 * Takes the hold's lease for a confirm, before any PostgreSQL work (see
 * confirmHold). The hold is read and claimed in one Redis round trip
 * (readClaimHold); a hold Redis has no record of is read from PostgreSQL and
 * claimed then. Primes the event when Redis lost it. Throws HOLD_NOT_FOUND
 * when neither store knows the hold.
 */
export async function claimHoldLease(ctx: DomainContext, holdId: string): Promise<HoldClaim> {
  const eventId = eventOfHoldId(holdId);
  if (!eventId) throw errors.holdNotFound();
  // Lapsed items taken again count against the customer's limit, as a new hold's would.
  const event = await ctx.catalog.settings(eventId);
  if (!event) throw errors.holdNotFound();
  const { leaseMs, marginMs } = ctx.settings.confirmClaim ?? DEFAULT_CONFIRM_CLAIM;
  const token = randomUUID();
  const maxPerCustomer = event.maxTicketsPerCustomer;
  const started = performance.now();
  const read = await ctx.store.readClaimHold({ eventId, holdId, token, leaseMs, maxPerCustomer });
  if (read.kind === 'record') {
    const hold = rowFromRecord(read.record);
    const input = claimInput(hold, token, leaseMs, maxPerCustomer);
    if (hold.eventId !== eventId) {
      // A record under another event's keys is no hold of this id: whatever was claimed goes back.
      await ctx.store.releaseClaim(eventId, holdId, token).catch(() => undefined);
      throw errors.holdNotFound();
    }
    let claim = read.claim;
    if (claim.kind === 'not_ready') {
      await primeEvent(ctx, eventId);
      claim = await ctx.store.claimHold(input);
    }
    // The record's own JSON goes to the batch as it is (confirmBatch), not serialised again.
    const record = { ...hold, json: read.record.json };
    return { hold, record, token, held: claimHeld(claim), until: started + leaseMs - marginMs, input };
  }
  // Redis has no record with items (ended, lost, or persisted long ago): PostgreSQL has the hold.
  const hold = await findHold(ctx.db, holdId);
  if (!hold || hold.eventId !== eventId) throw errors.holdNotFound();
  const input = claimInput(hold, token, leaseMs, maxPerCustomer);
  const claimStarted = performance.now();
  const held = await takeClaim(ctx, input);
  return { hold, record: null, token, held, until: claimStarted + leaseMs - marginMs, input };
}

function claimInput(hold: ClaimedHold, token: string, leaseMs: number, maxPerCustomer: number): ClaimHoldInput {
  const { seatIds, ticketTypeId, quantity } = holdContents(hold.items as HoldItem[]);
  return { eventId: hold.eventId, holdId: hold.id, customerId: hold.customerId, token, leaseMs, seatIds, ticketTypeId, quantity, maxPerCustomer };
}

/** Whether a claim's answer leases the hold's items to the confirm; throws 503 when Redis is still not ready. */
function claimHeld(result: ClaimResult): boolean {
  if (result.kind === 'not_ready') throw errors.unavailable('Redis');
  return result.kind === 'live' || result.kind === 'retaken';
}

/** Takes (or renews, with the same token) the claim; whether the hold's items are this confirm's. */
async function takeClaim(ctx: DomainContext, input: ClaimHoldInput): Promise<boolean> {
  let result = await ctx.store.claimHold(input);
  if (result.kind === 'not_ready') {
    await primeEvent(ctx, input.eventId);
    result = await ctx.store.claimHold(input);
  }
  return claimHeld(result);
}

/** The same claim taken again for another lease (its deadline counted from now). */
async function renewClaim(ctx: DomainContext, claim: HoldClaim): Promise<HoldClaim> {
  const { marginMs } = ctx.settings.confirmClaim ?? DEFAULT_CONFIRM_CLAIM;
  const started = performance.now();
  const held = await takeClaim(ctx, claim.input);
  return { ...claim, held, until: started + claim.input.leaseMs - marginMs };
}

/**
 * After the transaction: an order's hold is ended in Redis as confirmed (its
 * seats read sold at once; on an existing order this heals Redis if a confirm
 * died between commit and here); a refused confirm gives up its own claim and
 * frees the hold's leases unless another confirm still claims them.
 */
export async function finishConfirm(ctx: DomainContext, claim: HoldClaim, outcome: ConfirmTxOutcome): Promise<ConfirmResult> {
  if (outcome.kind === 'refused') {
    await endHoldInRedis(ctx, outcome.row, outcome.mode, claim.token).catch((err: unknown) =>
      ctx.log.warn({ err, holdId: outcome.row.id }, 'refused confirm could not free the hold in Redis; its lease lapses by itself'),
    );
    throw outcome.error;
  }
  if (outcome.order.status === 'cancelled') {
    // An admin cancelled the order since: its items went back (cancel-order), maybe to another
    // buyer by now, so nothing is marked sold; what this claim took again goes back.
    if (claim.held) await freeCancelledOrdersHold(ctx, outcome.row, claim.token);
    return { order: outcome.order, created: false };
  }
  await endHoldInRedis(ctx, outcome.row, 'confirmed').catch((err: unknown) =>
    ctx.log.warn({ err, holdId: outcome.row.id }, 'order committed but Redis was not updated; reconciliation will repair it'),
  );
  // The buyer's queue pass (issue 29) ends with the order: the next place is admitted.
  await endQueuePass(ctx, outcome.row.eventId, outcome.row.customerId, outcome.row.id, 'confirmed');
  return { order: outcome.order, created: outcome.kind === 'created' };
}

/**
 * A confirm that did not commit (as far as it knows) gives its claim back, with
 * its own token: a release or expiry that met the claim was answered CLAIMED
 * and left to this confirm, so once the claim is gone, whatever PostgreSQL says
 * the hold has become (released, expired, or confirmed after all) is applied in
 * Redis; end-hold is idempotent and still holds off while another confirm
 * claims the hold (that one ends it). The claim goes first, then PostgreSQL is
 * read: an end committed after the read finds no claim of this confirm left.
 * A hold still ACTIVE keeps its leases for its expiry job. If Redis or
 * PostgreSQL cannot be reached now, the claim lapses by itself and
 * reconciliation removes the leases of an ended hold.
 */
export async function giveBackClaim(ctx: DomainContext, claim: HoldClaim): Promise<void> {
  if (!claim.held) return;
  const { hold } = claim;
  try {
    await ctx.store.releaseClaim(hold.eventId, hold.id, claim.token);
    const row = await findHold(ctx.db, hold.id);
    if (!row || row.status === 'ACTIVE') return;
    if (row.status === 'CONFIRMED' && (await findOrderByHold(ctx.db, row.id))?.status === 'cancelled') {
      await freeCancelledOrdersHold(ctx, row);
      return;
    }
    const mode = row.status === 'CONFIRMED' ? 'confirmed' : row.status === 'RELEASED' ? 'released' : 'expired';
    await endHoldInRedis(ctx, row, mode);
  } catch (err) {
    ctx.log.warn({ err, holdId: hold.id }, 'a confirm that did not commit could not give its claim back; it lapses by itself');
  }
}

/**
 * The hold of a cancelled order, met by a confirm that came after the cancel (a
 * second payment event, a retry): a claim taken once the order's cancelled mark
 * had lapsed in Redis took its free items again, and they go back as on a
 * release (to the waiting lists first). Its seats are never marked sold.
 */
async function freeCancelledOrdersHold(ctx: DomainContext, row: ClaimedHold, claimToken?: string): Promise<void> {
  await endHoldInRedis(ctx, row, 'released', claimToken).catch((err: unknown) =>
    ctx.log.warn({ err, holdId: row.id }, 'a cancelled order\'s hold could not be freed in Redis; its claim lapses by itself'),
  );
}

/** Bounded exponential backoff with full jitter: 0..10 ms, 0..20 ms, ... capped at 160 ms. */
function backoff(attempt: number): Promise<void> {
  const cap = Math.min(160, 10 * 2 ** (attempt - 1));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * cap));
}
