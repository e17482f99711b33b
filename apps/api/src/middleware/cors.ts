import type { IncomingMessage, ServerResponse } from 'node:http';
import vary from 'vary';

/**
 * CORS, off unless CORS_ORIGINS lists origins (comma-separated; `*` allows any).
 * Only listed origins get Access-Control-* headers; bearer tokens, no cookies,
 * so credentials are never allowed. A preflight from a listed origin is 204.
 * Works on Node's request and response, so the Express steps and the lean path
 * (fast-path.ts) set the same headers; returns true when it answered (a preflight).
 */
export function cors(origins: string[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return (req, res) => {
    if (!origins.length) return false;
    vary(res, 'Origin');
    const origin = req.headers.origin;
    if (!origin || !(any || allowed.has(origin))) return false;
    res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
    res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id, Idempotent-Replayed, Retry-After');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      // Every method and request header the API reads (the typed client's Holdfast-Queue-Pass among them).
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key, X-Request-Id, Holdfast-Queue-Pass');
      res.setHeader('Access-Control-Max-Age', '600');
      res.statusCode = 204;
      res.end();
      return true;
    }
    return false;
  };
}
