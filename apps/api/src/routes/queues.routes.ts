import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { emptyBody, emptyQuery, responses } from '@holdfast/contracts';
import { AppError, errors } from '@holdfast/domain';
import { endpointOf, type Endpoint } from '../endpoint';
import type { TokenVerifier } from '../middleware/token-verifier';
import { forbidden, unauthorized } from '../response-docs';

export const QUEUES_PATH = '/admin/queues' as const;

/** The refusal as a small page (no scripts) for a browser that opened the dashboard without the admin role. */
class HtmlRefusal extends Error {
  constructor(readonly refusal: AppError) {
    super(refusal.message);
  }
}

function refusalPage(err: HtmlRefusal, res: Response): void {
  res
    .status(err.refusal.status)
    .type('html')
    .send(
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Queue dashboard: admins only</title>' +
        '<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1f2330}' +
        'code{background:#f2f4f7;padding:0 .25rem}</style></head><body>' +
        `<h1>Queue dashboard: admins only</h1><p>${err.refusal.status === 401 ? 'You are not signed in as an admin.' : 'Your role may not open this dashboard.'}</p>` +
        '<p>Open it from the <a href="/admin">admin console</a> (the <em>Queue dashboard</em> button), ' +
        'or send an admin bearer token.</p>' +
        `<p><code>${err.refusal.code}</code></p></body></html>`,
    );
}
const COOKIE = 'hf_queues';
/** The queue dashboard's cookie lasts at most this long (and never past the token's own expiry). */
const COOKIE_MAX_AGE_SECONDS = 3600;

function cookieToken(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k !== COOKIE) continue;
    // A cookie that is not valid percent-encoding carries no token: 401 as without one.
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface QueueDeps {
  queues: Queue[];
  verifier: TokenVerifier;
  /**
   * Demo mode serves plain http on loopback, where a `Secure` cookie would not
   * come back; anywhere else the cookie is `Secure` (a TLS-terminating proxy in
   * front makes the API's own `req.secure` false, so that cannot decide it).
   */
  demoMode: boolean;
}

/** The dashboard: a bearer header or the cookie, its role checked on every request; its pages and API under its path. */
function mountDashboard(r: Router, endpoint: Endpoint<QueueDeps>, { queues, verifier }: QueueDeps): void {
  const roles = endpoint.roles!;
  const adapter = new ExpressAdapter();
  adapter.setBasePath(QUEUES_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter: adapter, options: { uiConfig: { boardTitle: 'holdfast queues' } } });
  const board = adapter.getRouter() as RequestHandler;
  const authorize = async (req: Request) => {
    const header = req.headers.authorization ?? (cookieToken(req) ? `Bearer ${cookieToken(req)}` : undefined);
    try {
      const principal = await verifier.verify(header);
      if (!roles.includes(principal.role)) throw errors.forbidden();
    } catch (err) {
      // A person who opened the address gets a page saying where to start; API calls get the error body.
      if (req.accepts(['json', 'html']) === 'html' && err instanceof AppError) throw new HtmlRefusal(err);
      throw err;
    }
  };
  const guard = (req: Request, res: Response, next: NextFunction) => {
    authorize(req).then(() => {
      // The board's page runs its own bundled scripts and styles from this path.
      res.setHeader('Content-Security-Policy', "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:");
      res.setHeader('Cache-Control', 'no-store');
      // A plain function, not the board's router: the route table lists the dashboard once, as GET /admin/queues.
      board(req, res, next);
    }, next);
  };
  // The dashboard's entry; its pages, assets and API calls live under it.
  r.get(endpoint.path, (req, res, next) => {
    authorize(req).then(() => {
      if (req.path.endsWith('/')) return next();
      res.redirect(302, `${QUEUES_PATH}/`);
    }, next);
  });
  r.use(QUEUES_PATH, guard);
  r.use(QUEUES_PATH, (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof HtmlRefusal) refusalPage(err, res);
    else next(err);
  });
}

const endpoint = endpointOf<QueueDeps>();

/**
 * The BullMQ queues on @bull-board/express at /admin/queues, for admins only. A
 * browser cannot send a bearer header when it opens a page, so the admin page
 * trades its token for an HttpOnly, SameSite=Strict cookie (and `Secure`
 * outside demo mode) scoped to the dashboard's path (POST /v1/admin/queues/session); the dashboard accepts that
 * cookie or a bearer header, and verifies the token and its admin role on every
 * request, its API calls included.
 */
export const QUEUE_ENDPOINTS = [
  endpoint({
    method: 'post', path: '/v1/admin/queues/session', operationId: 'adminQueuesSession', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    body: emptyBody,
    summary: 'Trade the admin\'s bearer token for an HttpOnly, SameSite=Strict cookie scoped to /admin/queues (at most an hour, never past the token), so a browser can open the queue dashboard.',
    responses: {
      200: { description: '`{url, expiresInSeconds}` and a Set-Cookie header', schema: responses.queuesSession },
    },
    handler: ({ req, res, deps }) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')![1]!;
      const exp = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { exp?: number }).exp;
      const maxAge = Math.max(0, Math.min(COOKIE_MAX_AGE_SECONDS, exp ? exp - Math.floor(Date.now() / 1000) : COOKIE_MAX_AGE_SECONDS));
      res.setHeader('Set-Cookie', [
        `${COOKIE}=${encodeURIComponent(token)}; Path=${QUEUES_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${!deps.demoMode || req.secure ? '; Secure' : ''}`,
      ]);
      res.json({ url: `${QUEUES_PATH}/`, expiresInSeconds: maxAge });
    },
  }),
  endpoint({
    method: 'get', path: QUEUES_PATH, operationId: 'adminQueues', tag: 'Pages', roles: ['admin'],
    summary: 'The BullMQ queues on @bull-board/express (its pages and API live under this path); a bearer header or the cookie from /v1/admin/queues/session.',
    responses: { 200: { description: 'HTML', contentType: 'text/html' }, 302: { description: 'to /admin/queues/' }, 401: unauthorized, 403: forbidden },
    mount: mountDashboard,
  }),
];
