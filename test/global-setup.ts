import './test-env';
import pg from 'pg';
import { ensureDatabase, migrateDatabase } from '../packages/db/src/admin';
import { ISOLATED_DATABASES, isolatedDatabaseUrl } from '../packages/test-kit/src/isolated-database';
import { snapshot, type Snapshot } from '../packages/test-kit/src/leftovers';

/**
 * Creates the test database when missing and applies the migrations, once per
 * run; then clones it for the suites that run a worker. A worker's sweep and
 * reconciliation look at every event in its database, so those suites get a
 * database of their own and never touch another suite's holds. Last, it notes
 * what Redis and the test database hold, for global-teardown to compare.
 */
export default async function globalSetup(): Promise<void> {
  const url = process.env.DATABASE_URL!;
  await ensureDatabase(url);
  await migrateDatabase(url);
  const template = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    for (const name of ISOLATED_DATABASES) {
      const db = decodeURIComponent(new URL(isolatedDatabaseUrl(name)).pathname.slice(1));
      await client.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${db}" TEMPLATE "${template}"`);
    }
  } finally {
    await client.end();
  }
  (globalThis as { holdfastBeforeRun?: Snapshot }).holdfastBeforeRun = await snapshot(url, process.env.REDIS_URL!);
}
