// Waiting list: a buyer who came after the sell-out joins the line of a tier or ticket type;
// what comes back goes to the line first, as a hold of the next customer it can serve (Redis, one step).
import type { adminWaitlistEntryObject, waitlistEntryObject, z } from '@holdfast/contracts';
import {
  deleteWaitlistEntry, endWaitlistEntry, findLiveWaitlistEntry, findWaitlistEntry,
  insertWaitlistEntry, listCustomerWaitlist, listEventWaitlist, lockWaitlistEntry, recordAudit, setWaitlistEntryOutcome,
  runTransaction, settleWaitlistOffers, type WaitlistEntryRow,
} from '@holdfast/db';
import type { WaitlistPlace } from '@holdfast/hold-store';
import { randomUUID } from 'node:crypto';
import type { DomainContext } from './context';
import type { Catalog } from './event-catalog';
import { errors } from './errors';
import { isUuid } from './ids';
import { releaseHold } from './holds';
import { ensurePrimed, primeEvent } from './prime-event';
import { assertOnSale } from './sale-window';
import { joinInput, scopeOf } from './waitlist-line';

export type WaitlistEntryView = z.output<typeof waitlistEntryObject>;
export type AdminWaitlistEntryView = z.output<typeof adminWaitlistEntryObject>;

export interface JoinWaitlistInput {
  eventId: string;
  customerId: string;
  tier?: string;
  ticketTypeId?: string;
  quantity: number;
}

/**
 * Joins (or, when the customer has a live entry for it, answers that entry:
 * `created` false). The entry is written in PostgreSQL first, then put in line
 * in Redis, where it may be offered at once; when Redis refuses, the row goes.
 */
export async function joinWaitlist(ctx: DomainContext, input: JoinWaitlistInput): Promise<{ entry: WaitlistEntryView; created: boolean }> {
  const { eventId, customerId, quantity } = input;
  const catalog = await catalogOf(ctx, eventId);
  const { event } = catalog;
  assertOnSale(event);
  const tier = input.tier ?? null;
  const ticketTypeId = input.ticketTypeId ?? null;
  if (tier !== null && !catalog.tiers.has(tier)) {
    throw errors.validation({ fields: [{ path: 'tier', message: `this event has no seats in tier "${tier}"` }] });
  }
  if (ticketTypeId !== null && !catalog.ticketTypeById.has(ticketTypeId)) throw errors.ticketTypeNotFound();
  if (quantity > event.maxTicketsPerCustomer) {
    throw errors.validation({ fields: [{ path: 'quantity', message: `at most the event's maxTicketsPerCustomer (${event.maxTicketsPerCustomer})` }] });
  }
  // An entry whose offer ended (bought, lapsed) is no longer live: the customer may join again.
  await settleWaitlistOffers(ctx.db, eventId);
  const existing = await findLiveWaitlistEntry(ctx.db, eventId, customerId, tier, ticketTypeId);
  if (existing) return { entry: await viewOne(ctx, existing), created: false };
  const row = await insertWaitlistEntry(ctx.db, { id: randomUUID(), eventId, customerId, tier, ticketTypeId, quantity });
  if (!row) {
    const raced = await findLiveWaitlistEntry(ctx.db, eventId, customerId, tier, ticketTypeId);
    if (raced) return { entry: await viewOne(ctx, raced), created: false };
    throw errors.unavailable('PostgreSQL');
  }
  try {
    await ensurePrimed(ctx, eventId);
    let put = await ctx.store.waitlistJoin(joinInput(catalog, row, false));
    if (put.kind === 'not_ready') {
      await primeEvent(ctx, eventId);
      put = await ctx.store.waitlistJoin(joinInput(catalog, row, false));
    }
    if (put.kind === 'not_ready') throw errors.unavailable('Redis');
    // Not needed: the script marked the entry gone (a reconciliation that read its row puts it back no more).
    if (put.kind === 'available') throw errors.waitlistNotNeeded(put.free);
    if (put.kind === 'ok' && put.offers.length) ctx.persister.notify(eventId);
  } catch (err) {
    // Whatever Redis did before the failure is taken back, and the entry marked gone, before its row goes.
    if ((err as { code?: string }).code !== 'WAITLIST_NOT_NEEDED') await ctx.store.waitlistLeave(eventId, row.id, scopeOf(row)).catch(() => undefined);
    await deleteWaitlistEntry(ctx.db, row.id);
    throw err;
  }
  ctx.log.info({ eventId, entryId: row.id, scope: scopeOf(row), quantity }, 'waiting list joined');
  return { entry: await viewOne(ctx, row), created: true };
}

async function catalogOf(ctx: DomainContext, eventId: string): Promise<Catalog> {
  if (!isUuid(eventId)) throw errors.eventNotFound();
  const catalog = await ctx.catalog.get(eventId);
  if (!catalog) throw errors.eventNotFound();
  return catalog;
}

/** The customer's entries of the event, every state, in join order. */
export async function myWaitlist(ctx: DomainContext, eventId: string, customerId: string): Promise<WaitlistEntryView[]> {
  await catalogOf(ctx, eventId);
  await settleWaitlistOffers(ctx.db, eventId);
  return views(ctx, eventId, await listCustomerWaitlist(ctx.db, eventId, customerId));
}

export type WaitlistLeaver = { kind: 'customer'; customerId: string } | { kind: 'admin'; adminId: string; reason: string };

/**
 * The customer leaves (or an admin removes the entry, audited). An entry with an
 * offer gives its hold back: released, its items go to the next in line.
 * Leaving an entry that has ended answers it as it is.
 */
export async function leaveWaitlist(ctx: DomainContext, eventId: string, entryId: string, by: WaitlistLeaver): Promise<AdminWaitlistEntryView> {
  if (!isUuid(entryId)) throw errors.waitlistEntryNotFound();
  const row = await findWaitlistEntry(ctx.db, entryId);
  if (!row || row.eventId !== eventId || (by.kind === 'customer' && row.customerId !== by.customerId)) throw errors.waitlistEntryNotFound();
  if (row.state === 'waiting' || row.state === 'offered') {
    const state = by.kind === 'admin' ? 'removed' : 'left';
    // PostgreSQL first: from here on, reconciliation does not put the entry back in line.
    await runTransaction(ctx.db, async (tx) => {
      if (!(await lockWaitlistEntry(tx, entryId))) throw errors.waitlistEntryNotFound();
      await endWaitlistEntry(tx, entryId, state, row.holdId);
      if (by.kind === 'admin') {
        await recordAudit(tx, {
          actor: `admin:${by.adminId}`, action: 'waitlist.removed', eventId, holdId: row.holdId, reason: by.reason,
          details: { entryId, customerId: row.customerId, quantity: row.quantity, scope: scopeOf(row) },
        });
      }
    });
    const out = await ctx.store.waitlistLeave(eventId, entryId, scopeOf(row));
    const holdId = out.kind === 'offered' ? out.holdId : row.state === 'offered' ? row.holdId : null;
    if (holdId) {
      try {
        await releaseHold(ctx, holdId, by.kind === 'admin'
          ? { kind: 'admin', adminId: by.adminId, reason: by.reason }
          : { kind: 'customer', customerId: row.customerId });
        await setWaitlistEntryOutcome(ctx.db, entryId, state, holdId);
      } catch (err) {
        // The offer was bought meanwhile: the entry is done, purchased.
        if ((err as { code?: string }).code !== 'HOLD_ALREADY_CONFIRMED') throw err;
        await setWaitlistEntryOutcome(ctx.db, entryId, 'purchased', holdId);
      }
    }
  }
  const fresh = (await findWaitlistEntry(ctx.db, entryId))!;
  return { ...(await viewOne(ctx, fresh)), customerId: fresh.customerId };
}

/** The admin's view: the event's live entries (or every one), in join order, with whose each is. */
export async function adminWaitlist(ctx: DomainContext, eventId: string, all = false): Promise<AdminWaitlistEntryView[]> {
  await catalogOf(ctx, eventId);
  await settleWaitlistOffers(ctx.db, eventId);
  const rows = await listEventWaitlist(ctx.db, eventId, !all);
  const shown = await views(ctx, eventId, rows);
  return shown.map((v, i) => ({ ...v, customerId: rows[i]!.customerId }));
}

/** Numbers for the sales dashboard: entries waiting and offers open, per tier and ticket type. */
export async function waitlistNumbers(ctx: DomainContext, eventId: string): Promise<{ waiting: number; offered: number; byScope: Map<string, { waiting: number; offered: number }> }> {
  await settleWaitlistOffers(ctx.db, eventId);
  const rows = await listEventWaitlist(ctx.db, eventId, true);
  const entries = await views(ctx, eventId, rows);
  const byScope = new Map<string, { waiting: number; offered: number }>();
  let waiting = 0;
  let offered = 0;
  entries.forEach((e, i) => {
    const scope = scopeOf(rows[i]!);
    const n = byScope.get(scope) ?? { waiting: 0, offered: 0 };
    if (e.state === 'waiting') { n.waiting++; waiting++; }
    if (e.state === 'offered') { n.offered++; offered++; }
    byScope.set(scope, n);
  });
  return { waiting, offered, byScope };
}

async function viewOne(ctx: DomainContext, row: WaitlistEntryRow): Promise<WaitlistEntryView> {
  return (await views(ctx, row.eventId, [row]))[0]!;
}

/** Entries as the API shows them: PostgreSQL's rows, with Redis's places and offers not yet persisted. */
async function views(ctx: DomainContext, eventId: string, rows: WaitlistEntryRow[]): Promise<WaitlistEntryView[]> {
  const waiting = rows.filter((r) => r.state === 'waiting');
  let places = new Map<string, WaitlistPlace>();
  if (waiting.length) {
    try {
      places = await ctx.store.waitlistPlaces(eventId, waiting.map((r) => ({ id: r.id, scope: scopeOf(r) })));
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message, eventId }, 'waiting-list places not read from Redis');
    }
  }
  const now = Date.now();
  return rows.map((r) => viewOf(r, places.get(r.id), now));
}

function viewOf(r: WaitlistEntryRow, place: WaitlistPlace | undefined, now: number): WaitlistEntryView {
  const base = {
    id: r.id, quantity: r.quantity, createdAt: r.createdAt.toISOString(),
    ...(r.tier !== null ? { tier: r.tier } : { ticketTypeId: r.ticketTypeId! }),
  };
  if (r.state === 'waiting') {
    if (place?.kind === 'offered') {
      return { ...base, state: 'offered', position: null, offer: { holdId: place.holdId, expiresAt: new Date(place.expiresAtMs).toISOString() } };
    }
    return { ...base, state: 'waiting', position: place?.kind === 'waiting' ? place.position : null, offer: null };
  }
  if (r.state === 'offered') {
    const expiresAt = r.holdExpiresAt ?? r.offerExpiresAt;
    if (r.holdStatus === 'CONFIRMED') return { ...base, state: 'purchased', position: null, offer: null };
    if (r.holdStatus === 'RELEASED') return { ...base, state: 'left', position: null, offer: null };
    if (r.holdStatus === 'EXPIRED' || !expiresAt || expiresAt.getTime() <= now) return { ...base, state: 'expired', position: null, offer: null };
    return { ...base, state: 'offered', position: null, offer: { holdId: r.holdId!, expiresAt: expiresAt.toISOString() } };
  }
  return { ...base, state: r.state, position: null, offer: null };
}
