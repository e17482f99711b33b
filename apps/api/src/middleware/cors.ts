import type { NextFunction, Request, Response } from 'express';

/**
 * CORS, off unless CORS_ORIGINS lists origins (comma-separated; `*` allows any).
 * Only listed origins get Access-Control-* headers; bearer tokens, no cookies,
 * so credentials are never allowed. A preflight from a listed origin is 204.
 */
export function cors(origins: string[]) {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return (req: Request, res: Response, next: NextFunction) => {
    if (!origins.length) {
      next();
      return;
    }
    res.vary('Origin');
    const origin = req.headers.origin;
    if (!origin || !(any || allowed.has(origin))) {
      next();
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
    res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id, Idempotent-Replayed, Retry-After');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key, X-Request-Id');
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
