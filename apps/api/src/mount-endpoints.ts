import express, { Router, type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Endpoint } from './endpoint';
import { authorize, type Role } from './middleware/auth';
import type { TokenVerifier } from './middleware/token-verifier';
import { JSON_BODY_LIMIT_BYTES, jsonBody, jsonBodyOf } from './middleware/body';
import { parse } from './middleware/validate';

export interface MountOptions {
  /** Needed by endpoints with roles. */
  verifier?: TokenVerifier;
  /** The Idempotency-Key step (middleware/idempotency.ts) for endpoints marked `idempotent`, with their claims' lease. */
  idempotency?: (leaseMs?: number) => RequestHandler;
}

/** `/v1/holds/{holdId}` → `/v1/holds/:holdId`. */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** The Stripe webhook's body: the exact bytes, whatever their type (the signature is over them). */
const rawBody = express.raw({ type: () => true, limit: JSON_BODY_LIMIT_BYTES });

/**
 * Authorization and then the JSON body, as one middleware: two steps, one router
 * layer for the hot paths (hold, confirm) to walk.
 */
function authorizeThenReadJson(verifier: TokenVerifier, roles: readonly Role[], readJson: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    authorize(req, verifier, roles).then((principal) => {
      req.principal = principal;
      readJson(req, res, next);
    }, next);
  };
}

/** The request steps of one endpoint, in order, built once at start-up. */
function stepsOf<D>(e: Endpoint<D>, deps: D, opts: MountOptions): RequestHandler[] {
  if (!e.handler === !e.answer) throw new Error(`${e.operationId}: an endpoint needs a handler or an answer (one of them), or its own mount`);
  if (e.signedBody && (e.body || e.roles)) throw new Error(`${e.operationId}: a signed body is read raw, without roles or a JSON body`);
  if (e.bodyLimitBytes !== undefined && (e.signedBody || e.answer)) {
    throw new Error(`${e.operationId}: a body limit of its own is for JSON bodies read by the Express steps only`);
  }
  const readJson = e.bodyLimitBytes !== undefined ? jsonBodyOf(e.bodyLimitBytes) : jsonBody;
  const steps: RequestHandler[] = [];
  // 1. Who may call it (401/403), then 2. the body: a caller without the right token never gets its body read.
  if (e.roles) {
    if (!opts.verifier) throw new Error(`${e.operationId}: an endpoint with roles needs the token verifier`);
    steps.push(authorizeThenReadJson(opts.verifier, e.roles, readJson));
  } else if (e.body) {
    steps.push(readJson);
  } else if (e.signedBody) {
    steps.push(rawBody);
  }
  // 3. Idempotency-Key: after the principal and the body (its fingerprint covers the body).
  if (e.idempotent) {
    if (!opts.idempotency) throw new Error(`${e.operationId}: an idempotent endpoint needs the Idempotency-Key step`);
    steps.push(opts.idempotency(e.idempotent === true ? undefined : e.idempotent.leaseMs(deps)));
  }
  // 4. The query and the body parsed with the declared schemas (400 VALIDATION_FAILED), then the handler.
  const { handler, answer, query, body, quickBody } = e;
  const input = (req: Request) => ({
    deps,
    params: req.params,
    query: query ? parse(query, req.query, 'query') : undefined,
    body: body ? (quickBody?.(req.body) ?? parse(body, req.body)) : undefined,
  });
  steps.push(answer
    ? async (req: Request, res: Response) => {
      const { status, body: sent } = await answer({ ...input(req), principal: req.principal, headers: req.headers, keyClaim: req.keyClaim });
      res.status(status).json(sent);
    }
    : (req: Request, res: Response) => handler!({ ...input(req), req, res }) as void);
  return steps;
}

/** An Express router serving the endpoints, in their order. */
export function mountEndpoints<D>(endpoints: readonly Endpoint<D>[], deps: D, opts: MountOptions): Router {
  const r = Router();
  for (const e of endpoints) {
    if (e.mount) {
      e.mount(r, e, deps);
      continue;
    }
    const onError: ErrorRequestHandler[] = [];
    if (e.onError) {
      const hook = e.onError(deps);
      onError.push((err, req, _res, next) => {
        hook(err, { principal: req.principal, params: req.params as Record<string, string> }).then(next, () => next(err));
      });
    }
    r[e.method](expressPath(e.path), ...stepsOf(e, deps, opts), ...onError);
  }
  return r;
}
