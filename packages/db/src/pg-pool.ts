import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

/**
 * A longer time budget for the statements of one known-long operation (an
 * event's bulk seat insert, the first read of a big seat map); see
 * withStatementBudget. Everything else gets the pool's query timeout.
 */
const statementBudget = new AsyncLocalStorage<number>();

/** Runs fn with its statements allowed `ms` each (client side; the caller sets the server side in its transaction). */
export function withStatementBudget<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  return statementBudget.run(ms, fn);
}

/** The message of the error a query gets when PostgreSQL has not answered within its time. */
export const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

/** PostgreSQL's `name` type (OID 19), which adapter-pg cannot deserialize (prisma/orm#27403). */
const NAME_OID = 19;
const TEXT_OID = 25;

type Fields = { dataTypeID: number }[];

function reportNameAsText<T>(result: T): T {
  const results = Array.isArray(result) ? result : [result];
  for (const r of results as { fields?: Fields }[]) {
    for (const field of r?.fields ?? []) {
      if (field.dataTypeID === NAME_OID) field.dataTypeID = TEXT_OID;
    }
  }
  return result;
}

/**
 * A pg client that reports `name` columns as `text`: the work-around for
 * prisma/orm#27403, which otherwise breaks `prisma migrate` over adapter-pg.
 */
class NameAsTextClient extends pg.Client {
  // pg's query() has many overloads (promise and callback styles); wrap both.
  override query(...args: unknown[]): never {
    const budget = statementBudget.getStore();
    const first = args[0];
    if (budget !== undefined && first && typeof first === 'object' && 'text' in first) {
      args[0] = { ...(first as object), query_timeout: budget };
    }
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      const callback = last as (err: Error | null, res: unknown) => void;
      args[args.length - 1] = (err: Error | null, res: unknown) => {
        if (err) this.dropIfTimedOut(err);
        callback(err, err ? res : reportNameAsText(res));
      };
      return (super.query as (...a: unknown[]) => never)(...args);
    }
    const out = (super.query as (...a: unknown[]) => unknown)(...args);
    if (out && typeof (out as Promise<unknown>).then === 'function') {
      return (out as Promise<unknown>).then(reportNameAsText, (err: Error) => {
        this.dropIfTimedOut(err);
        throw err;
      }) as never;
    }
    return out as never;
  }

  /**
   * A query that PostgreSQL did not answer in time leaves the connection in an
   * unknown state (the statement may still run, a transaction may still be
   * open): the connection is closed at once and never handed out again (the
   * pool drops a client that is ending), so nothing later runs inside a
   * transaction that timed out.
   */
  private dropIfTimedOut(err: Error): void {
    if (err.message === QUERY_TIMEOUT_MESSAGE) void this.end().catch(() => undefined);
  }
}

export interface PgPoolOptions {
  max?: number;
  /** Fail a connection attempt (or a wait for a free connection) after this long. */
  connectionTimeoutMillis?: number;
  /**
   * Each statement's time: PostgreSQL cancels it after this long
   * (`statement_timeout`) and the client gives up on an answer after this long
   * (`query_timeout`, which also catches a server that answers nothing at all).
   * 0: no limit.
   */
  queryTimeoutMillis?: number;
  /** PostgreSQL ends a session left idle inside a transaction this long (0: never). */
  idleInTransactionTimeoutMillis?: number;
  /** TCP keepalive on every connection, first probe after this long idle (0: off). */
  keepAliveMillis?: number;
}

export function createPgPool(connectionString: string, max = 10, options: PgPoolOptions = {}): pg.Pool {
  const queryTimeout = options.queryTimeoutMillis ?? 0;
  const idleInTx = options.idleInTransactionTimeoutMillis ?? 0;
  const keepAlive = options.keepAliveMillis ?? 0;
  return new pg.Pool({
    connectionString,
    max,
    Client: NameAsTextClient,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 2000,
    ...(queryTimeout > 0 ? { statement_timeout: queryTimeout, query_timeout: queryTimeout } : {}),
    ...(idleInTx > 0 ? { idle_in_transaction_session_timeout: idleInTx } : {}),
    ...(keepAlive > 0 ? { keepAlive: true, keepAliveInitialDelayMillis: keepAlive } : {}),
  });
}
