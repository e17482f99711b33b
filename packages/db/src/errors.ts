import { Prisma } from '@prisma/client';

/** A unique constraint refused the write (Prisma P2002). */
export class UniqueViolation extends Error {
  override name = 'UniqueViolation';
  constructor(readonly target: string) {
    super(`unique constraint violated on ${target}`);
  }
}

/** The transaction lost a serialization race or a deadlock (Prisma P2034); retrying may succeed. */
export class TransactionConflict extends Error {
  override name = 'TransactionConflict';
}

/**
 * PostgreSQL refused the data itself (SQLSTATE class 22, data exception, or 23,
 * integrity constraint other than a unique one): the same statement will fail
 * again however often it is retried.
 */
export class DataRefused extends Error {
  override name = 'DataRefused';
  constructor(readonly sqlState: string, message: string) {
    super(message);
  }
}

const refusedData = (code: string | undefined) => !!code && (code.startsWith('22') || (code.startsWith('23') && code !== '23505'));

/** The database could not be reached or did not answer in time. */
export class DatabaseUnavailable extends Error {
  override name = 'DatabaseUnavailable';
}

// P2037: too many database connections opened (PostgreSQL's 53300, its connection limit reached).
const UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
/**
 * PostgreSQL's own refusals that mean "not now": a statement cancelled by
 * statement_timeout (57014), a lock not available (55P03), a session ended for
 * idling in a transaction (25P03), the server shutting down or in recovery,
 * no connection left (53300: max_connections, or a role's or database's limit),
 * a server taking no writes (25006: a standby, or a primary a failover left read-only).
 */
const UNAVAILABLE_PG_CODES = new Set(['57014', '55P03', '25P03', '57P01', '57P02', '57P03', '53300', '25006']);
const UNAVAILABLE_MESSAGE = /Query read timeout|not queryable|canceling statement due to statement timeout|idle-in-transaction timeout|ECONNREFUSED|ECONNRESET|ETIMEDOUT|timeout exceeded when trying to connect|Connection terminated|connect EHOSTUNREACH|the database system is (starting up|shutting down)|DatabaseNotReachable|ConnectionClosed/i;

/** Translates Prisma's and pg's errors at the data-access edge. */
export function translateDbError(err: unknown): unknown {
  if (err instanceof UniqueViolation || err instanceof TransactionConflict || err instanceof DatabaseUnavailable || err instanceof DataRefused) {
    return err;
  }
  if (err instanceof Prisma.PrismaClientKnownRequestError) {
    const cause = (err.meta as { driverAdapterError?: { cause?: { originalCode?: string; originalMessage?: string } } } | undefined)
      ?.driverAdapterError?.cause;
    const pgCode = cause?.originalCode;
    if (refusedData(pgCode)) return new DataRefused(pgCode!, cause?.originalMessage ?? err.message);
    if (pgCode === '40001' || pgCode === '40P01') return new TransactionConflict(err.message);
    if (pgCode === '23505') return new UniqueViolation('raw query');
    if (pgCode && UNAVAILABLE_PG_CODES.has(pgCode)) return new DatabaseUnavailable(err.message);
    if (err.code === 'P2002') {
      const target = (err.meta as { target?: unknown; modelName?: string } | undefined)?.target;
      return new UniqueViolation(Array.isArray(target) ? target.join(',') : String(target ?? 'unknown'));
    }
    if (err.code === 'P2034') return new TransactionConflict(err.message);
    if (UNAVAILABLE_CODES.has(err.code)) return new DatabaseUnavailable(err.message);
  }
  if (err instanceof Prisma.PrismaClientInitializationError) return new DatabaseUnavailable(err.message);
  const message = err instanceof Error ? err.message : String(err);
  // A driver adapter's error that reached here as it is (inside an interactive transaction,
  // Prisma passes it on unwrapped): PostgreSQL's SQLSTATE is its cause's originalCode.
  const code = (err as { name?: string } | null)?.name === 'DriverAdapterError'
    ? (err as { cause?: { originalCode?: string } }).cause?.originalCode
    : (err as { code?: string } | null)?.code;
  if (code === '40001' || code === '40P01') return new TransactionConflict(message);
  if (code === '23505') return new UniqueViolation(String((err as { constraint?: string }).constraint ?? 'unknown'));
  if (refusedData(code)) return new DataRefused(code!, message);
  if (code && UNAVAILABLE_PG_CODES.has(code)) return new DatabaseUnavailable(message);
  if (UNAVAILABLE_MESSAGE.test(message) || (err as { cause?: unknown })?.cause && UNAVAILABLE_MESSAGE.test(String((err as { cause: unknown }).cause))) {
    return new DatabaseUnavailable(message);
  }
  return err;
}

/** Runs a data-access call, translating its errors. */
export async function translated<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translateDbError(err);
  }
}
