// Reconciliation compares Redis (the leases) with PostgreSQL (the truth) per event
// and repairs the drift with compare-and-set writes; every repair is logged and reported.
import {
  customerPurchases, eventsWithLiveHolds, existingEventIds, findEvent, findHold, findLiveHolds, holdStatuses, lockHold, lockTicketType, readSaleState, recordAudit,
  runTransaction, updateHold, type HoldRow,
} from '@holdfast/db';
import { repairKind, type reconcileReportObject, type z } from '@holdfast/contracts';
import type { EventKeyScan, ReconcileStore, TicketCounters } from '@holdfast/hold-store';
import type { DomainContext } from './context';
import { restoreWaitlist } from './waitlist-line';
import { holdContents, holdFromRow, type HoldItem } from './hold-view';
import { endHoldInRedis } from './holds';
import { primeEvent } from './prime-event';
import { syncSeatIndex } from './seat-index';
import { recordWebhookEvent } from './webhook-events';

/** What reconciliation can repair, each kind said in the contract (`repairKind`). */
export const REPAIR_KINDS = repairKind.options;
export type RepairKind = z.output<typeof repairKind>;
export type ReconcileReport = z.output<typeof reconcileReportObject>;
export type RepairEntry = ReconcileReport['entries'][number];

export interface ReconcileOptions {
  onRepair?: (entry: RepairEntry) => void;
}

const MAX_ENTRIES = 200;

/**
 * One reconciliation run over every event Redis knows or that has live holds in
 * PostgreSQL. The report is stored for admins (last run only).
 */
export async function reconcile(ctx: DomainContext, rs: ReconcileStore, opts: ReconcileOptions = {}): Promise<ReconcileReport> {
  const started = Date.now();
  const report: ReconcileReport = {
    startedAt: new Date(started).toISOString(), finishedAt: '', durationMs: 0, events: 0,
    repairs: Object.fromEntries(REPAIR_KINDS.map((k) => [k, 0])) as Record<RepairKind, number>,
    entries: [], errors: [],
  };
  const repair = (kind: RepairKind, eventId: string, detail: string, count = 1) => {
    report.repairs[kind] += count;
    const entry: RepairEntry = count === 1 ? { kind, eventId, detail } : { kind, eventId, detail, count };
    if (report.entries.length < MAX_ENTRIES) report.entries.push(entry);
    ctx.log.warn({ repair: kind, eventId, detail }, 'reconciliation repaired drift');
    opts.onRepair?.(entry);
  };

  const scan = await rs.scanEvents();
  const live = await eventsWithLiveHolds(ctx.db, new Date());
  const candidates = [...new Set([...scan.primed, ...scan.keys.keys(), ...live])];
  const existing = await existingEventIds(ctx.db, candidates);
  for (const eventId of candidates) {
    if (!existing.has(eventId)) continue;
    report.events++;
    try {
      await reconcileEvent(ctx, rs, eventId, scan.keys.get(eventId), repair);
    } catch (err) {
      report.errors.push({ eventId, message: err instanceof Error ? err.message : String(err) });
      ctx.log.error({ eventId, err: err instanceof Error ? err.message : String(err) }, 'reconciliation of an event failed');
    }
  }
  const finished = Date.now();
  report.finishedAt = new Date(finished).toISOString();
  report.durationMs = finished - started;
  await rs.saveReport(JSON.stringify(report));
  ctx.log.info({ durationMs: report.durationMs, events: report.events, repairs: report.repairs }, 'reconciliation finished');
  return report;
}

export async function lastReconcileReport(rs: ReconcileStore): Promise<ReconcileReport | null> {
  const json = await rs.lastReport();
  return json ? (JSON.parse(json) as ReconcileReport) : null;
}

type Repair = (kind: RepairKind, eventId: string, detail: string, count?: number) => void;

async function reconcileEvent(
  ctx: DomainContext, rs: ReconcileStore, eventId: string, keys: EventKeyScan | undefined, repair: Repair,
): Promise<void> {
  const now = new Date();
  const liveHolds = await findLiveHolds(ctx.db, eventId, now);
  // Lost leases need the event's sale state in Redis before they can be taken again.
  if (liveHolds.length && !(await ctx.store.isPrimed(eventId))) await primeEvent(ctx, eventId);
  await restoreLostHolds(ctx, rs, eventId, liveHolds, repair);

  if (await ctx.store.isPrimed(eventId)) {
    await reconcileSold(ctx, rs, eventId, repair);
    await reconcileTickets(ctx, rs, eventId, repair);
    await reconcileBought(ctx, rs, eventId, repair);
    await reconcileSeatIndex(ctx, eventId, repair);
    // Waiting entries PostgreSQL has and Redis's lines lack (lost with Redis's data): put back, in join order.
    const restored = await restoreWaitlist(ctx, eventId);
    if (restored) repair('waitlist_restored', eventId, `${restored} waiting-list entr${restored === 1 ? 'y' : 'ies'} put back in line`, restored);
    // The lines' copy of the offer time and limit (an admin's change that did not reach Redis).
    const settings = await ctx.catalog.settings(eventId);
    if (settings) await ctx.store.setWaitlistConfig(eventId, settings.waitlistOfferSeconds * 1000, settings.maxTicketsPerCustomer);
  }
  if (keys) {
    await reconcileTtls(ctx, rs, keys, repair);
    await reconcileStaleLeases(ctx, rs, eventId, keys.seatIds, repair);
  }
}

/**
 * Leases of holds PostgreSQL has ended (released or expired while Redis was
 * unreachable: the row moved on, the compare-and-delete never ran). A late
 * payment claims an expired hold's seats before confirming it; the removal is
 * compare-and-set and refused while a confirm claims the hold (fix-seat-key).
 */
async function reconcileStaleLeases(
  ctx: DomainContext, rs: ReconcileStore, eventId: string, leasedSeatIds: string[], repair: Repair,
) {
  const leases = await rs.seatLeases(eventId, leasedSeatIds);
  const owned = [...leases].filter(([, l]) => l.owner !== null) as [string, { owner: string; ttlMs: number }][];
  const ended = (s: string | undefined) => s === 'RELEASED' || s === 'EXPIRED';
  const statuses = await holdStatuses(ctx.db, [...new Set(owned.map(([, l]) => l.owner))]);
  for (const [seatId, lease] of owned) {
    if (!ended(statuses.get(lease.owner))) continue;
    if (await rs.fixSeatKey(eventId, seatId, lease.owner, 0)) {
      repair('stale_lease', eventId, `lease of ${statuses.get(lease.owner)!.toLowerCase()} hold ${lease.owner} on seat ${seatId} removed`);
    }
  }
}

/**
 * A hold ACTIVE in PostgreSQL whose leases are gone from Redis.
 * When Redis ended it on its own (its record is an ended hold's tombstone: the
 * API gave the hold back because its buyer was answered 503, its script having
 * got no answer in time or too few replicas having it), PostgreSQL ends it too
 * (EXPIRED, audited as hold.given_back): nobody was told of it, so nothing is
 * taken again. Otherwise Redis lost data.
 * Decision: restore it for its remaining time when every item is still free
 * and its customer's limit has room for it (it counts against them again), so
 * a buyer mid-payment keeps the seats they were promised; when someone else
 * has taken an item meanwhile, or the customer holds or bought up to the limit
 * since, end the hold now (EXPIRED, audited), because two buyers must not
 * believe they hold one seat. Either way the database fence at confirm keeps
 * every sale single. The retake runs while the hold's row is locked: a release
 * or expiry commits before it (the row reads ended: nothing is taken) or after
 * it (its end-hold frees what was taken), never in between.
 */
async function restoreLostHolds(ctx: DomainContext, rs: ReconcileStore, eventId: string, holds: HoldRow[], repair: Repair) {
  const ticketHolds: { row: HoldRow; ticketTypeId: string }[] = [];
  const seatIds: string[] = [];
  for (const row of holds) {
    const c = holdContents(row.items as HoldItem[]);
    if (c.ticketTypeId) ticketHolds.push({ row, ticketTypeId: c.ticketTypeId });
    seatIds.push(...c.seatIds);
  }
  const leases = await rs.seatLeases(eventId, seatIds);
  const ticketOk = await rs.ticketHoldEntries(eventId, ticketHolds.map((t) => ({ holdId: t.row.id, ticketTypeId: t.ticketTypeId })));
  const ticketOkById = new Map(ticketHolds.map((t, i) => [t.row.id, ticketOk[i]!]));
  const lost = holds.filter((row) => {
    const c = holdContents(row.items as HoldItem[]);
    const seatsLost = c.seatIds.some((id) => leases.get(id)?.owner !== row.id);
    const ticketsLost = c.ticketTypeId !== null && !ticketOkById.get(row.id);
    return seatsLost || ticketsLost;
  });
  const statuses = await rs.holdStatuses(eventId, lost.map((row) => row.id));
  let maxPerCustomer: number | undefined;
  for (const row of lost) {
    const c = holdContents(row.items as HoldItem[]);
    const status = statuses.get(row.id);
    if (status === 'released' || status === 'expired') {
      const given = await expireLostHold(ctx, row, 'hold.given_back',
        'Redis gave this hold back: its buyer was answered 503 (its hold script got no answer in time, or too few replicas had it)');
      if (given) repair('hold_ended', eventId, `hold ${row.id} ended: Redis gave it back (its buyer was answered 503)`);
      continue;
    }
    maxPerCustomer ??= (await findEvent(ctx.db, eventId))?.maxTicketsPerCustomer ?? 0;
    const limit = maxPerCustomer;
    // Re-read under the row's lock: a confirm or release that just ended the hold explains the missing keys.
    const taken = await runTransaction(ctx.db, async (tx) => {
      const fresh = await lockHold(tx, row.id);
      const remainingMs = fresh ? fresh.expiresAt.getTime() - Date.now() : 0;
      if (!fresh || fresh.status !== 'ACTIVE' || remainingMs <= 0) return null;
      const r = await ctx.store.retakeHold({
        eventId, holdId: row.id, customerId: row.customerId, leaseMs: remainingMs, maxPerCustomer: limit,
        seatIds: c.seatIds, ticketTypeId: c.ticketTypeId, quantity: c.ticketTypeId ? c.quantity : 0,
      });
      return { r, remainingMs };
    });
    if (!taken) continue;
    const { r, remainingMs } = taken;
    if (r.kind === 'ok') {
      repair('hold_restored', eventId, `hold ${row.id} taken again for ${Math.round(remainingMs / 1000)} s`);
      continue;
    }
    if (r.kind === 'not_ready') continue; // Redis lost the event again mid-run: the next run retries.
    const why = r.kind === 'limit_exceeded'
      ? `its customer has held or bought up to the event's limit since (${r.kind})`
      : `its items were taken by others (${r.kind})`;
    const ended = await expireLostHold(ctx, row, 'hold.ended_lost', `Redis lost this hold's leases and ${why}`);
    if (ended) {
      await endHoldInRedis(ctx, ended, 'expired');
      repair('hold_ended', eventId, `hold ${row.id} ended: its leases were lost and ${why}`);
    }
  }
}

/**
 * Ends in PostgreSQL a hold whose leases Redis no longer has, while it is still
 * ACTIVE: EXPIRED, with its hold.expired event and an audit entry saying why.
 * Answers the ended row, or null when something else ended it first.
 */
async function expireLostHold(ctx: DomainContext, row: HoldRow, action: string, reason: string): Promise<HoldRow | null> {
  return runTransaction(ctx.db, async (tx) => {
    const locked = await lockHold(tx, row.id);
    if (!locked || locked.status !== 'ACTIVE') return null;
    const updated = await updateHold(tx, row.id, { status: 'EXPIRED', endedAt: new Date() });
    await recordWebhookEvent(tx, 'hold.expired', { hold: holdFromRow(updated) }, row.id);
    await recordAudit(tx, { actor: 'system:reconcile', action, eventId: row.eventId, holdId: row.id, reason });
    return updated;
  });
}

/** The sold set against PostgreSQL's SOLD seats, and leases left on sold seats. */
async function reconcileSold(ctx: DomainContext, rs: ReconcileStore, eventId: string, repair: Repair) {
  const redisSold = await rs.soldSeats(eventId);
  const pgSold = new Set((await readSaleState(ctx.db, eventId)).soldSeatIds);
  const missing = [...pgSold].filter((id) => !redisSold.has(id));
  if (missing.length) {
    await rs.addSold(eventId, missing);
    for (const id of missing) repair('sold_set_missing', eventId, `seat ${id} added to the sold set`);
  }
  // Redis's sold set was read before PostgreSQL, and a confirm commits in PostgreSQL before it
  // adds to the sold set: a seat read sold in Redis and available in PostgreSQL after is a drift.
  const extra = [...redisSold].filter((id) => !pgSold.has(id));
  if (extra.length) {
    await rs.removeSold(eventId, extra);
    for (const id of extra) repair('sold_set_extra', eventId, `seat ${id} removed from the sold set (available in PostgreSQL)`);
  }
  const sold = [...pgSold];
  const leases = await rs.seatLeases(eventId, sold);
  // Only while the seat is still in the sold set: an order cancelled since PostgreSQL was read gave
  // its seats back (cancel-order), maybe to a waiting customer's offer, whose lease this must not take.
  const leased = new Set<string>();
  for (const [seatId, lease] of leases) {
    if (!lease.owner) continue;
    if (await rs.fixSeatKey(eventId, seatId, lease.owner, 0, true)) {
      repair('sold_seat_key', eventId, `lease of hold ${lease.owner} on sold seat ${seatId} removed`);
    } else {
      leased.add(seatId);
    }
  }
  const heldSold = (await rs.heldEntries(eventId, sold)).filter((id) => !leased.has(id));
  if (heldSold.length) {
    await rs.removeHeldEntries(eventId, heldSold);
    for (const id of heldSold) repair('sold_seat_key', eventId, `held entry of sold seat ${id} removed`);
  }
}

/**
 * The free-seat index best available walks, against the seat keys and the sold
 * set (just reconciled with PostgreSQL): rebuilt when missing, else each seat
 * put in or out of the free set as it is now. Seats whose lease lapsed by time
 * come back too, without counting as drift (that is how leases end).
 */
async function reconcileSeatIndex(ctx: DomainContext, eventId: string, repair: Repair) {
  const r = await syncSeatIndex(ctx, eventId);
  if (r.rebuilt) {
    repair('seat_index_rebuilt', eventId, `free-seat index built again (${r.missing} free seats)`);
    return;
  }
  if (r.missing) repair('free_set_missing', eventId, `${r.missing} free seat(s) added to the free set`, r.missing);
  if (r.extra) repair('free_set_extra', eventId, `${r.extra} taken or sold seat(s) removed from the free set`, r.extra);
}

/**
 * Each ticket type's cap and sold against PostgreSQL, and held against its
 * holds' quantities. A drift seen is repaired at once, however busy the sale:
 * the ticket type's row is locked (no confirm of it commits meanwhile) and one
 * script rewrites the counters from what Redis has at that instant (its live
 * holds, pruned on its own clock) and PostgreSQL's locked numbers, less the
 * confirms PostgreSQL committed that have not reached Redis yet.
 */
async function reconcileTickets(ctx: DomainContext, rs: ReconcileStore, eventId: string, repair: Repair) {
  const { ticketTypes } = await readSaleState(ctx.db, eventId);
  const drift = (c: TicketCounters, t: { capacity: number; sold: number }) =>
    c.cap !== String(t.capacity) || c.sold !== String(t.sold) || c.held !== String(c.heldByHolds);
  for (const t of ticketTypes) {
    if (!drift(await rs.ticketCounters(eventId, t.id), t)) continue;
    const r = await runTransaction(ctx.db, async (tx) => {
      const pg = await lockTicketType(tx, eventId, t.id);
      if (!pg) return null;
      const ids = await rs.ticketHoldIds(eventId, t.id);
      const statuses = await holdStatuses(tx, ids);
      const confirmedHoldIds = ids.filter((id) => statuses.get(id) === 'CONFIRMED');
      return rs.repairTicketCounters(eventId, t.id, { ...pg, confirmedHoldIds });
    });
    if (r?.written) {
      repair('ga_counter', eventId,
        `ticket type ${t.id}: cap ${r.before.cap || '-'}→${r.after.cap}, sold ${r.before.sold || '-'}→${r.after.sold}, held ${r.before.held || '-'}→${r.after.held}`);
    }
  }
}

/**
 * Orders this recent may still be on their way to Redis (a confirm's end-hold
 * runs right after its COMMIT; its claim lasts 60 s): reconciliation leaves
 * them to it while their hold record says so.
 */
const RECENT_ORDER_MS = 2 * 60_000;

/**
 * Tickets bought per customer, as the hold scripts count them against the
 * limit, against PostgreSQL's orders. Redis's counts are read first, then
 * PostgreSQL's; each customer's count is written only if it still reads the
 * same (a confirm's end-hold in between leaves that customer to the next run),
 * and a recent order whose end-hold has not reached Redis is left to it.
 */
async function reconcileBought(ctx: DomainContext, rs: ReconcileStore, eventId: string, repair: Repair) {
  const seen = await rs.boughtCounts(eventId);
  const pg = await customerPurchases(ctx.db, eventId, new Date(Date.now() - RECENT_ORDER_MS));
  const customers = pg.map((p) => ({ ...p, seen: seen.get(p.customerId) ?? null }));
  const inPg = new Set(pg.map((p) => p.customerId));
  for (const [customerId, count] of seen) {
    if (!inPg.has(customerId)) customers.push({ customerId, quantity: 0, recent: [], seen: count });
  }
  // Only customers whose count differs, or who have recent orders, need the script.
  const suspect = customers.filter((c) => c.recent.length > 0 || Number(c.seen ?? 0) !== c.quantity);
  if (!suspect.length) return;
  for (const w of await rs.repairBought(eventId, suspect)) {
    repair('bought_count', eventId, `customer ${w.customerId}: tickets bought ${w.before}→${w.after}`);
  }
}

/** Keys that must expire by themselves: seat leases, hold records, rate-limit windows. */
async function reconcileTtls(ctx: DomainContext, rs: ReconcileStore, keys: EventKeyScan, repair: Repair) {
  const { eventId } = keys;
  const leases = await rs.seatLeases(eventId, keys.seatIds);
  for (const [seatId, lease] of leases) {
    if (lease.ttlMs !== -1 || !lease.owner) continue;
    const hold = await findHold(ctx.db, lease.owner);
    const remaining = hold && hold.status === 'ACTIVE' ? hold.expiresAt.getTime() - Date.now() : 0;
    if (await rs.fixSeatKey(eventId, seatId, lease.owner, Math.max(0, remaining))) {
      repair('key_without_ttl', eventId, remaining > 0
        ? `seat ${seatId} lease of hold ${lease.owner} given ${Math.round(remaining / 1000)} s`
        : `seat ${seatId} lease of ended hold ${lease.owner} removed`);
    }
  }
  for (const given of await rs.expireKeysWithoutTtl(keys)) {
    repair('key_without_ttl', eventId, `${given.kind} of ${given.id} given ${given.ttlMs / 1000} s`);
  }
}
