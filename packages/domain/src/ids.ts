import { randomBytes } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HOLD_ID = /^hld_([0-9a-f]{32})_[0-9a-f]{24}$/;

export const isUuid = (s: string): boolean => UUID.test(s);

/**
 * Random bytes for hold ids, drawn from the CSPRNG 128 ids at a time: one
 * randomFillSync per hold showed in a hold's CPU profile (docs/benchmarks.md).
 */
const ID_BYTES = 12;
let pool = Buffer.alloc(0);
let offset = 0;
function randomHex(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * 128);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return hex;
}

/**
 * Hold ids carry their event, so a hold can be found in Redis (whose keys are
 * grouped by event) before its durable record reaches PostgreSQL.
 */
export function newHoldId(eventId: string): string {
  return `hld_${eventId.replace(/-/g, '')}_${randomHex()}`;
}

/** The event of a well-formed hold id, or null. */
export function eventOfHoldId(holdId: string): string | null {
  const m = HOLD_ID.exec(holdId);
  if (!m) return null;
  const h = m[1]!;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
