import { snapshotBeforeRun, type Snapshot } from '@holdfast/test-kit';
import { E2E_DATABASE_URL, E2E_REDIS_URL } from './server';

/**
 * Notes what the browser tests' database and Redis index hold before the run,
 * for global-teardown to remove what the run made and check nothing is left.
 * Against a server of someone else's (E2E_BASE_URL), nothing is noted.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.E2E_BASE_URL) return;
  (globalThis as { holdfastE2eBeforeRun?: Snapshot }).holdfastE2eBeforeRun = await snapshotBeforeRun(E2E_DATABASE_URL, E2E_REDIS_URL);
}
