// A waiting list's line in Redis: its name, what an entry carries there, and putting
// PostgreSQL's waiting entries back when Redis lost them (priming, reconciliation).
import { expireWaitlistOffers, listEventWaitlist, type Tx, type WaitlistEntryRow } from '@holdfast/db';
import type { WaitlistJoinInput } from '@holdfast/hold-store';
import type { DomainContext } from './context';
import type { Catalog } from './event-catalog';
import { recordWebhookEvents } from './webhook-events';

/** A line's name in Redis: "t:<tier>" or "tt:<ticket type id>". */
export const scopeOf = (e: Pick<WaitlistEntryRow, 'tier' | 'ticketTypeId'>): string =>
  e.tier !== null ? `t:${e.tier}` : `tt:${e.ticketTypeId}`;

/** What Redis keeps of an entry, and the event's offer settings. */
export function joinInput(catalog: Catalog, row: WaitlistEntryRow, restore: boolean): WaitlistJoinInput {
  const tt = row.ticketTypeId ? catalog.ticketTypeById.get(row.ticketTypeId) : undefined;
  return {
    eventId: row.eventId, entryId: row.id, seq: row.seq, customerId: row.customerId, scope: scopeOf(row), quantity: row.quantity,
    name: tt?.name, priceCents: tt?.priceCents, currency: catalog.event.currency,
    offerMs: catalog.event.waitlistOfferSeconds * 1000, maxPerCustomer: catalog.event.maxTicketsPerCustomer, restore,
  };
}

/**
 * Puts the event's waiting entries back in Redis's lines (after Redis lost the
 * event: PostgreSQL is the record), in join order; entries in line or with an
 * offer already are left as they are. Answers how many went back.
 */
export async function restoreWaitlist(ctx: DomainContext, eventId: string): Promise<number> {
  const rows = (await listEventWaitlist(ctx.db, eventId, true, 100_000)).filter((r) => r.state === 'waiting');
  if (!rows.length) return 0;
  const catalog = await ctx.catalog.get(eventId);
  if (!catalog) return 0;
  let restored = 0;
  let offers = 0;
  for (const row of rows) {
    const r = await ctx.store.waitlistJoin(joinInput(catalog, row, true));
    if (r.kind === 'ok') {
      restored++;
      offers += r.offers.length;
    }
  }
  if (offers) ctx.persister.notify(eventId);
  if (restored) ctx.log.info({ eventId, restored }, 'waiting-list entries put back in Redis from PostgreSQL');
  return restored;
}


/** An entry as a webhook event carries it (the API's Entry object, as it reads at that instant). */
export function entryPayload(r: WaitlistEntryRow, state: 'offered' | 'expired'): Record<string, unknown> {
  return {
    id: r.id, state, position: null, quantity: r.quantity, createdAt: r.createdAt.toISOString(),
    ...(r.tier !== null ? { tier: r.tier } : { ticketTypeId: r.ticketTypeId }),
    offer: state === 'offered' && r.holdId && r.offerExpiresAt ? { holdId: r.holdId, expiresAt: r.offerExpiresAt.toISOString() } : null,
  };
}

/**
 * In the expiry's transaction: the holds that were entries' offers end those
 * entries expired, and a waitlist.offer_expired event is written for each.
 */
export async function offersExpired(tx: Tx, holds: readonly (Record<string, unknown> & { id: string })[], at: Date): Promise<void> {
  const entries = await expireWaitlistOffers(tx, holds.map((h) => h.id), at);
  if (!entries.length) return;
  const byId = new Map(holds.map((h) => [h.id, h]));
  await recordWebhookEvents(tx, 'waitlist.offer_expired', entries.map((entry) => ({
    data: { entry: entryPayload(entry, 'expired'), hold: byId.get(entry.holdId!) ?? null }, orderingKey: entry.holdId,
  })));
}
