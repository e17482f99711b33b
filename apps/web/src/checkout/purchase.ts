/** Where the buyer is in hold → pay → order, for the hold shown on the page. */
import { isSeatItem, type Hold, type Order } from '../shared/types';

export type Purchase =
  | { stage: 'none' }
  | { stage: 'held' | 'paying'; hold: Hold }
  | { stage: 'paid'; hold: Hold; order: Order }
  | { stage: 'ended'; hold: Hold; why: 'expired' | 'released' };

export function seatIdsOf(hold: Hold): Set<string> {
  return new Set(hold.items.flatMap((item) => (isSeatItem(item) ? [item.seatId] : [])));
}

/** Seat ids of the hold the buyer is working on (held or being paid for). */
export function heldSeatIds(purchase: Purchase): Set<string> {
  return purchase.stage === 'held' || purchase.stage === 'paying' ? seatIdsOf(purchase.hold) : new Set();
}

const storageKey = (eventId: string) => `holdfast.hold.${eventId}`;

/** The active hold is remembered per event so a reload picks it up again. */
export const rememberedHold = {
  get: (eventId: string) => localStorage.getItem(storageKey(eventId)),
  set: (eventId: string, holdId: string) => localStorage.setItem(storageKey(eventId), holdId),
  clear: (eventId: string) => localStorage.removeItem(storageKey(eventId)),
};
