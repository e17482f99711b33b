import pg from 'pg';

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
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      const callback = last as (err: Error | null, res: unknown) => void;
      args[args.length - 1] = (err: Error | null, res: unknown) => callback(err, err ? res : reportNameAsText(res));
      return (super.query as (...a: unknown[]) => never)(...args);
    }
    const out = (super.query as (...a: unknown[]) => unknown)(...args);
    if (out && typeof (out as Promise<unknown>).then === 'function') {
      return (out as Promise<unknown>).then(reportNameAsText) as never;
    }
    return out as never;
  }
}

export interface PgPoolOptions {
  max?: number;
  connectionTimeoutMillis?: number;
  statementTimeoutMillis?: number;
}

export function createPgPool(connectionString: string, max = 10, options: PgPoolOptions = {}): pg.Pool {
  return new pg.Pool({
    connectionString,
    max,
    Client: NameAsTextClient,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 2000,
    ...(options.statementTimeoutMillis ? { statement_timeout: options.statementTimeoutMillis } : {}),
  });
}
