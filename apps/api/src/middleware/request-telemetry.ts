import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics';

const REQUEST_ID = /^[\w\-.]{1,100}$/;

/**
 * What every request gets first, on either path (the Express steps or
 * fast-path.ts). `sendsId` false: the caller sends the returned id in
 * `X-Request-Id` itself (the lean path writes all its headers at once).
 */
export type BeginRequest = (req: IncomingMessage, res: ServerResponse, routeOf: () => string, logOf: () => Logger, sendsId?: boolean) => string;

/**
 * The request's id (a well-formed `X-Request-Id` from the caller, or a new one),
 * sent back in `X-Request-Id`; when the answer is finished, its duration in the
 * histogram by method, route and status (one labelled child per key, looked up
 * by a string, not hashed by prom-client per request) and, at debug level, one
 * line. Returns the id.
 */
export function requestTelemetry(log: Logger, metrics: Pick<Metrics, 'httpDuration'>): BeginRequest {
  // By method, then route, then status: three lookups of strings and a number the
  // request already has, instead of a key string made and hashed per request.
  const durations = new Map<string, Map<string, Map<number, { observe(v: number): void }>>>();
  return (req, res, routeOf, logOf, sendsId = true) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    if (sendsId) res.setHeader('X-Request-Id', requestId);
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const route = routeOf();
      const method = req.method ?? '';
      const status = res.statusCode;
      let routes = durations.get(method);
      if (!routes) durations.set(method, (routes = new Map()));
      let statuses = routes.get(route);
      if (!statuses) routes.set(route, (statuses = new Map()));
      let histogram = statuses.get(status);
      if (!histogram) statuses.set(status, (histogram = metrics.httpDuration.labels({ method, route, status: String(status) })));
      histogram.observe(seconds);
      if (log.isLevelEnabled('debug')) logOf().debug({ method, route, status, ms: Math.round(seconds * 1000) }, 'request');
    });
    return requestId;
  };
}
