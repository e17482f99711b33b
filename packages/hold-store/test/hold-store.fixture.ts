/**
 * A test file's Redis connection and HoldStore on the real Redis (REDIS_URL),
 * and the events whose keys are removed after the file's tests: call
 * `useHoldStore()` once at the top of the file, then use `redis`, `store` and
 * `events` (each test file has its own copy of this module).
 */
import { Redis } from 'ioredis';
import { eventKeyPattern, HoldStore } from '../src';

export let redis: Redis;
export let store: HoldStore;
/** Events the tests made: their keys are removed after the file. */
export const events: string[] = [];

export function useHoldStore(): void {
  beforeAll(async () => {
    redis = new Redis(process.env.REDIS_URL!);
    store = new HoldStore(redis);
    await redis.ping();
  });
  afterAll(async () => {
    for (const eventId of events) {
      const keys = await redis.keys(eventKeyPattern(eventId));
      if (keys.length) await redis.del(...keys);
    }
    redis.disconnect();
  });
}
