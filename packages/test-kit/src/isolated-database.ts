import pg from 'pg';

/**
 * Suites that run a worker (sweeps and reconciliation see a whole database), or
 * that count every row of a table, get their own copy of the test database.
 */
export const ISOLATED_DATABASES = ['reconcile', 'expiry', 'flushall', 'outage', 'crash', 'sigstop', 'startup', 'fuzz', 'terminal', 'backlog', 'gacounters', 'bestflush', 'processes', 'lease', 'claims', 'webhooks', 'hookconfirm', 'tracing', 'hookkill', 'waitlist', 'emptyplans', 'retention', 'retentionjob', 'clock', 'failover', 'machinecpu', 'runcleanup', 'leftovers'] as const;

export function isolatedDatabaseUrl(name: (typeof ISOLATED_DATABASES)[number]): string {
  return copyUrl(process.env.DATABASE_URL!, name);
}

/** The URL of the copy `name` of the database at `url`: its name with `_<name>` added. */
function copyUrl(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `${u.pathname}_${name}`;
  return u.toString();
}

const databaseName = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/** Runs `work` on a connection to the server's `postgres` database (CREATE and DROP DATABASE cannot run in the database they name). */
async function asAdmin(url: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Makes each copy fresh from the database at `url` (its template): what an
 * earlier run left in a copy is dropped with it. Run by the global setup, once
 * the template is migrated.
 */
export async function recreateIsolatedDatabases(url: string, names: readonly string[] = ISOLATED_DATABASES): Promise<void> {
  const template = databaseName(url);
  await asAdmin(url, async (client) => {
    for (const name of names) {
      const db = databaseName(copyUrl(url, name));
      await client.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${db}" TEMPLATE "${template}"`);
    }
  });
}

/** Drops the copies, with whatever their suites wrote there. Run by the global teardown, so a run leaves no copy behind. */
export async function dropIsolatedDatabases(url: string, names: readonly string[] = ISOLATED_DATABASES): Promise<void> {
  await asAdmin(url, async (client) => {
    for (const name of names) await client.query(`DROP DATABASE IF EXISTS "${databaseName(copyUrl(url, name))}" WITH (FORCE)`);
  });
}
