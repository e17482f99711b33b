// The hold store runs its scripts by SHA (EVALSHA); a Redis that no longer has
// them (SCRIPT FLUSH, a restart) answers NOSCRIPT, and the store then sends the
// script itself (EVAL), which loads it again. On a redis-server of the test's
// own: SCRIPT FLUSH on the shared one would touch every other user's scripts.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { HoldStore } from '../src';
import { RedisProcess } from '@holdfast/test-kit';

let server: RedisProcess | undefined;
let redis: Redis;
beforeAll(async () => {
  server = await RedisProcess.start();
  redis = new Redis(server.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

const scriptCount = async () => {
  const info = await redis.info('memory');
  return Number(/number_of_cached_scripts:(\d+)/.exec(info)?.[1] ?? NaN);
};

test('when Redis has forgotten the scripts (SCRIPT FLUSH), then the next call loads its script again and answers as before', async () => {
  const store = new HoldStore(redis);
  const eventId = randomUUID();
  const customer = { eventId, customerId: 'c-1', rateLimit: 5, rateWindowMs: 60_000 };
  // Each call counts one request of the customer's rate limit: null while under it.
  expect(await store.countHoldRequest(customer)).toBeNull();
  expect(await scriptCount()).toBeGreaterThan(0);

  await redis.script('FLUSH');
  expect(await scriptCount()).toBe(0);
  expect(await store.countHoldRequest(customer)).toBeNull();
  // The script ran (the counter went on from where it was) and is loaded again.
  expect(await scriptCount()).toBe(1);
  for (let i = 0; i < 3; i += 1) expect(await store.countHoldRequest(customer)).toBeNull();
  expect(await store.countHoldRequest(customer)).toMatchObject({ retryAfterMs: expect.any(Number) });
});

test('when a script fails with an error of its own (not NOSCRIPT), then the call rejects with it and is not sent again', async () => {
  const store = new HoldStore(redis);
  const key = `{ev:${randomUUID()}}:rl:c-2`;
  await redis.set(key, 'not a counter');
  const calls = async (command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await redis.info('commandstats'))?.[1] ?? 0);
  const before = { evalsha: await calls('evalsha'), eval: await calls('eval') };
  const err = await store.countHoldRequest({ eventId: key.slice(4, 40), customerId: 'c-2', rateLimit: 5, rateWindowMs: 60_000 }).then(() => null, (e: unknown) => e);
  expect(String((err as Error)?.message)).toMatch(/not an integer/);
  // One EVALSHA, which failed; no EVAL after it.
  expect({ evalsha: await calls('evalsha'), eval: await calls('eval') }).toEqual({ evalsha: before.evalsha + 1, eval: before.eval });
});
