import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import pino from 'pino';
import { loadConfig } from '@holdfast/config';
import { createApiRuntime, createLogger } from '../../api/src';
import { startWorker } from '../src';
import { RedisProcess, isolatedDatabaseUrl } from '@holdfast/test-kit';

test('when Redis may evict keys (maxmemory-policy not noeviction), then the API and the worker warn loudly at start', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const redis = await RedisProcess.start();
  const probe = new Redis(redis.url);
  try {
    await probe.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const config = loadConfig({ ...process.env, DATABASE_URL: isolatedDatabaseUrl('startup'), REDIS_URL: redis.url, LOG_LEVEL: 'info' });
    const rt = await createApiRuntime(config, createLogger(config, 'holdfast-api', sink));
    await rt.close();
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
