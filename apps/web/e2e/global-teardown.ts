import { describeLeftovers, leftovers, removeWhatTheRunMade, type Snapshot } from '@holdfast/test-kit';
import { E2E_DATABASE_URL, E2E_REDIS_URL } from './server';

/**
 * After the browser tests (their servers stopped): removes the events, rows
 * and keys the run made in the tests' own database and Redis index (a suite
 * cannot reach into the server process that made them, and the storefront
 * makes its own Idempotency-Keys), then fails the run if anything is left.
 */
export default async function globalTeardown(): Promise<void> {
  const before = (globalThis as { holdfastE2eBeforeRun?: Snapshot }).holdfastE2eBeforeRun;
  if (!before) return;
  await removeWhatTheRunMade(before, E2E_DATABASE_URL, E2E_REDIS_URL);
  const left = describeLeftovers(await leftovers(before, E2E_DATABASE_URL, E2E_REDIS_URL));
  if (left.length) throw new Error(`the browser tests left behind what removeWhatTheRunMade does not remove:\n  ${left.join('\n  ')}`);
}
