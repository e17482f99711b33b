import { Redis } from 'ioredis';
import pino from 'pino';
import { loadConfig } from '@holdfast/config';
import { startWorker } from '../src';
import { RedisProcess, isolatedDatabaseUrl, logLines, startApi } from '@holdfast/test-kit';

test('when Redis may evict keys (maxmemory-policy not noeviction), then the API and the worker warn loudly at start', async () => {
  const { sink, lines } = logLines();
  const redis = await RedisProcess.start();
  const probe = new Redis(redis.url);
  try {
    await probe.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const env = { DATABASE_URL: isolatedDatabaseUrl('startup'), REDIS_URL: redis.url, LOG_LEVEL: 'info' };
    const api = await startApi(env, { logTo: sink });
    await api.close();
    const config = loadConfig({ ...process.env, ...env });
    const worker = await startWorker(config, { log: pino({ level: 'info' }, sink), metricsPort: null });
    await worker.close();
    const warnings = lines.map((l) => JSON.parse(l) as { level: number; msg: string; maxmemoryPolicy?: string })
      .filter((l) => l.level === 40 && /maxmemory-policy/.test(l.msg));
    expect(warnings).toHaveLength(2);
    expect(warnings.every((w) => w.maxmemoryPolicy === 'allkeys-lru' && /noeviction/.test(w.msg))).toBe(true);
  } finally {
    probe.disconnect();
    await redis.stop();
  }
});
