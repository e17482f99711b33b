// An Idempotency-Key's claim: its lease, its takeover once the lease has lapsed
// (the request holding it died, or could not store its answer), and its seed,
// which names the hold a hold request takes and is kept across a takeover.
import { randomUUID } from 'node:crypto';
import { IdempotencyStore } from '../src';
import { sleep } from '@holdfast/test-kit';
import { redis, useHoldStore } from './hold-store.fixture';

const made: string[] = [];
// Declared before useHoldStore's own afterAll, which closes the connection.
afterAll(async () => {
  if (made.length) await redis.del(...made);
});
useHoldStore();

// Long enough that a call right after a claim finds it running, even on a loaded machine.
const LEASE_MS = 1000;
let idempotency: IdempotencyStore;
beforeAll(() => {
  idempotency = new IdempotencyStore(redis, LEASE_MS);
});

function newKey() {
  const principal = `customer:${randomUUID()}`;
  const key = `k-${randomUUID()}`;
  made.push(IdempotencyStore.redisKey(principal, key));
  return { principal, key, redisKey: IdempotencyStore.redisKey(principal, key) };
}

async function started(principal: string, key: string, fp = 'fp') {
  const claim = await idempotency.begin(principal, key, fp);
  if (claim.kind !== 'started') throw new Error(`expected the claim, got ${claim.kind}`);
  return claim;
}

test('when a key is new, then its claim has a seed of 24 hex digits, is not taken over, and its record outlives the lease', async () => {
  const { principal, key, redisKey } = newKey();
  const claim = await started(principal, key);
  expect(claim.seed).toMatch(/^[0-9a-f]{24}$/);
  expect(claim.takenOver).toBe(false);
  expect(claim.seed).not.toBe(claim.token);
  // The seed must be there for a retry after the lease: the record is kept (a day, as an answer).
  expect(await redis.pttl(redisKey)).toBeGreaterThan(86_000_000);
  const another = newKey();
  expect((await started(another.principal, another.key)).seed).not.toBe(claim.seed);
});

test('when a request with the key comes while the lease runs, then it is told RUNNING; once the lease has lapsed, then it takes the claim over with its seed', async () => {
  const { principal, key } = newKey();
  const first = await started(principal, key);
  expect(await idempotency.begin(principal, key, 'fp')).toEqual({ kind: 'running' });
  // Another body with the key is still another request, whatever the lease.
  expect(await idempotency.begin(principal, key, 'other')).toEqual({ kind: 'mismatch' });
  await sleep(LEASE_MS + 50);
  const second = await started(principal, key);
  expect({ seed: second.seed, takenOver: second.takenOver }).toEqual({ seed: first.seed, takenOver: true });
  expect(second.token).not.toBe(first.token);
  // The new owner has a lease of its own.
  expect(await idempotency.begin(principal, key, 'fp')).toEqual({ kind: 'running' });
  // The first request, answering late, stores nothing and releases nothing: the claim is not its own.
  expect(await idempotency.complete(principal, key, first.token, 201, '{"late":true}')).toBe(false);
  expect(await idempotency.release(principal, key, first.token)).toBe(false);
  expect(await idempotency.complete(principal, key, second.token, 201, '{"ok":true}')).toBe(true);
  expect(await idempotency.begin(principal, key, 'fp')).toEqual({ kind: 'done', status: 201, body: '{"ok":true}' });
});

test('when the claim is given a new seed, then a later takeover gets that seed; a request no longer holding the claim cannot give it one', async () => {
  const { principal, key } = newKey();
  const first = await started(principal, key);
  const seed = await idempotency.reseed(principal, key, first.token);
  expect(seed).toMatch(/^[0-9a-f]{24}$/);
  expect(seed).not.toBe(first.seed);
  await sleep(LEASE_MS + 50);
  const second = await started(principal, key);
  expect({ seed: second.seed, takenOver: second.takenOver }).toEqual({ seed, takenOver: true });
  expect(await idempotency.reseed(principal, key, first.token)).toBeNull();
  await sleep(LEASE_MS + 50);
  expect((await started(principal, key)).seed).toBe(seed);
});

test('when a released key is used again, then the request claims it afresh with a new seed', async () => {
  const { principal, key } = newKey();
  const first = await started(principal, key);
  expect(await idempotency.release(principal, key, first.token)).toBe(true);
  const again = await started(principal, key);
  expect(again.takenOver).toBe(false);
  expect(again.seed).not.toBe(first.seed);
});

test('when a claim was written without its lease\'s end (by a server before this one), then it stays RUNNING until its record lapses', async () => {
  const { principal, key, redisKey } = newKey();
  await redis.hset(redisKey, 'token', 'old', 'fp', 'fp', 'state', 'running');
  await redis.pexpire(redisKey, LEASE_MS);
  expect(await idempotency.begin(principal, key, 'fp')).toEqual({ kind: 'running' });
  await sleep(LEASE_MS + 50);
  const claim = await started(principal, key);
  expect(claim.takenOver).toBe(false);
});
