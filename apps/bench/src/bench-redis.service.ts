import Redis from 'ioredis';

/** The bench's Redis; all of its keys start with `bench:`. */
export function benchRedisUrl(): string {
  return process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
}

export function redisTarget(url: string): { host: string; port: number; db: number } {
  const parsed = new URL(url);
  const db = Number(parsed.pathname.replace(/^\//, '') || '0');
  return { host: parsed.hostname || '127.0.0.1', port: Number(parsed.port || '6379'), db: Number.isInteger(db) ? db : 0 };
}

/** Deletes every key matching `pattern` (which must start with `bench:`), returns how many. */
export async function deleteKeys(url: string, pattern: string): Promise<number> {
  if (!pattern.startsWith('bench:')) throw new Error(`refusing to delete keys outside bench: (${pattern})`);
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

export async function redisVersion(url: string): Promise<string> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const info = await redis.info('server');
    return /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  } finally {
    redis.disconnect();
  }
}

/** `used_memory` from INFO memory, in bytes. */
export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}
