import './test-env';
import { ensureDatabase, migrateDatabase } from '../packages/db/src/admin';
import { recreateIsolatedDatabases } from '../packages/test-kit/src/isolated-database';
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
  await recreateIsolatedDatabases(url);
  (globalThis as { holdfastBeforeRun?: Snapshot }).holdfastBeforeRun = await snapshot(url, process.env.REDIS_URL!);
}
