// Events: an admin puts an event on sale with its seats and ticket types in one
// transaction, then loads it into Redis; anyone reads events, availability and the seat map.
import { expandLayout, layoutSeatCount, MAX_EVENT_SEATS, type LayoutSeat, type SeatLayout } from '@holdfast/contracts';
import type { eventObject, seatObject, z } from '@holdfast/contracts';
import {
  findEvent, insertEvent, listEvents as listEventRows, lockEvent, recordAudit, runTransaction, updateEventSettings,
  type EventRow, type EventSettings,
} from '@holdfast/db';
import type { DomainContext } from './context';
import { errors } from './errors';
import { isUuid } from './ids';
import { decodeCursor, encodeCursor, type Page } from './paging';
import { ensurePrimed, primeEvent } from './prime-event';
import { resetQueueOverrides } from './waiting-room';

/** The contract's Event object. */
export type EventView = z.output<typeof eventObject>;

type SaleSettings = 'maxHoldExtensions' | 'maxHoldSeconds' | 'waitlistOfferSeconds' | 'salesStatus' | 'salesStartAt' | 'salesEndAt' | 'waitingRoom';

/**
 * Without sale settings an event is on sale at once, with one extension of up to
 * 30 minutes in all. Its seats come as a list or as a layout (sections × rows ×
 * seats per row, made into seats here), one or neither (general admission only).
 */
export interface CreateEventInput extends Omit<EventSettings, SaleSettings>, Partial<Pick<EventSettings, SaleSettings>> {
  currency: string;
  seats?: LayoutSeat[];
  layout?: SeatLayout;
  ticketTypes: { name: string; priceCents: number; capacity: number }[];
}

/** The seats of the event: the list given, or the layout's, counted before any is made. */
function seatsOf(given: CreateEventInput): LayoutSeat[] {
  if (!given.layout) return given.seats ?? [];
  if (given.seats !== undefined) throw errors.validation({ fields: [{ path: 'layout', message: 'give seats or layout, not both' }] });
  const count = layoutSeatCount(given.layout);
  if (count > MAX_EVENT_SEATS) {
    throw errors.validation({
      fields: [{ path: 'layout', message: `the layout makes ${count.toLocaleString('en-US')} seats; an event has at most ${MAX_EVENT_SEATS.toLocaleString('en-US')}` }],
    });
  }
  return expandLayout(given.layout);
}

/** `adminId`: the admin who creates it, recorded in the audit log in the same transaction. */
export async function createEvent(ctx: DomainContext, given: CreateEventInput, adminId?: string): Promise<EventView> {
  const { layout, ...rest } = given;
  const input = {
    ...rest,
    seats: seatsOf(given),
    maxHoldExtensions: given.maxHoldExtensions ?? 1,
    maxHoldSeconds: given.maxHoldSeconds ?? Math.max(1800, given.holdTtlSeconds),
    waitlistOfferSeconds: given.waitlistOfferSeconds ?? 1800,
    salesStatus: given.salesStatus ?? 'on_sale',
    salesStartAt: given.salesStartAt ?? null,
    salesEndAt: given.salesEndAt ?? null,
    waitingRoom: given.waitingRoom ?? null,
  };
  const firstAt = new Map<string, number>();
  const duplicates: { path: string; message: string }[] = [];
  input.seats.forEach((s, i) => {
    const label = `${s.section}-${s.row}-${s.number}`;
    const first = firstAt.get(label);
    if (first === undefined) firstAt.set(label, i);
    else if (layout) duplicates.push({ path: 'layout', message: `makes ${label} twice: sections and rows must not repeat` });
    else duplicates.push({ path: `seats.${i}`, message: `duplicate of seats.${first} (${label}: same section, row and number)` });
  });
  if (duplicates.length) {
    throw errors.validation({ fields: duplicates.slice(0, 20) }, 'The event lists the same seat more than once.');
  }
  checkSettings(input);
  const id = await runTransaction(
    ctx.db,
    async (tx) => {
      const eventId = await insertEvent(tx, input);
      if (adminId) await recordAudit(tx, { actor: `admin:${adminId}`, action: 'event.created', eventId });
      return eventId;
    },
    { timeoutMs: 60000 },
  );
  await primeNewEvent(ctx, id);
  // The priming loaded the event's catalog (its free-seat index is built from it), so its row is read once;
  // when Redis could not take the event, this loads the catalog its first hold needs anyway.
  const catalog = await ctx.catalog.get(id);
  if (!catalog) throw errors.eventNotFound();
  // Nothing can be held yet: PostgreSQL's numbers are the answer, whether or not Redis took the event.
  return view(catalog.event, postgresAvailability(catalog.event));
}

/**
 * A new event is loaded into Redis at once (its counters, free-seat index and
 * ready mark), so its first buyers do not wait on that load: in a flash sale
 * they all arrive in the same instant, and each of them would queue behind it
 * (`git show aba00ee:docs/benchmarks.md`, "Issue 12, seventh pass"). PostgreSQL has the event
 * whatever happens here: when Redis cannot take it now, the event is created
 * all the same and its first hold loads it, as after Redis lost its data.
 */
async function primeNewEvent(ctx: DomainContext, eventId: string): Promise<void> {
  try {
    await primeEvent(ctx, eventId);
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message, eventId }, 'new event not loaded into Redis; its first hold will load it');
  }
}

/** Rules across fields, on the settings as they will be stored. */
function checkSettings(s: EventSettings): void {
  const fields: { path: string; message: string }[] = [];
  if (s.salesStartAt && s.salesEndAt && s.salesEndAt <= s.salesStartAt) {
    fields.push({ path: 'salesEndAt', message: 'must be later than salesStartAt' });
  }
  if (s.maxHoldSeconds < s.holdTtlSeconds) {
    fields.push({ path: 'maxHoldSeconds', message: `must be at least holdTtlSeconds (${s.holdTtlSeconds})` });
  }
  if (fields.length) throw errors.validation({ fields });
}

/** An admin changes an event's settings (not its seats or ticket types); audited with the fields changed. */
export async function updateEvent(
  ctx: DomainContext, eventId: string, patch: Partial<EventSettings>, adminId: string,
): Promise<EventView> {
  if (!isUuid(eventId)) throw errors.eventNotFound();
  const next = await runTransaction(ctx.db, async (tx) => {
    const row = await lockEvent(tx, eventId);
    if (!row) throw errors.eventNotFound();
    const next: EventSettings = {
      name: patch.name ?? row.name,
      startsAt: patch.startsAt ?? row.startsAt,
      holdTtlSeconds: patch.holdTtlSeconds ?? row.holdTtlSeconds,
      maxTicketsPerCustomer: patch.maxTicketsPerCustomer ?? row.maxTicketsPerCustomer,
      maxHoldExtensions: patch.maxHoldExtensions ?? row.maxHoldExtensions,
      maxHoldSeconds: patch.maxHoldSeconds ?? row.maxHoldSeconds,
      waitlistOfferSeconds: patch.waitlistOfferSeconds ?? row.waitlistOfferSeconds,
      salesStatus: patch.salesStatus ?? row.salesStatus,
      salesStartAt: patch.salesStartAt !== undefined ? patch.salesStartAt : row.salesStartAt,
      salesEndAt: patch.salesEndAt !== undefined ? patch.salesEndAt : row.salesEndAt,
      waitingRoom: patch.waitingRoom !== undefined ? patch.waitingRoom : row.waitingRoom,
    };
    checkSettings(next);
    await updateEventSettings(tx, eventId, next);
    const changed = Object.fromEntries(
      Object.entries(patch).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v && typeof v === 'object' ? { ...v } : (v ?? null)]),
    );
    await recordAudit(tx, { actor: `admin:${adminId}`, action: 'event.updated', eventId, details: changed });
    return next;
  });
  ctx.catalog.invalidate(eventId);
  // Offers made from now on take the new offer time and limit (the waiting lists' copy in Redis).
  await ctx.store.setWaitlistConfig(eventId, next.waitlistOfferSeconds * 1000, next.maxTicketsPerCustomer).catch((err: Error) => {
    ctx.log.warn({ err: err.message, eventId }, 'waiting-list settings not updated in Redis; the next reconciliation writes them');
  });
  if (patch.waitingRoom) await resetWaitingRoomOverrides(ctx, eventId);
  return getEvent(ctx, eventId);
}

/**
 * New waiting room settings replace an admin's overrides of its rate and most active
 * passes (PATCH …/queue); the pause stays. If Redis cannot take that now, the overrides stay until the next change.
 */
async function resetWaitingRoomOverrides(ctx: DomainContext, eventId: string): Promise<void> {
  const row = await findEvent(ctx.db, eventId);
  if (!row) return;
  await resetQueueOverrides(ctx, row).catch((err: unknown) =>
    ctx.log.warn({ err: (err as Error).message, eventId }, 'the waiting room\'s overrides could not be reset in Redis'));
}

function view(row: EventRow, available: (ticketTypeId: string) => number): EventView {
  return {
    id: row.id,
    name: row.name,
    startsAt: row.startsAt.toISOString(),
    currency: row.currency,
    holdTtlSeconds: row.holdTtlSeconds,
    maxTicketsPerCustomer: row.maxTicketsPerCustomer,
    maxHoldExtensions: row.maxHoldExtensions,
    maxHoldSeconds: row.maxHoldSeconds,
    waitlistOfferSeconds: row.waitlistOfferSeconds,
    salesStatus: row.salesStatus,
    salesStartAt: row.salesStartAt?.toISOString() ?? null,
    salesEndAt: row.salesEndAt?.toISOString() ?? null,
    waitingRoom: row.waitingRoom && { ...row.waitingRoom },
    seatCount: row.seatCount,
    ticketTypes: row.ticketTypes.map((t) => ({
      id: t.id, name: t.name, priceCents: t.priceCents, capacity: t.capacity, available: Math.max(0, available(t.id)),
    })),
  };
}

/** available = capacity − sold − quantity in active holds (Redis, after lazy expiry). */
async function availability(ctx: DomainContext, row: EventRow): Promise<(id: string) => number> {
  const ids = row.ticketTypes.map((t) => t.id);
  const live = await ctx.store.readAvailability(row.id, ids);
  if (live) return (id) => live.get(id) ?? 0;
  // Not primed in Redis: no hold can exist there, so PostgreSQL's numbers are the answer.
  return postgresAvailability(row);
}

function postgresAvailability(row: EventRow): (id: string) => number {
  const byId = new Map(row.ticketTypes.map((t) => [t.id, t.capacity - t.sold]));
  return (id) => byId.get(id) ?? 0;
}

export async function getEvent(ctx: DomainContext, eventId: string): Promise<EventView> {
  if (!isUuid(eventId)) throw errors.eventNotFound();
  // Sold counts move, so read the row fresh rather than from the catalog.
  const row = await findEvent(ctx.db, eventId);
  if (!row) throw errors.eventNotFound();
  // Buyers read the event before they hold: this process loads its catalog now, in the
  // background, so the sale's first hold here does not wait on (and block the process with) that load.
  if (row.seatCount > 0) void ctx.catalog.preload(eventId);
  return view(row, await availability(ctx, row));
}

export async function listEvents(ctx: DomainContext, limit: number, cursor?: string): Promise<Page<EventView>> {
  const after = cursor ? decodeCursor(cursor, isUuid) : undefined;
  const rows = await listEventRows(ctx.db, limit + 1, after);
  const page = rows.slice(0, limit);
  const items = await Promise.all(page.map(async (r) => view(r, await availability(ctx, r))));
  const last = page[page.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
}

/** The contract's Seat object. */
export type SeatView = z.output<typeof seatObject>;

export async function listSeats(ctx: DomainContext, eventId: string): Promise<SeatView[]> {
  if (!isUuid(eventId)) throw errors.eventNotFound();
  const catalog = await ctx.catalog.get(eventId);
  if (!catalog) throw errors.eventNotFound();
  if (!catalog.seats.length) return [];
  await ensurePrimed(ctx, eventId);
  const { held, sold } = await ctx.store.seatStates(eventId);
  return catalog.seats.map((s) => ({
    id: s.id, label: s.label, section: s.section, row: s.row, number: s.number, tier: s.tier, priceCents: s.priceCents,
    status: sold.has(s.id) ? 'sold' : held.has(s.id) ? 'held' : 'available',
  }));
}
