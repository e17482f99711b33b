import { randomUUID } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response, type Router } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { Queue } from 'bullmq';
import type { Config } from '@holdfast/config';
import type { DomainContext } from '@holdfast/domain';
import { IdempotencyStore, type ChangeFeed } from '@holdfast/hold-store';
import { cors } from './middleware/cors';
import { staticHeaders } from './middleware/static-headers';
import { errorHandler, notFound } from './middleware/errors';
import { idempotent } from './middleware/idempotency';
import type { Endpoint } from './endpoint';
import type { Metrics } from './metrics';
import { mountEndpoints } from './mount-endpoints';
import { buildOpenApi } from './openapi';
import { renderDocs } from './docs-page';
import { ADMIN_ENDPOINTS } from './routes/admin.routes';
import { DEMO_AUTH_ENDPOINTS } from './routes/auth.routes';
import { DOCS_ENDPOINTS, type RenderedDocs } from './routes/docs.routes';
import { EVENT_ENDPOINTS } from './routes/events.routes';
import { HEALTH_ENDPOINTS, type ReadinessChecks } from './routes/health.routes';
import { HOLD_ENDPOINTS } from './routes/holds.routes';
import { RECONCILE_ENDPOINTS, type ReconcileDeps } from './routes/reconcile.routes';
import { QUEUE_ENDPOINTS } from './routes/queues.routes';
import { ORDER_ENDPOINTS } from './routes/orders.routes';
import { DEMO_PAYMENT_ENDPOINTS, WEBHOOK_ENDPOINTS } from './routes/webhooks.routes';
import { STREAM_ENDPOINTS, streamDeps } from './routes/stream.routes';
import { WEB_ENDPOINTS, webRoutes } from './routes/web.routes';

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
  // No app-wide body parser: each endpoint reads its body after authorization (mount-endpoints.ts).
  // Each group of endpoints (declared once, in its routes file) is one router. Their paths do not
  // overlap, so their order decides only how many routers a request walks through before its own:
  // the hot paths (holds, confirms) come first. Every router entered costs the request a router
  // dispatch (docs/benchmarks.md, issue 12). route-table.ts lists the groups in this order.
  const idempotency = idempotent(new IdempotencyStore(ctx.store.redis), log);
  const mount = { jwtSecret: config.jwtSecret, idempotency };
  const docs: RenderedDocs = { json: '', html: '' };
  const mounted: Endpoint[] = [];
  const use = <D>(endpoints: readonly Endpoint<D>[], groupDeps: D) => useRouter(endpoints, mountEndpoints(endpoints, groupDeps, mount));
  const useRouter = (endpoints: readonly Endpoint[], router: Router) => {
    mounted.push(...endpoints);
    app.use(router);
  };
  use(EVENT_ENDPOINTS, ctx);
  use(ORDER_ENDPOINTS, ctx);
  use(HOLD_ENDPOINTS, ctx);
  // Stripe signs the exact bytes it sends: its webhook reads the raw body itself.
  use(WEBHOOK_ENDPOINTS, { ctx, webhookSecret: config.stripeWebhookSecret });
  use(HEALTH_ENDPOINTS, { checks: deps.checks, metrics });
  use(DOCS_ENDPOINTS, docs);
  if (config.demoMode) use(DEMO_AUTH_ENDPOINTS, { jwtSecret: config.jwtSecret });
  use(ADMIN_ENDPOINTS, ctx);
  if (deps.reconcile) use(RECONCILE_ENDPOINTS, deps.reconcile);
  if (deps.queues) use(QUEUE_ENDPOINTS, { queues: deps.queues, jwtSecret: config.jwtSecret });
  if (config.demoMode) use(DEMO_PAYMENT_ENDPOINTS, { ctx, webhookSecret: config.stripeWebhookSecret });
  use(STREAM_ENDPOINTS, streamDeps(ctx, deps.feed, config.stream, metrics.stream));
  useRouter(WEB_ENDPOINTS, webRoutes()); // the pages, and their assets
  // The document lists what this app serves, rendered once from the same entries.
  const doc = buildOpenApi(mounted);
  docs.json = JSON.stringify(doc);
  docs.html = renderDocs(doc);

  app.use(notFound);
  app.use(errorHandler(log));
  return app;
}
