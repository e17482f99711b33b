import type { Prisma } from '@prisma/client';
import type { Db } from './client';
import { translated } from './errors';

export type Tx = Prisma.TransactionClient;

/**
 * Opens an interactive transaction (READ COMMITTED unless told otherwise). Errors
 * come out translated: TransactionConflict for serialization failures and deadlocks.
 */
export function runTransaction<T>(
  db: Db,
  fn: (tx: Tx) => Promise<T>,
  options: { isolationLevel?: Prisma.TransactionIsolationLevel; timeoutMs?: number } = {},
): Promise<T> {
  return translated(() =>
    db.$transaction(fn, {
      isolationLevel: options.isolationLevel ?? 'ReadCommitted',
      maxWait: 5000,
      timeout: options.timeoutMs ?? 10000,
    }),
  );
}
