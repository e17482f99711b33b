import './test-env';
import { dropIsolatedDatabases } from '../packages/test-kit/src/isolated-database';
import { describeLeftovers, leftovers, type Snapshot } from '../packages/test-kit/src/leftovers';

/**
 * Fails the run when its suites left rows or keys behind (see packages/test-kit/src/leftovers.ts):
 * each suite removes what it made, so runs do not pile up on a machine. The
 * suites' own copies of the test database (global-setup.ts) are dropped either way.
 */
export default async function globalTeardown(): Promise<void> {
  const before = (globalThis as { holdfastBeforeRun?: Snapshot }).holdfastBeforeRun;
  if (!before) return;
  let left: string[];
  try {
    left = describeLeftovers(await leftovers(before, process.env.DATABASE_URL!, process.env.REDIS_URL!));
  } finally {
    await dropIsolatedDatabases(process.env.DATABASE_URL!);
  }
  if (left.length) {
    throw new Error(`the tests left behind what they made (remove it in the suite that made it; \`npx jest --runInBand\` one file at a time finds it):\n  ${left.join('\n  ')}`);
  }
}
