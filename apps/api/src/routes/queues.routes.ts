import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { emptyBody, emptyQuery } from '@holdfast/contracts';
import { errors } from '@holdfast/domain';
import { requireRole, verifyToken } from '../middleware/auth';
import { parse } from '../middleware/validate';

export const QUEUES_PATH = '/admin/queues';
const COOKIE = 'hf_queues';
/** The queue dashboard's cookie lasts at most this long (and never past the token's own expiry). */
const COOKIE_MAX_AGE_SECONDS = 3600;

function cookieToken(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

/**
 * The BullMQ queues on @bull-board/express at /admin/queues, for admins only. A
 * browser cannot send a bearer header when it opens a page, so the admin page
 * trades its token for an HttpOnly, SameSite=Strict cookie scoped to the
 * dashboard's path (POST /v1/admin/queues/session); the dashboard accepts that
 * cookie or a bearer header, and verifies the token and its admin role on every
 * request, its API calls included.
 */
export function queueRoutes(queues: Queue[], jwtSecret: string): Router {
  const r = Router();

  r.post('/v1/admin/queues/session', requireRole(jwtSecret, 'admin'), (req, res) => {
    parse(emptyQuery, req.query, 'query');
    parse(emptyBody, req.body);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')![1]!;
    const exp = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { exp?: number }).exp;
    const maxAge = Math.max(0, Math.min(COOKIE_MAX_AGE_SECONDS, exp ? exp - Math.floor(Date.now() / 1000) : COOKIE_MAX_AGE_SECONDS));
    res.setHeader('Set-Cookie', [
      `${COOKIE}=${encodeURIComponent(token)}; Path=${QUEUES_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${req.secure ? '; Secure' : ''}`,
    ]);
    res.json({ url: `${QUEUES_PATH}/`, expiresInSeconds: maxAge });
  });

  const adapter = new ExpressAdapter();
  adapter.setBasePath(QUEUES_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter: adapter, options: { uiConfig: { boardTitle: 'holdfast queues' } } });
  const board = adapter.getRouter() as RequestHandler;
  const authorize = (req: Request) => {
    const header = req.headers.authorization ?? (cookieToken(req) ? `Bearer ${cookieToken(req)}` : undefined);
    const principal = verifyToken(header, jwtSecret);
    if (principal.role !== 'admin') throw errors.forbidden();
  };
  const guard = (req: Request, res: Response, next: NextFunction) => {
    authorize(req);
    // The board's page runs its own bundled scripts and styles from this path.
    res.setHeader('Content-Security-Policy', "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:");
    res.setHeader('Cache-Control', 'no-store');
    // A plain function, not the board's router: the route table lists the dashboard once, as GET /admin/queues.
    board(req, res, next);
  };
  // The dashboard's entry; its pages, assets and API calls live under it.
  r.get(QUEUES_PATH, (req, res, next) => {
    authorize(req);
    if (req.path.endsWith('/')) return next();
    res.redirect(302, `${QUEUES_PATH}/`);
  });
  r.use(QUEUES_PATH, guard);
  return r;
}
