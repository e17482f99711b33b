import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { Queue } from 'bullmq';
import type { Config } from '@holdfast/config';
import type { DomainContext } from '@holdfast/domain';
import type { ChangeFeed } from '@holdfast/hold-store';
import { webDistDir } from '@holdfast/web';
import { cors } from './middleware/cors';
import { requestTelemetry } from './middleware/request-telemetry';
import { staticHeaders } from './middleware/static-headers';
import { errorHandler, notFound } from './middleware/errors';
import { idempotent } from './middleware/idempotency';
import { TokenVerifier } from './middleware/token-verifier';
import type { Endpoint } from './endpoint';
import type { Metrics } from './metrics';
import { createFastPath } from './fast-path';
import { mountEndpoints } from './mount-endpoints';
import { buildOpenApi } from './openapi';
import { renderDocs } from './docs-page';
import { ROUTE_GROUPS, type RouteGroup, type RouteGroupDeps } from './route-table';
import type { RenderedDocs } from './routes/docs.routes';
import type { ReadinessChecks } from './routes/health.routes';
import type { ReconcileDeps } from './routes/reconcile.routes';
import { streamDeps } from './routes/stream.routes';
import { webAssets } from './routes/web.routes';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request's logger: every line carries reqId. */
    log?: Logger;
  }
}

export interface AppDeps {
  ctx: DomainContext;
  config: Pick<Config, 'jwtSecret' | 'auth' | 'demoMode' | 'stripeWebhookSecret' | 'corsOrigins' | 'stream' | 'httpFastPath'>;
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
  // request was a measurable share of a hold's CPU (`git show e877b90:docs/benchmarks.md`, "Group commit").
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
  const begin = requestTelemetry(log, metrics);
  app.use((req: Request, res: Response, next: NextFunction) => {
    req.requestId = begin(req, res, () => (req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched'), () => req.log!);
    next();
  });
  // No upgrade-insecure-requests: the pages are also opened over plain http (a LAN address with DEMO_MODE=true).
  const setStaticHeaders = staticHeaders(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }));
  const corsHeaders = cors(config.corsOrigins);
  app.use((req: Request, res: Response, next: NextFunction) => {
    setStaticHeaders(res);
    if (!corsHeaders(req, res)) next();
  });
  // No app-wide body parser: each endpoint reads its body after authorization (mount-endpoints.ts).
  // Each group of endpoints is one router, mounted in ROUTE_GROUPS' order (route-table.ts: the hot
  // paths first; every router entered costs a request a router dispatch, `git show 0a3860d:docs/benchmarks.md`, issue 12),
  // given its dependencies here; null leaves a group out of this app (and out of its document).
  // Bearer tokens: HS256 against JWT_SECRET and/or an OIDC issuer's JWKS (middleware/token-verifier.ts).
  // The issuer's discovery is read now, in the background: a failure is logged and retried by the
  // tokens that need it (they answer 503 meanwhile); it never stops the API.
  const verifier = new TokenVerifier({ jwtSecret: config.jwtSecret, auth: config.auth, log });
  void verifier.issuer?.warmUp();
  app.locals.tokenVerifier = verifier;
  const docs: RenderedDocs = { json: '', html: '' };
  const webhook = { ctx, webhookSecret: config.stripeWebhookSecret };
  const groups: { [G in RouteGroup]: RouteGroupDeps[G] | null } = {
    events: ctx,
    orders: ctx,
    holds: ctx,
    waitlist: ctx,
    waitingRoom: ctx,
    // Stripe signs the exact bytes it sends: its webhook reads the raw body itself.
    webhooks: webhook,
    health: { checks: deps.checks, metrics },
    docs,
    demoAuth: config.demoMode && config.jwtSecret ? { jwtSecret: config.jwtSecret } : null,
    admin: ctx,
    adminWebhooks: ctx,
    reconcile: deps.reconcile ?? null,
    queues: deps.queues ? { queues: deps.queues, verifier, demoMode: config.demoMode } : null,
    demoPayment: config.demoMode ? webhook : null,
    stream: streamDeps(ctx, deps.feed, config.stream, metrics.stream),
    web: { distDir: webDistDir },
  };
  const mount = { verifier, idempotency: (leaseMs?: number) => idempotent(ctx.idempotency, log, leaseMs) };
  const mounted: { endpoint: Endpoint; deps: unknown }[] = [];
  for (const group of Object.keys(ROUTE_GROUPS) as RouteGroup[]) {
    const groupDeps = groups[group];
    if (groupDeps === null) continue;
    const endpoints: readonly Endpoint[] = ROUTE_GROUPS[group];
    for (const endpoint of endpoints) mounted.push({ endpoint, deps: groupDeps });
    app.use(mountEndpoints(endpoints, groupDeps, mount));
  }
  app.use('/assets', webAssets(webDistDir));
  // The document lists what this app serves, rendered once from the same entries.
  const doc = buildOpenApi(mounted.map(({ endpoint }) => endpoint));
  docs.json = JSON.stringify(doc);
  docs.html = renderDocs(doc);

  app.use(notFound);
  app.use(errorHandler(log));

  // Plain requests to the hot endpoints are answered before Express's own handling (fast-path.ts).
  const fast = createFastPath(mounted, { verifier, log, begin, staticHeaders: setStaticHeaders.list, corsHeaders, idempotency: ctx.idempotency });
  app.locals.fastPath = fast.stats;
  if (config.httpFastPath) {
    type Handle = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;
    const handled = app as unknown as { handle: Handle };
    const expressHandle = handled.handle.bind(app);
    handled.handle = (req, res, next) => {
      if (!fast.serve(req, res)) expressHandle(req, res, next);
    };
  }
  return app;
}
