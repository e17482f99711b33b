// The shape of a hold id, in one place: `hld_<event id without dashes>_<24 hex>`.
// Hold ids carry their event, so a hold can be found in Redis (whose keys are
// grouped by event) before its durable record reaches PostgreSQL.
import { z } from 'zod';

/** A well-formed hold id; the first group is its event's id without dashes. */
export const HOLD_ID_PATTERN = /^hld_([0-9a-f]{32})_[0-9a-f]{24}$/;

/** A well-formed hold id (job payloads, path parameters). */
export const holdIdSchema = z.string().regex(HOLD_ID_PATTERN);

/** How many hex digits follow the event in a hold id. */
export const HOLD_ID_SUFFIX_HEX = 24;

/** The hold id of an event with the given suffix (HOLD_ID_SUFFIX_HEX hex digits; anything else makes an id that is not well-formed). */
export function holdIdOf(eventId: string, suffix: string): string {
  return `hld_${eventId.replace(/-/g, '')}_${suffix}`;
}

/** The event of a well-formed hold id, or null. */
export function eventOfHoldId(holdId: string): string | null {
  const m = HOLD_ID_PATTERN.exec(holdId);
  if (!m) return null;
  const h = m[1]!;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
