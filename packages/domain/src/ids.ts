import { randomBytes } from 'node:crypto';
import { eventOfHoldId, HOLD_ID_SUFFIX_HEX, holdIdOf } from '@holdfast/contracts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const isUuid = (s: string): boolean => UUID.test(s);

/**
 * Random bytes for hold ids, drawn from the CSPRNG 128 ids at a time: one
 * randomFillSync per hold showed in a hold's CPU profile (docs/benchmarks.md, "Settings chosen by measurement").
 */
const ID_BYTES = HOLD_ID_SUFFIX_HEX / 2;
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

/** The hold id prefix of the last event asked for (`hld_<id without dashes>_`): a sale asks for one event over and over. */
let prefixOf = { eventId: '', prefix: '' };

/** A new hold id of the event (its shape: @holdfast/contracts, hold-id.ts). */
export function newHoldId(eventId: string): string {
  if (prefixOf.eventId !== eventId) prefixOf = { eventId, prefix: holdIdOf(eventId, '') };
  return prefixOf.prefix + randomHex();
}

export { eventOfHoldId, holdIdOf };
