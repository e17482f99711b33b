import pg from 'pg';

/**
 * `SET LOCAL statement_timeout = <ms>` raises one transaction's statement
 * budget on the server (see bulkStatement); the client's query timeout of
 * that connection follows it until `SET LOCAL statement_timeout TO DEFAULT` or
 * the end of the transaction, so a known-long statement is not cut short on
 * either side while every other statement keeps the pool's budget.
 */
const RAISE_BUDGET = /^SET LOCAL STATEMENT_TIMEOUT = (\d+)$/;
const RESET_BUDGET = /^(SET LOCAL STATEMENT_TIMEOUT TO DEFAULT|COMMIT|ROLLBACK|BEGIN)$/;

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

/** The SQL of a query's first argument, trimmed and upper-cased (for COMMIT and ROLLBACK). */
function statementText(arg: unknown): string {
  const text = typeof arg === 'string' ? arg : arg && typeof arg === 'object' && 'text' in arg ? String((arg as { text: unknown }).text) : '';
  return text.trim().replace(/;$/, '').toUpperCase();
}

/**
 * A pg client that reports `name` columns as `text`: the work-around for
 * prisma/orm#27403, which otherwise breaks `prisma migrate` over adapter-pg.
 */
class NameAsTextClient extends pg.Client {
  // pg's query() has many overloads (promise and callback styles); wrap both.
  /** This connection's raised client-side budget (ms) inside the current transaction, if any. */
  private localBudget: number | undefined;

  override query(...args: unknown[]): never {
    const first = args[0];
    const statement = statementText(first);
    const raised = RAISE_BUDGET.exec(statement);
    if (raised) this.localBudget = Number(raised[1]);
    else if (RESET_BUDGET.test(statement)) this.localBudget = undefined;
    if (this.localBudget !== undefined && first && typeof first === 'object' && 'text' in first) {
      args[0] = { ...(first as object), query_timeout: this.localBudget };
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
        return this.endOfTransactionFailed(statement, err);
      }) as never;
    }
    return out as never;
  }

  /**
   * adapter-pg hands a transaction's connection back to the pool only after
   * its COMMIT or ROLLBACK statement succeeded: when that statement fails
   * (the connection timed out or broke), the connection would stay checked out
   * for ever, and a few such failures exhaust the pool. So:
   * - a ROLLBACK that fails closes the connection and reports success (PostgreSQL
   *   rolls back whatever a closed session had open), and the adapter releases it;
   * - a COMMIT that fails closes the connection, gives it back to the pool as
   *   broken (the pool drops it), and still fails: the commit did not happen.
   */
  private endOfTransactionFailed(statement: string, err: Error): unknown {
    if (statement === 'ROLLBACK') {
      void this.end().catch(() => undefined);
      return { command: 'ROLLBACK', rowCount: 0, rows: [], fields: [] };
    }
    if (statement === 'COMMIT') {
      void this.end().catch(() => undefined);
      const release = (this as { release?: (err?: Error) => void }).release;
      try {
        release?.call(this, err);
      } catch {
        /* already given back */
      }
    }
    throw err;
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
