import { Client, Pool } from 'pg';

/** The bench's own database; never the application's. */
const BENCH_DATABASE_NAME = 'holdfast_bench';

export function benchDatabaseUrl(): string {
  return process.env.BENCH_DATABASE_URL ?? `postgresql://postgres@127.0.0.1:5432/${BENCH_DATABASE_NAME}`;
}

/** The same server and credentials as `url`, but another database. */
function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

/** Creates the database named in `url` when it does not exist (safe under concurrent callers). */
export async function ensureDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`refusing to create database with unusual name "${name}"`);
  const admin = new Client({ connectionString: withDatabase(url, 'postgres') });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } catch (error) {
        // 42P04 duplicate_database, 23505 unique_violation: someone else created it first.
        const code = (error as { code?: string }).code;
        if (code !== '42P04' && code !== '23505') throw error;
      }
    }
  } finally {
    await admin.end();
  }
}

/**
 * VACUUM (ANALYZE) of the whole bench database, returning the seconds it took.
 * Every part creates and drops events (hundreds of thousands of rows); where the
 * server runs without autovacuum (this project's CI machines do), their dead rows
 * stay and every later index scan steps over them, so each run measured slower
 * than the one before (2.3 million dead rows in `holds` after a day of runs, and
 * a 500 ms query timeout in a warm-up: `git show 5aa269b:docs/benchmarks.md`, issue 12, fourth pass).
 * The runner calls it before each part.
 */
export async function vacuumDatabase(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const started = process.hrtime.bigint();
  try {
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * Before a part: the database is made when it does not exist yet (the API's may be
 * another database, BENCH_API_DATABASE_URL, that nothing has created on a new
 * machine), then vacuumed (vacuumDatabase says why). Returns the vacuum's seconds.
 */
export async function prepareDatabase(url: string): Promise<number> {
  await retryWhileTooManyClients(() => ensureDatabase(url));
  return vacuumDatabase(url);
}

interface SchemaPoolOptions {
  url: string;
  schema: string;
  max: number;
  /** How long an idle session stays open (pg's default 10 s; 0: until the pool ends). */
  idleTimeoutMillis?: number;
}

/**
 * A pool whose connections all use `schema` as their search path, so that a
 * run's tables never collide with another run's (the test uses its own schema).
 */
export async function createSchemaPool(options: SchemaPoolOptions): Promise<Pool> {
  assertIdentifier(options.schema);
  const setup = new Client({ connectionString: options.url });
  await setup.connect();
  try {
    await setup.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);
  } finally {
    await setup.end();
  }
  return new Pool({
    connectionString: options.url,
    max: options.max,
    ...(options.idleTimeoutMillis === undefined ? {} : { idleTimeoutMillis: options.idleTimeoutMillis }),
    options: `-c search_path=${options.schema}`,
  });
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  assertIdentifier(schema);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export function assertIdentifier(name: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a safe SQL identifier: "${name}"`);
}

/** PostgreSQL's too_many_connections: the server is shared, other sessions may hold most of its connections for a while. */
function isTooManyClients(error: unknown): boolean {
  const e = error as { code?: string; message?: string; stderr?: string };
  return e?.code === '53300' || /too many clients/i.test(`${e?.message ?? ''} ${e?.stderr ?? ''}`);
}

/** Runs `work`, waiting and trying again (up to `waitMs` in all) while the server has no connection slot left. */
export async function retryWhileTooManyClients<T>(work: () => Promise<T>, waitMs = 90_000, onWait?: (attempt: number) => void): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (!isTooManyClients(error) || Date.now() >= deadline) throw error;
      onWait?.(attempt);
      await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 500 * attempt)));
    }
  }
}
