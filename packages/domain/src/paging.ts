import { errors } from './errors';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Keyset cursors: the last row's (createdAt, id), opaque to clients. */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

/**
 * Reads a cursor back; `isId` checks the id's form (e.g. a UUID column), so a
 * forged cursor is a 400, never a database error.
 */
export function decodeCursor(cursor: string, isId: (id: string) => boolean = () => true): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const createdAt = new Date(at ?? '');
  if (!id || !isId(id) || Number.isNaN(createdAt.getTime())) {
    throw errors.validation({ fields: [{ path: 'cursor', message: 'not a cursor this API returned' }] });
  }
  return { createdAt, id };
}
