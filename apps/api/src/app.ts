import { randomUUID } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { Queue } from 'bullmq';
import type { Config } from '@holdfast/config';
import type { DomainContext } from '@holdfast/domain';
import type { ChangeFeed } from '@holdfast/hold-store';
import { cors } from './middleware/cors';
import { staticHeaders } from './middleware/static-headers';
import { errorHandler, notFound } from './middleware/errors';
import { idempotent } from './middleware/idempotency';
import { adminRoutes } from './routes/admin.routes';
import type { Metrics } from './metrics';
import { demoAuthRoutes } from './routes/auth.routes';
import { docsRoutes } from './routes/docs.routes';
import { eventRoutes } from './routes/events.routes';
import { healthRoutes, type ReadinessChecks } from './routes/health.routes';
import { holdRoutes } from './routes/holds.routes';
import { reconcileRoutes, type ReconcileDeps } from './routes/reconcile.routes';
import { queueRoutes } from './routes/queues.routes';
import { orderRoutes } from './routes/orders.routes';
import { demoPaymentRoutes, webhookRoutes } from './routes/webhooks.routes';
import { streamRoutes } from './routes/stream.routes';
import { webRoutes } from './routes/web.routes';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request's logger: every line carries reqId. */
    log?: Logger;
  }
}

export interface AppDeps {
  ctx: DomainContext;
  config: Pick<Config, 'jwtSecret' | 'demoMode' | 'stripeWebhookSecret' | 'corsOrigins' | 'stream'>;
  log: Logger;
  checks: ReadinessChecks;
  metrics: Metrics;
  /** The reconciliation queue and report store (admin endpoints); absent in apps without a worker. */
  reconcile?: ReconcileDeps;
  feed: ChangeFeed;
  /** The BullMQ queues shown on /admin/queues; absent in apps without them. */
  queues?: Queue[];
}

/** The HTTP app: routes parse with zod and call the domain; errors go to one middleware. */
export function createApp(deps: AppDeps): Express {
  const { ctx, config, log, metrics } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', false);

  // The request's logger is made only when something logs (a getter on this app's request
  // prototype): on the hot path nothing logs at the default level, and a pino child per
  // request was a measurable share of a hold's CPU (docs/benchmarks.md, "Group commit").
  const childLogs = new WeakMap<Request, Logger>();
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request): Logger {
      let child = childLogs.get(this);
      if (!child) childLogs.set(this, (child = log.child({ reqId: this.requestId })));
      return child;
    },
    set(this: Request, value: Logger) {
      childLogs.set(this, value);
    },
  });
  // One labelled histogram child per method, route and status, looked up by a string key.
  const durations = new Map<string, { observe(v: number): void }>();
  const debugEnabled = () => log.isLevelEnabled('debug');
  app.use((req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    req.requestId = typeof incoming === 'string' && /^[\w\-.]{1,100}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.requestId);
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      const status = res.statusCode;
      const key = `${req.method} ${route} ${status}`;
      let histogram = durations.get(key);
      if (!histogram) durations.set(key, (histogram = metrics.httpDuration.labels({ method: req.method, route, status: String(status) })));
      histogram.observe(seconds);
      if (debugEnabled()) req.log!.debug({ method: req.method, route, status, ms: Math.round(seconds * 1000) }, 'request');
    });
    next();
  });
  // No upgrade-insecure-requests: the pages are also opened over plain http (a LAN address with DEMO_MODE=true).
  app.use(staticHeaders(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } })));
  app.use(cors(config.corsOrigins));
  // No app-wide body parser: each route reads its body after authorization (middleware/body.ts).
  // The routers' paths do not overlap, so their order decides only how many routers a request
  // walks through before its own: the hot paths (holds, confirms) come first. Every router entered
  // costs the request a router dispatch (docs/benchmarks.md, issue 12).
  const idempotency = idempotent(ctx.idempotency, log);
  app.use(eventRoutes(ctx, config.jwtSecret, idempotency));
  app.use(orderRoutes(ctx, config.jwtSecret, idempotency));
  app.use(holdRoutes(ctx, config.jwtSecret));
  // Stripe signs the exact bytes it sends: its webhook reads the raw body itself.
  app.use(webhookRoutes(ctx, config.stripeWebhookSecret));

  app.use(healthRoutes(deps.checks, metrics));
  app.use(docsRoutes({ demoMode: config.demoMode }));
  if (config.demoMode) app.use(demoAuthRoutes(config.jwtSecret));
  app.use(adminRoutes(ctx, config.jwtSecret));
  if (deps.reconcile) app.use(reconcileRoutes(deps.reconcile, config.jwtSecret));
  if (deps.queues) app.use(queueRoutes(deps.queues, config.jwtSecret));
  if (config.demoMode) app.use(demoPaymentRoutes(ctx, config.jwtSecret, config.stripeWebhookSecret));
  app.use(streamRoutes(ctx, deps.feed, config.stream, metrics.stream));
  app.use(webRoutes());

  app.use(notFound);
  app.use(errorHandler(log));
  return app;
}
