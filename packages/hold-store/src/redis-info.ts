import type { RedisClient } from './redis-client';

/**
 * Redis's eviction policy (CONFIG GET maxmemory-policy), or null when the
 * server refuses CONFIG (some managed services). Anything but `noeviction`
 * may silently drop leases and queued jobs under memory pressure.
 */
export async function maxmemoryPolicy(redis: RedisClient): Promise<string | null> {
  try {
    const reply = (await redis.config('GET', 'maxmemory-policy')) as string[];
    return reply[1] ?? null;
  } catch {
    return null;
  }
}
