import type { Prisma } from '@prisma/client';
import type { Db } from './client';
import { translated } from './errors';
import { withStatementBudget } from './pg-pool';

export type Tx = Prisma.TransactionClient;

/**
 * Opens an interactive transaction (READ COMMITTED unless told otherwise). Errors
 * come out translated: TransactionConflict for serialization failures and deadlocks.
 */
export function runTransaction<T>(
  db: Db,
  fn: (tx: Tx) => Promise<T>,
  options: {
    isolationLevel?: Prisma.TransactionIsolationLevel;
    timeoutMs?: number;
    /**
     * A known-long operation (a bulk insert, a big read): each of its statements
     * may run this long, server and client side, instead of the pool's query timeout.
     */
    statementTimeoutMs?: number;
  } = {},
): Promise<T> {
  const settings = { isolationLevel: options.isolationLevel ?? 'ReadCommitted', maxWait: 5000, timeout: options.timeoutMs ?? 10000 };
  const budget = options.statementTimeoutMs;
  if (budget === undefined) return translated(() => db.$transaction(fn, settings));
  const ms = Math.max(1, Math.floor(budget));
  return translated(() =>
    withStatementBudget(ms, () =>
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${ms}`);
        return fn(tx);
      }, settings),
    ),
  );
}
