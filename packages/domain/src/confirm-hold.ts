// A payment (Stripe's webhook or an integrator's confirm call) turns a hold into an order: one
// READ COMMITTED transaction whose conditional writes are the fence, the order number taken last.
import { randomUUID } from 'node:crypto';
import {
  assignOrderNumber, findHold, findOrderByHold, insertOrder, insertPayment, recordAudit, runTransaction, sellSeats, sellTickets,
  TransactionConflict, UniqueViolation, updateHold, type HoldRow, type Tx,
} from '@holdfast/db';
import type { DomainContext } from './context';
import { AppError, errors } from './errors';
import { endHoldInRedis, lockHoldRow } from './holds';
import { holdContents, rowFromRecord, type HoldItem } from './hold-view';
import { eventOfHoldId } from './ids';
import { orderFromRow, rowFromItem, type Order } from './orders';
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
  /** The year of the order number (default: the current UTC year). A seam for the first order of a year. */
  orderYear?: number;
}

export interface ConfirmResult {
  order: Order;
  /** false when the hold was confirmed before: the caller answers 200 with the same order. */
  created: boolean;
}

/** Attempts per confirm when PostgreSQL reports a serialization failure, deadlock or unique race. */
const MAX_ATTEMPTS = 6;
/**
 * How long a confirm's claim keeps the hold's seats and tickets leased to it,
 * on Redis's clock: far longer than a confirm transaction may run (its
 * statements time out long before), so the lease never lapses under a
 * confirm that can still commit.
 */
const CLAIM_LEASE_MS = 60_000;

/** The fence refused: some seat or ticket of the hold is no longer there to sell. Rolls everything back. */
class FenceBreach extends Error {
  override name = 'FenceBreach';
  constructor(readonly row: HoldRow) {
    super('the hold\'s items are no longer available');
  }
}

/** A confirm's claim on its hold's lease (claimHoldLease), taken before its transaction. */
export interface HoldClaim {
  hold: Pick<HoldRow, 'id' | 'eventId' | 'customerId' | 'items'>;
  /** This confirm's own claim token: its give-up frees nothing another confirm of the hold still claims. */
  token: string;
  /** Whether the hold's items are leased to this confirm in Redis; only then may its transaction sell them. */
  held: boolean;
}

export type ConfirmTxOutcome =
  | { kind: 'created'; order: Order; row: HoldRow }
  | { kind: 'existing'; order: Order; row: HoldRow }
  | { kind: 'refused'; row: HoldRow; error: AppError; mode: 'expired' | 'released' };

/**
 * Confirms a hold. Rules (the contract's "Confirming"):
 * - the confirm first takes the hold's lease in Redis, on Redis's clock
 *   (claimHoldLease): extended while it runs, or taken again when it lapsed
 *   and nobody else holds or bought the items. So whether a payment is in time
 *   is decided by the same clock that hands seats to other buyers, and a seat
 *   is never given to another buyer while this confirm can still commit;
 * - a hold becomes at most one order: the hold row is locked FOR UPDATE and
 *   orders.hold_id is unique; a confirmed hold answers with its order (created: false);
 * - a released hold is never confirmed (HOLD_NOT_ACTIVE);
 * - a hold whose lease could not be taken is not confirmed (HOLD_EXPIRED) and
 *   is marked EXPIRED;
 * - whatever Redis says, the conditional writes in PostgreSQL decide: all of
 *   the hold's seats AVAILABLE → SOLD and sold + q <= capacity, or nothing.
 *   An ACTIVE hold whose items were sold behind Redis's back (Redis lost its
 *   data and a second buyer held and bought them) is refused with
 *   HOLD_EXPIRED too, and marked EXPIRED: its lease is gone with Redis's data
 *   and its items are gone, which is what HOLD_EXPIRED tells a client. The
 *   contract names only HOLD_EXPIRED and HOLD_NOT_ACTIVE as refusals of a
 *   confirm, so an integrator needs no new code for this rare case.
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
  const year = options.orderYear ?? new Date().getUTCFullYear();
  const claim = await claimHoldLease(ctx, input.holdId);
  for (let attempt = 1; ; attempt++) {
    let outcome: ConfirmTxOutcome;
    try {
      outcome = await runTransaction(ctx.db, (tx) => confirmInTransaction(ctx, tx, input, claim, year));
    } catch (err) {
      if (err instanceof FenceBreach) {
        await markExpired(ctx, err.row.id);
        return finishConfirm(ctx, claim, { kind: 'refused', row: err.row, error: errors.holdExpired(), mode: 'expired' });
      }
      // Concurrent confirms of one hold, or of holds sharing rows: retry; a
      // duplicate finds the hold CONFIRMED on its next attempt and answers with that order.
      if ((err instanceof TransactionConflict || err instanceof UniqueViolation) && attempt < MAX_ATTEMPTS) {
        await backoff(attempt);
        continue;
      }
      // Anything else (PostgreSQL unreachable, a timeout): the claim lapses with its lease.
      throw err;
    }
    return finishConfirm(ctx, claim, outcome);
  }
}

/**
 * Takes the hold's lease for a confirm, before any PostgreSQL work (see
 * confirmHold). Primes the event when Redis lost it. Throws HOLD_NOT_FOUND
 * when neither store knows the hold.
 */
export async function claimHoldLease(ctx: DomainContext, holdId: string): Promise<HoldClaim> {
  const eventId = eventOfHoldId(holdId);
  if (!eventId) throw errors.holdNotFound();
  const record = await ctx.store.getHoldRecord(eventId, holdId);
  const hold = record ? rowFromRecord(record) : await findHold(ctx.db, holdId);
  if (!hold || hold.eventId !== eventId) throw errors.holdNotFound();
  const { seatIds, ticketTypeId, quantity } = holdContents(hold.items as HoldItem[]);
  const input = {
    eventId, holdId, customerId: hold.customerId, token: randomUUID(), leaseMs: CLAIM_LEASE_MS,
    seatIds, ticketTypeId, quantity,
  };
  let result = await ctx.store.claimHold(input);
  if (result.kind === 'not_ready') {
    await primeEvent(ctx, eventId);
    result = await ctx.store.claimHold(input);
  }
  if (result.kind === 'not_ready') throw errors.unavailable('Redis');
  return { hold, token: input.token, held: result.kind === 'live' || result.kind === 'retaken' };
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
  await endHoldInRedis(ctx, outcome.row, 'confirmed').catch((err: unknown) =>
    ctx.log.warn({ err, holdId: outcome.row.id }, 'order committed but Redis was not updated; reconciliation will repair it'),
  );
  return { order: outcome.order, created: outcome.kind === 'created' };
}

/**
 * The confirm's work inside a transaction (the caller's): lock the hold's row,
 * answer a confirmed hold with its order, refuse a released one or one whose
 * lease this confirm does not hold, else run the fence and write the order.
 * Throws FenceBreach (roll back) when the fence refuses.
 */
export async function confirmInTransaction(
  ctx: DomainContext, tx: Tx, input: ConfirmInput, claim: HoldClaim, year: number,
): Promise<ConfirmTxOutcome> {
  const row = await lockHoldRow(ctx, tx, input.holdId);
  if (!row) throw errors.holdNotFound();
  if (row.status === 'CONFIRMED') {
    const existing = await findOrderByHold(tx, row.id);
    if (!existing) throw new Error(`hold ${row.id} is CONFIRMED without an order`);
    return { kind: 'existing', order: orderFromRow(existing), row };
  }
  if (row.status === 'RELEASED') return { kind: 'refused', row, error: errors.holdNotActive(), mode: 'released' };
  if (!claim.held) {
    // Its lease lapsed and its items are someone else's now (Redis's clock decided): expired.
    if (row.status === 'ACTIVE') await updateHold(tx, row.id, { status: 'EXPIRED', endedAt: new Date() });
    return { kind: 'refused', row, error: errors.holdExpired(), mode: 'expired' };
  }

  const items = row.items as HoldItem[];
  const { seatIds, ticketTypeId, quantity } = holdContents(items);
  const orderId = randomUUID();
  // The fence. Seat ids sorted, so two transactions lock shared rows in one order.
  if (seatIds.length) {
    const sold = await sellSeats(tx, row.eventId, orderId, [...seatIds].sort());
    if (sold !== seatIds.length) throw new FenceBreach(row);
  }
  if (ticketTypeId && (await sellTickets(tx, row.eventId, ticketTypeId, quantity)) !== 1) throw new FenceBreach(row);

  const createdAt = new Date();
  const order = {
    id: orderId, eventId: row.eventId, customerId: row.customerId, holdId: row.id,
    totalCents: row.totalCents, currency: row.currency, paymentReference: input.payment.reference,
    createdAt, items: items.map(rowFromItem),
  };
  await insertOrder(tx, order);
  await insertPayment(tx, {
    provider: input.payment.provider,
    providerEventId: input.payment.providerEventId ?? null,
    reference: input.payment.reference,
    holdId: row.id,
    amountCents: input.payment.amountCents ?? row.totalCents,
    currency: (input.payment.currency ?? row.currency).toUpperCase(),
    status: 'APPLIED',
    orderId,
    eventId: row.eventId,
  });
  await updateHold(tx, row.id, { status: 'CONFIRMED', orderId, endedAt: createdAt });
  if (input.auditActor) {
    await recordAudit(tx, {
      actor: input.auditActor, action: 'order.confirmed', eventId: row.eventId, holdId: row.id, orderId,
      reason: `payment reference ${input.payment.reference}`,
    });
  }
  /*
   * The order number, last. The upsert on order_sequences locks the year's one
   * row until COMMIT, so every confirm of every event in that year queues on
   * it: confirms are serialized for (this statement + the COMMIT round trip,
   * with its WAL flush), which caps throughput near 1 / that duration however
   * many connections there are; taking the number last keeps the fence, the
   * inserts and any retries out of that critical section. Measured with
   * scripts/bench-confirm.ts (3 runs, 2 cores shared with other work, load
   * 4-10): 50 concurrent confirms through this use-case ran 52-130/s with on
   * average ~10 of the pool's 20 connections waiting on a row lock; pgbench
   * running this transaction shape in the same runs did 250-510 tps with the
   * year row and 540-710 tps with a sequence instead (1.4-2.2x).
   * A PostgreSQL sequence (nextval) takes no row lock and is never rolled
   * back, so confirms would not queue on it: it buys throughput that grows
   * with connections, at the price of gaps (a rolled-back confirm burns its
   * number) and a per-year reset (DDL, or one global sequence behind the
   * year prefix). Gap-free per-year numbers were chosen; revisit if confirms
   * ever need more than a few hundred per second.
   */
  const number = await assignOrderNumber(tx, orderId, year);
  return {
    kind: 'created',
    row,
    order: orderFromRow({ ...order, number, status: 'confirmed' }),
  };
}

async function markExpired(ctx: DomainContext, holdId: string): Promise<void> {
  await runTransaction(ctx.db, async (tx) => {
    const row = await lockHoldRow(ctx, tx, holdId);
    if (row?.status === 'ACTIVE') await updateHold(tx, holdId, { status: 'EXPIRED', endedAt: new Date() });
  });
}

/** Bounded exponential backoff with full jitter: 0..10 ms, 0..20 ms, ... capped at 160 ms. */
function backoff(attempt: number): Promise<void> {
  const cap = Math.min(160, 10 * 2 ** (attempt - 1));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * cap));
}
