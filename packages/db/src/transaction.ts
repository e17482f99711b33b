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

/**
 * How long one known-long statement may run (an event's bulk seat INSERT, the
 * read of a whole seat map) instead of the pool's query timeout.
 */
export const BULK_STATEMENT_TIMEOUT_MS = 60_000;

/**
 * Runs one known-long statement of a transaction with a longer time budget,
 * server side (statement_timeout) and client side (the connection's query
 * timeout follows it, see pg-pool.ts), then puts the pool's budget back, so
 * the transaction's other statements still fail fast on a frozen server. The
 * client's own time to prepare the statement (100,000 seats' parameters) gets
 * the same budget from PostgreSQL's idle-in-transaction timeout: on a loaded
 * machine it took longer than that timeout, which ended the session.
 */
export async function bulkStatement<T>(tx: Tx, fn: () => Promise<T>, ms = BULK_STATEMENT_TIMEOUT_MS): Promise<T> {
  const budget = Math.max(1, Math.floor(ms));
  await tx.$executeRawUnsafe(`SET LOCAL idle_in_transaction_session_timeout = ${budget}`);
  await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${budget}`);
  const result = await fn();
  await tx.$executeRawUnsafe('SET LOCAL statement_timeout TO DEFAULT');
  await tx.$executeRawUnsafe('SET LOCAL idle_in_transaction_session_timeout TO DEFAULT');
  return result;
}
