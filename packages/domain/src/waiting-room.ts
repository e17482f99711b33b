// The waiting room (issue 29): a buyer joins the event's queue and is admitted in turn,
// paced on Redis's clock; the pass admission gives lets them hold until it ends.
import { createHash } from 'node:crypto';
import { recordAudit, runTransaction, lockEvent, updateEventSettings, type EventRow, type WaitingRoom } from '@holdfast/db';
import type { QueueRoom, QueueStanding, QueueTick } from '@holdfast/hold-store';
import { leadingZeroBits } from '@holdfast/contracts';
import type { DomainContext } from './context';
import { errors } from './errors';
import { isUuid } from './ids';
import { assertOnSale, salesClosedError } from './sale-window';

/** The contract's queue object: where a buyer stands. */
export interface QueueView {
  state: QueueStanding['state'];
  position: number;
  etaSeconds: number;
  /** While waiting: places the room admitted so far, as the stream's `queue.admitted` counts them. */
  admitted?: number;
  pass?: string;
  passExpiresAt?: string;
}

/** The seller's view of the room. */
export interface QueueAdminView {
  waiting: number;
  admitted: number;
  active: number;
  admitPerMinute: number;
  maxActive: number;
  paused: boolean;
  /** The median wait of the latest places admitted (up to 101), seconds; null before any. */
  medianWaitSeconds: number | null;
}

type RoomEvent = EventRow & { waitingRoom: WaitingRoom };

async function roomEvent(ctx: DomainContext, eventId: string): Promise<RoomEvent> {
  if (!isUuid(eventId)) throw errors.eventNotFound();
  // From the process's catalog, as holds read it (settings at most a second old): a join or queue/me
  // costs no PostgreSQL round trip (`settings` read the event's row on every call until a hold loaded it).
  const event = (await ctx.catalog.get(eventId))?.event;
  if (!event) throw errors.eventNotFound();
  if (!event.waitingRoom) throw errors.queueNotFound();
  return event as RoomEvent;
}

export function queueRoom(event: RoomEvent): QueueRoom {
  return {
    eventId: event.id,
    admitPerMinute: event.waitingRoom.admitPerMinute,
    maxActive: event.waitingRoom.maxActive,
    passMs: event.waitingRoom.passSeconds * 1000,
    salesStartMs: event.salesStartAt?.getTime() ?? null,
  };
}

/**
 * A stream opened on the event: its room (if any) is ticked by this process from now on, while buyers
 * wait, so admission moves on even if the process that took their joins is gone.
 */
export async function watchQueue(ctx: DomainContext, eventId: string): Promise<void> {
  if ((await ctx.catalog.settings(eventId))?.waitingRoom) ctx.queueTicker.watch(eventId);
}

/** Reports what a queue call's lazy admission did to the metrics. */
function reportTick(ctx: DomainContext, eventId: string, tick: QueueTick): void {
  ctx.metrics.queueTick?.(eventId, tick);
}

/**
 * The estimated wait: the places ahead (less the part of one the bucket holds)
 * at the measured admission rate (what admission really keeps: maxActive and
 * pass ends may hold it below the set rate), or at the set rate before there is
 * a measure or while nothing is admitted (paused, before the opening).
 */
function etaSeconds(s: QueueStanding): number {
  if (s.state !== 'waiting') return 0;
  const perMinute = s.measuredPerMinute && s.measuredPerMinute > 0 && !s.paused ? s.measuredPerMinute : s.admitPerMinute;
  return Math.max(0, Math.ceil(((s.position - Math.min(s.tokens, 1)) * 60) / perMinute));
}

function view(s: QueueStanding): QueueView {
  const v: QueueView = { state: s.state, position: s.position, etaSeconds: etaSeconds(s) };
  if (s.state === 'waiting') v.admitted = s.admittedTotal;
  if (s.state === 'admitted' && s.pass && s.passExpiresAtMs !== null) {
    v.pass = s.pass;
    v.passExpiresAt = new Date(s.passExpiresAtMs).toISOString();
  }
  return v;
}

/** Whether `nonce` proves the work: SHA-256 over event id, customer id and nonce (UTF-8, concatenated) with `bits` leading zero bits. */
export function proofOfWorkHolds(eventId: string, customerId: string, nonce: string, bits: number): boolean {
  return leadingZeroBits(createHash('sha256').update(eventId + customerId + nonce, 'utf8').digest()) >= bits;
}

/**
 * Joins the customer to the event's waiting room (one place per customer; joining
 * again keeps it). Open from salesStartAt − preQueueSeconds, on Redis's clock.
 */
export async function joinQueue(
  ctx: DomainContext, input: { eventId: string; customerId: string; nonce?: string },
): Promise<QueueView> {
  const event = await roomEvent(ctx, input.eventId);
  assertOnSale(event);
  const bits = event.waitingRoom.challengeBits;
  let proof: string | null = null;
  if (bits > 0) {
    if (input.nonce === undefined) {
      throw errors.validation({ fields: [{ path: 'nonce', message: `this waiting room asks for a proof of work of ${bits} bits` }] });
    }
    if (!proofOfWorkHolds(event.id, input.customerId, input.nonce, bits)) {
      throw errors.validation({ fields: [{ path: 'nonce', message: `SHA-256 of event id, customer id and nonce has fewer than ${bits} leading zero bits` }] });
    }
    proof = input.nonce;
  }
  const start = event.salesStartAt?.getTime() ?? null;
  const joined = await ctx.store.queue.join({
    ...queueRoom(event), customerId: input.customerId,
    opensMs: start === null ? null : start - event.waitingRoom.preQueueSeconds * 1000,
    salesEndMs: event.salesEndAt?.getTime() ?? null, proof,
  });
  if (joined.kind === 'sales_closed') throw salesClosedError(event, joined.nowMs);
  if (joined.kind === 'proof_reused') {
    throw errors.validation({ fields: [{ path: 'nonce', message: 'this proof of work was used before; solve a new one' }] });
  }
  reportTick(ctx, event.id, joined);
  if (joined.waiting > 0) ctx.queueTicker.watch(event.id);
  return view(joined);
}

/** Where the customer stands in the event's waiting room. */
export async function queueStanding(ctx: DomainContext, eventId: string, customerId: string): Promise<QueueView> {
  const event = await roomEvent(ctx, eventId);
  const s = await ctx.store.queue.me({ ...queueRoom(event), customerId });
  reportTick(ctx, event.id, s);
  if (s.waiting > 0) ctx.queueTicker.watch(event.id);
  return view(s);
}

/**
 * The pass hold `holdId` was taken with ends (its order was confirmed, or the
 * customer released it): the next place is admitted. Nothing to do for events
 * without a room, for a hold taken without a pass (a waiting-list offer), or
 * when the customer's pass now is a later one. Never fails its caller: a pass
 * that cannot be ended now ends by its time.
 */
export async function endQueuePass(
  ctx: DomainContext, eventId: string, customerId: string, holdId: string, reason: 'confirmed' | 'released',
): Promise<void> {
  try {
    const event = await ctx.catalog.settings(eventId);
    if (!event?.waitingRoom) return;
    const tick = await ctx.store.queue.endPass({ ...queueRoom(event as RoomEvent), customerId, holdId });
    if (tick.ended) ctx.metrics.queuePassEnded?.(reason);
    reportTick(ctx, eventId, tick);
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message, eventId }, 'a queue pass could not be ended now; it ends by its time');
  }
}

/**
 * A hold of the customer now lasts until `untilMs` (extended): so does the pass it
 * was taken with, while that is their live pass (never a pass that ended, nor a
 * later one). A pass not moved now ends at the hold's old time.
 */
export async function holdQueuePassUntil(ctx: DomainContext, eventId: string, customerId: string, holdId: string, untilMs: number): Promise<void> {
  await ctx.store.queue.extendPass(eventId, customerId, untilMs, holdId).catch((err: unknown) =>
    ctx.log.warn({ err: (err as Error).message, eventId }, 'a queue pass could not be moved with its extended hold'));
}

function adminView(t: QueueTick & { medianWaitMs: number | null }): QueueAdminView {
  return {
    waiting: t.waiting, admitted: t.admittedTotal, active: t.active,
    admitPerMinute: t.admitPerMinute, maxActive: t.maxActive, paused: t.paused,
    medianWaitSeconds: t.medianWaitMs === null ? null : Math.round(t.medianWaitMs / 1000),
  };
}

/** The seller's view of the room. */
export async function queueAdminState(ctx: DomainContext, eventId: string): Promise<QueueAdminView> {
  const event = await roomEvent(ctx, eventId);
  const tick = await ctx.store.queue.admin(queueRoom(event));
  reportTick(ctx, event.id, tick);
  if (tick.waiting > 0) ctx.queueTicker.watch(event.id);
  return adminView(tick);
}

/**
 * The seller pauses or resumes the room, or changes its rate or its most active
 * passes: the event's settings change with it (rate and max), audited.
 */
export async function updateQueue(
  ctx: DomainContext, eventId: string, patch: { paused?: boolean; admitPerMinute?: number; maxActive?: number }, adminId: string,
): Promise<QueueAdminView> {
  if (!isUuid(eventId)) throw errors.eventNotFound();
  const event = await runTransaction(ctx.db, async (tx) => {
    const row = await lockEvent(tx, eventId);
    if (!row) throw errors.eventNotFound();
    if (!row.waitingRoom) throw errors.queueNotFound();
    const waitingRoom = {
      ...row.waitingRoom,
      admitPerMinute: patch.admitPerMinute ?? row.waitingRoom.admitPerMinute,
      maxActive: patch.maxActive ?? row.waitingRoom.maxActive,
    };
    const { id: _id, currency: _c, seatCount: _s, createdAt: _a, ticketTypes: _t, ...settings } = row;
    await updateEventSettings(tx, eventId, { ...settings, waitingRoom });
    await recordAudit(tx, { actor: `admin:${adminId}`, action: 'queue.updated', eventId, details: { ...patch } });
    return { ...row, waitingRoom } as RoomEvent;
  });
  ctx.catalog.invalidate(eventId);
  const tick = await ctx.store.queue.admin(queueRoom(event), patch);
  reportTick(ctx, eventId, tick);
  if (tick.waiting > 0) ctx.queueTicker.watch(eventId);
  return adminView(tick);
}

/** After the event's settings changed: the admin's overrides of rate and max give way to the new settings. */
export async function resetQueueOverrides(ctx: DomainContext, event: EventRow): Promise<void> {
  if (!event.waitingRoom) return;
  await ctx.store.queue.admin(queueRoom(event as RoomEvent), { resetOverrides: true });
}
