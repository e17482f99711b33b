import './test-env';
import { ensureDatabase, migrateDatabase } from '../packages/db/src/admin';

/** Creates the test database when missing and applies the migrations, once per run. */
export default async function globalSetup(): Promise<void> {
  const url = process.env.DATABASE_URL!;
  await ensureDatabase(url);
  await migrateDatabase(url);
}
