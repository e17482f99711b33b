import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Principal } from '@holdfast/domain';
import type { IdempotencyStore } from '@holdfast/hold-store';
import { nameRequestSpan } from '@holdfast/telemetry';
import type { Endpoint, RefusedCall } from './endpoint';
import { authorize } from './middleware/auth';
import type { TokenVerifier } from './middleware/token-verifier';
import { isPlainJson, readPlainJson } from './middleware/body';
import { errorAnswer } from './middleware/errors';
import { beginKeyStep, type KeyStep } from './middleware/idempotency';
import type { BeginRequest } from './middleware/request-telemetry';
import { parse } from './middleware/validate';
import { expressPath } from './mount-endpoints';

/**
 * The lean path for hot endpoints (those with an `answer` handler: hold,
 * confirm). Express gives every request its own request and response
 * prototypes, a router walk, a body parser and `res.json`'s content
 * negotiation; measured on a hold, that machinery cost more CPU than the hold's
 * own work (docs/benchmarks.md, "Settings chosen by measurement"). This serves a *plain*
 * request to such an endpoint on Node's own request and response, through the
 * same steps in the same order: request id and duration, the fixed security
 * headers and CORS, the role check (401/403 before the body is read), the JSON
 * body, the query and body schemas, the handler, the endpoint's error hook and
 * the one error mapping. Any request it is not sure to answer exactly as the
 * Express steps would is passed on to them: another path form (a trailing
 * slash, other letter case, percent-encoding), a query string on an endpoint
 * that parses one, or a body that is not plain UTF-8 JSON of a known length
 * (isPlainJson). An Idempotency-Key is taken here as the Express steps take it
 * (beginKeyStep, after the body is read and before it is parsed): the typed
 * client and the storefront send one with every hold.
 */

export interface FastPathStats {
  /** Requests this path answered. */
  served: number;
  /** Requests to a fast endpoint's path and method handed to the Express steps. */
  passed: number;
}

export interface FastPathDeps {
  verifier: TokenVerifier;
  log: Logger;
  begin: BeginRequest;
  /** The fixed security headers, flat (static-headers.ts's `list`). */
  staticHeaders: readonly string[];
  /** True when it answered (a CORS preflight). */
  corsHeaders: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Idempotency-Key claims and answers. */
  idempotency: IdempotencyStore;
}

export interface FastPath {
  /** Serves the request and returns true, or returns false and leaves it untouched. */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  readonly stats: FastPathStats;
}

interface FastRoute {
  endpoint: Endpoint;
  deps: unknown;
  pattern: RegExp;
  names: string[];
  /** The histogram's route label, as Express names it. */
  route: string;
  /** Gives `route` (made once: a closure per request cost each hold an allocation). */
  routeOf: () => string;
  readsBody: boolean;
  /** Takes an Idempotency-Key, its claims held this long (undefined: the store's own lease). */
  keyed: boolean;
  keyLeaseMs: number | undefined;
  onError?: (err: unknown, call: RefusedCall) => Promise<unknown>;
}

/** The header a replayed answer carries. */
const REPLAYED = { 'Idempotent-Replayed': 'true' };

/** A path parameter the fast path takes: unreserved characters only, so decoding it changes nothing. */
const PARAM = '([A-Za-z0-9._~-]+)';

function compile(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name) {
        names.push(name);
        return PARAM;
      }
      return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`), names };
}

/** Could one request path match both (same segment count, each pair equal or one a parameter)? */
function overlap(a: string, b: string): boolean {
  const as = a.split('/');
  const bs = b.split('/');
  if (as.length !== bs.length) return false;
  return as.every((segment, i) => segment === bs[i] || segment.startsWith('{') || bs[i]!.startsWith('{'));
}

/** A request's child logger, made on first use (most requests never log). */
interface LazyLog {
  parent: Logger;
  requestId: string;
  log: Logger | undefined;
}

/**
 * The request's `logOf`. Returned from here rather than declared in `serve`: a
 * closure declared under a name there is given that name on every request
 * (keepNames, in tsx and in the bundle: a defineProperty per hold).
 */
function logOfLazy(lazy: LazyLog): () => Logger {
  return () => (lazy.log ??= lazy.parent.child({ reqId: lazy.requestId }));
}

/**
 * The JSON answer, written as Express's `res.status(status).json(body)` writes
 * it, with the request's id, the fixed headers and `extra` (an error's), all
 * given to one `writeHead` as a flat list: set one by one (setHeader), each
 * header was checked, lower-cased and stored in the response's header table
 * before being checked again when written, about twice the CPU of writing the
 * answer itself. Headers set before (CORS's) are kept.
 */
function writeJson(
  res: ServerResponse, status: number, text: string, requestId: string, fixed: readonly string[], extra?: Record<string, string>,
): void {
  const headers: string[] = ['X-Request-Id', requestId];
  for (let i = 0; i < fixed.length; i += 1) headers.push(fixed[i]!);
  if (extra) for (const name of Object.keys(extra)) headers.push(name, extra[name]!);
  headers.push('Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(text)));
  res.writeHead(status, headers);
  res.end(text);
}

/**
 * Builds the lean path for the endpoints of `mounted` (in mount order, each with
 * its group's dependencies) that have an `answer`. Throws at start-up if an
 * endpoint mounted before one of them could take the same requests (Express
 * would serve those by the earlier entry).
 */
export function createFastPath(mounted: ReadonlyArray<{ endpoint: Endpoint; deps: unknown }>, d: FastPathDeps): FastPath {
  const byMethod = new Map<string, FastRoute[]>();
  mounted.forEach(({ endpoint: e, deps }, index) => {
    if (!e.answer || e.mount || e.signedBody) return;
    const earlier = mounted.slice(0, index).find(({ endpoint: o }) => (o.mount ? e.path.startsWith(o.path) : o.method === e.method && overlap(o.path, e.path)));
    if (earlier) throw new Error(`${e.operationId}: ${earlier.endpoint.operationId} is mounted before it and may take its requests`);
    const method = e.method.toUpperCase();
    const routes = byMethod.get(method) ?? [];
    const route = expressPath(e.path);
    routes.push({
      endpoint: e,
      deps,
      ...compile(e.path),
      route,
      routeOf: () => route,
      readsBody: Boolean(e.roles || e.body),
      keyed: Boolean(e.idempotent),
      keyLeaseMs: e.idempotent && e.idempotent !== true ? e.idempotent.leaseMs(deps) : undefined,
      onError: e.onError?.(deps),
    });
    byMethod.set(method, routes);
  });
  const stats: FastPathStats = { served: 0, passed: 0 };

  async function run(
    r: FastRoute, req: IncomingMessage, res: ServerResponse, path: string, params: Record<string, string>, requestId: string, logOf: () => Logger,
  ) {
    const e = r.endpoint;
    let principal: Principal | undefined;
    let keyStep: Extract<KeyStep, { kind: 'held' }> | undefined;
    try {
      if (e.roles) principal = await authorize(req as never, d.verifier, e.roles);
      const raw = r.readsBody ? await readPlainJson(req) : undefined;
      const key = r.keyed ? req.headers['idempotency-key'] : undefined;
      if (key !== undefined) {
        const step = await beginKeyStep(d.idempotency, d.log, { key, principal: principal!, method: req.method!, path, body: raw, requestId }, r.keyLeaseMs);
        if (step.kind === 'replay') {
          writeJson(res, step.status, step.text, requestId, d.staticHeaders, REPLAYED);
          return;
        }
        keyStep = step;
      }
      const answer = await e.answer!({
        deps: r.deps,
        params,
        // Only a request without a query string comes here when the endpoint parses one (Express reads it as {}).
        query: e.query ? parse(e.query, {}, 'query') : undefined,
        body: e.body ? (e.quickBody?.(raw) ?? parse(e.body, raw)) : undefined,
        principal,
        headers: req.headers,
        keyClaim: keyStep?.keyClaim,
      });
      const text = JSON.stringify(answer.body);
      if (keyStep) await keyStep.settle(answer.status, text);
      writeJson(res, answer.status, text, requestId, d.staticHeaders);
    } catch (err) {
      let final = err;
      if (r.onError) final = await r.onError(err, { principal, params }).catch(() => err);
      const answer = errorAnswer(final, requestId, logOf);
      const text = JSON.stringify(answer.body);
      if (keyStep) await keyStep.settle(answer.status, text);
      writeJson(res, answer.status, text, requestId, d.staticHeaders, answer.headers);
    }
  }

  return {
    stats,
    serve(req, res) {
      const routes = byMethod.get(req.method ?? '');
      if (!routes) return false;
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      for (const r of routes) {
        const match = r.pattern.exec(path);
        if (!match) continue;
        const e = r.endpoint;
        if ((q !== -1 && e.query) || (r.readsBody && !isPlainJson(req))) {
          stats.passed += 1;
          return false;
        }
        stats.served += 1;
        const params: Record<string, string> = {};
        for (let i = 0; i < r.names.length; i += 1) params[r.names[i]!] = match[i + 1]!;
        const lazy: LazyLog = { parent: d.log, requestId: '', log: undefined };
        const logOf = logOfLazy(lazy);
        // X-Request-Id and the fixed headers are written with the answer (writeJson).
        const requestId = (lazy.requestId = d.begin(req, res, r.routeOf, logOf, false));
        nameRequestSpan(req.method!, r.route);
        // Only a preflight (OPTIONS, never routed here) is answered by the CORS step.
        if (d.corsHeaders(req, res)) return true;
        void run(r, req, res, path, params, requestId, logOf);
        return true;
      }
      return false;
    },
  };
}
