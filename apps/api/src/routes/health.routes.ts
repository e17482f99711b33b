import { Router } from 'express';
import type { Metrics } from '../metrics';

export interface ReadinessChecks {
  postgres: () => Promise<unknown>;
  redis: () => Promise<unknown>;
}

const withTimeout = (p: Promise<unknown>, ms: number) =>
  Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref())]);

export function healthRoutes(checks: ReadinessChecks, metrics: Metrics): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  r.get('/readyz', async (_req, res) => {
    const [pg, redis] = await Promise.allSettled([withTimeout(checks.postgres(), 1500), withTimeout(checks.redis(), 1500)]);
    const down = [pg.status === 'rejected' ? 'PostgreSQL' : null, redis.status === 'rejected' ? 'Redis' : null].filter(
      (x): x is string => x !== null,
    );
    if (!down.length) {
      res.json({ status: 'ready' });
      return;
    }
    res.status(503).json({
      error: { code: 'SERVICE_UNAVAILABLE', message: `${down.join(' and ')} ${down.length > 1 ? 'are' : 'is'} not answering.`, details: { down } },
    });
  });
  r.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.text());
  });
  return r;
}
