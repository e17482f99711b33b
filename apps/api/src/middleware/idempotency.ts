import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { errors, type KeyClaim } from '@holdfast/domain';
import type { IdempotencyStore } from '@holdfast/hold-store';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set when the request carries an Idempotency-Key whose claim it holds (idempotent, below). */
      keyClaim?: KeyClaim;
    }
  }
}

const KEY = /^[\x20-\x7E]{1,255}$/;

/** JSON with object keys sorted, so the same body written differently has one fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A request's fingerprint: its method, path and body (keys in any order). */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonical(body)}`).digest('hex');
}

/**
 * Which first answers are stored and replayed: every 2xx and 4xx, except 429
 * (a rate limit is about that moment, not about the request). A 5xx or a 429 is
 * not stored: the key is released, so a retry with the same key runs afresh.
 */
const storable = (status: number) => status < 500 && status !== 429;

/**
 * `Idempotency-Key` for a route, after authentication (keys are scoped to the
 * principal) and after the body is parsed (the fingerprint covers method, path
 * and body). Without the header it adds nothing, not even a Redis round trip.
 * A request holds the key's claim for `leaseMs` (the store's own when not
 * given): a retry meanwhile answers 409 IDEMPOTENCY_IN_PROGRESS, a retry after
 * it takes the claim over (req.keyClaim says so, with the claim's seed).
 */
export function idempotent(store: IdempotencyStore, log: Logger, leaseMs?: number) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = req.headers['idempotency-key'];
    if (key === undefined) {
      next();
      return;
    }
    if (typeof key !== 'string' || !KEY.test(key)) {
      throw errors.validation(
        { fields: [{ path: 'Idempotency-Key', message: '1 to 255 printable ASCII characters' }] },
        'The Idempotency-Key header is not valid.',
      );
    }
    const principal = `${req.principal!.role}:${req.principal!.id}`;
    const fingerprint = requestFingerprint(req.method, req.baseUrl + req.path, req.body);
    const claim = await store.begin(principal, key, fingerprint, leaseMs);
    if (claim.kind === 'mismatch') throw errors.idempotencyKeyReused();
    if (claim.kind === 'running') throw errors.idempotencyInProgress();
    if (claim.kind === 'done') {
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(claim.status).type('application/json').send(claim.body);
      return;
    }

    req.keyClaim = {
      seed: claim.seed,
      takenOver: claim.takenOver,
      reseed: () => store.reseed(principal, key, claim.token),
    };
    // This request owns the key: store its answer before sending it, so a client
    // that retries the moment it has the answer gets the replay, never a 409.
    let settled = false;
    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      if (settled) return send(body);
      settled = true;
      const status = res.statusCode;
      const text = JSON.stringify(body);
      const done = storable(status)
        ? store.complete(principal, key, claim.token, status, text)
        : store.release(principal, key, claim.token, leaseMs);
      done.then(
        () => send(body),
        (err: unknown) => {
          // The answer stands. A release Redis could not take is sent again once it can
          // (IdempotencyStore.release); an answer not stored leaves the key in progress until its lease lapses.
          log.warn({ reqId: req.requestId, err: (err as Error).message }, 'could not record an idempotent answer');
          send(body);
        },
      );
      return res;
    };
    // A client that hangs up does not end the request: the handler runs on, and its
    // answer is stored by res.json above, so the key stays in progress until then
    // (a retry meanwhile gets 409 IDEMPOTENCY_IN_PROGRESS, never a second run).
    // Only a response that ends without res.json releases the key here.
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      if (!settled) {
        settled = true;
        store.release(principal, key, claim.token, leaseMs).catch(() => undefined);
      }
      return end(...args);
    }) as Response['end'];
    next();
  };
}
