import { responses } from '@holdfast/contracts';
import { endpointOf } from '../endpoint';
import type { Metrics } from '../metrics';
import { err } from '../response-docs';

export interface ReadinessChecks {
  postgres: () => Promise<unknown>;
  redis: () => Promise<unknown>;
}

const withTimeout = (p: Promise<unknown>, ms: number) =>
  Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref())]);

const endpoint = endpointOf<{ checks: ReadinessChecks; metrics: Metrics }>();

export const HEALTH_ENDPOINTS = [
  endpoint({
    method: 'get', path: '/healthz', operationId: 'health', tag: 'Operations', summary: 'The process runs.',
    responses: { 200: { description: 'ok', schema: responses.health } },
    handler: ({ res }) => {
      res.json({ status: 'ok' });
    },
  }),
  endpoint({
    method: 'get', path: '/readyz', operationId: 'ready', tag: 'Operations', summary: 'PostgreSQL and Redis both answer.',
    responses: { 200: { description: 'ready', schema: responses.ready }, 503: err('SERVICE_UNAVAILABLE naming what is down') },
    handler: async ({ res, deps: { checks } }) => {
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
    },
  }),
  endpoint({
    method: 'get', path: '/metrics', operationId: 'metrics', tag: 'Operations', summary: 'Prometheus text exposition.',
    responses: { 200: { description: 'metrics', contentType: 'text/plain' } },
    handler: async ({ res, deps: { metrics } }) => {
      res.setHeader('Content-Type', metrics.registry.contentType);
      res.send(await metrics.text());
    },
  }),
];
