import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { errors, type KeyClaim, type Principal } from '@holdfast/domain';
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

/** What the key's step decided: the stored answer to replay, or the claim this request now holds. */
export type KeyStep =
  | { kind: 'replay'; status: number; text: string }
  | {
    kind: 'held';
    keyClaim: KeyClaim;
    /**
     * Stores the answer (`text`, JSON) or releases the key (a 5xx, a 429), before
     * the answer is sent, so a client that retries the moment it has it gets the
     * replay, never a 409. Never rejects: the answer stands whatever Redis says (a
     * release it could not take is sent again once it can, IdempotencyStore.release;
     * an answer not stored leaves the key in progress until its lease lapses).
     */
    settle(status: number, text: string): Promise<void>;
    /** Releases the key of a request that ends with no answer to store. */
    release(): void;
  };

/**
 * The Idempotency-Key step of one request, for the Express steps (`idempotent`)
 * and the lean path (fast-path.ts) alike: after authentication (keys are scoped
 * to the principal) and after the body is read (the fingerprint covers method,
 * path and body). A request holds the key's claim for `leaseMs` (the store's
 * own when not given): a request meanwhile answers 409 IDEMPOTENCY_IN_PROGRESS,
 * one after it takes the claim over (`keyClaim` says so, with the claim's seed).
 * Throws the answers of a key that is not valid, used with another body or in
 * progress.
 */
export async function beginKeyStep(
  store: IdempotencyStore, log: Pick<Logger, 'warn'>,
  call: { key: unknown; principal: Principal; method: string; path: string; body: unknown; requestId: string | undefined },
  leaseMs?: number,
): Promise<KeyStep> {
  const { key } = call;
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw errors.validation(
      { fields: [{ path: 'Idempotency-Key', message: '1 to 255 printable ASCII characters' }] },
      'The Idempotency-Key header is not valid.',
    );
  }
  const principal = `${call.principal.role}:${call.principal.id}`;
  const claim = await store.begin(principal, key, requestFingerprint(call.method, call.path, call.body), leaseMs);
  if (claim.kind === 'mismatch') throw errors.idempotencyKeyReused();
  if (claim.kind === 'running') throw errors.idempotencyInProgress();
  if (claim.kind === 'done') return { kind: 'replay', status: claim.status, text: claim.body };
  return {
    kind: 'held',
    keyClaim: { seed: claim.seed, takenOver: claim.takenOver, reseed: () => store.reseed(principal, key, claim.token) },
    settle: (status, text) => (storable(status)
      ? store.complete(principal, key, claim.token, status, text)
      : store.release(principal, key, claim.token, leaseMs)
    ).then(
      () => undefined,
      (err: unknown) => log.warn({ reqId: call.requestId, err: (err as Error).message }, 'could not record an idempotent answer'),
    ),
    release: () => void store.release(principal, key, claim.token, leaseMs).catch(() => undefined),
  };
}

/**
 * `Idempotency-Key` for a route (beginKeyStep), as an Express step. Without the
 * header it adds nothing, not even a Redis round trip.
 */
export function idempotent(store: IdempotencyStore, log: Logger, leaseMs?: number) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = req.headers['idempotency-key'];
    if (key === undefined) {
      next();
      return;
    }
    const step = await beginKeyStep(store, log, {
      key, principal: req.principal!, method: req.method, path: req.baseUrl + req.path, body: req.body, requestId: req.requestId,
    }, leaseMs);
    if (step.kind === 'replay') {
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(step.status).type('application/json').send(step.text);
      return;
    }
    req.keyClaim = step.keyClaim;
    let settled = false;
    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      if (settled) return send(body);
      settled = true;
      void step.settle(res.statusCode, JSON.stringify(body)).then(() => send(body));
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
        step.release();
      }
      return end(...args);
    }) as Response['end'];
    next();
  };
}
