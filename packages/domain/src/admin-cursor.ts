import { errors } from './errors';
import { eventOfHoldId, isUuid } from './ids';
import { decodeCursor } from './paging';

const MIN = Date.UTC(1970, 0, 1);
const MAX = Date.UTC(9999, 11, 31);

/**
 * decodeCursor, checked further for keys that go to PostgreSQL as they are: a
 * time in range and, for uuid-keyed tables, a uuid (a forged cursor is a 400,
 * never a database error).
 */
export function decodeAdminCursor(cursor: string, idKind: 'uuid' | 'hold', idOf: (raw: string) => string = (s) => s) {
  const c = decodeCursor(cursor);
  const t = c.createdAt.getTime();
  const id = idOf(c.id);
  if (t < MIN || t > MAX || (idKind === 'uuid' ? !isUuid(id) : eventOfHoldId(id) === null)) {
    throw errors.validation({ fields: [{ path: 'cursor', message: 'not a cursor this API returned' }] });
  }
  return c;
}
