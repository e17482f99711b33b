/**
 * Redis's errors, translated at the hold store's edge (as packages/db translates
 * PostgreSQL's): what ioredis and Redis say when they cannot serve a call
 * becomes one typed error, so no caller reads their messages.
 */

/** Why Redis could not serve the call. */
export type StoreUnavailableReason =
  /** No connection (refused, closed, reset, not yet up), or ioredis gave up retrying. */
  | 'connection'
  /** The command got no answer in time (Redis frozen or far away). */
  | 'timeout'
  /** A Redis Cluster without a master for the slot yet (failover), or its slot map unreadable. */
  | 'cluster'
  /** Redis is loading its dataset after a restart. */
  | 'loading'
  /** The write reached fewer replicas than asked for (WAIT, NOREPLICAS). */
  | 'replicas'
  /** Redis could not take a subscription now (the change feed). */
  | 'subscription'
  /** Redis is at its maxmemory and refuses writes (holdfast runs it with noeviction: none of its keys may be evicted). */
  | 'memory'
  /** The node is a read-only replica now (a failover demoted it) and refuses writes (READONLY). */
  | 'read-only'
  /** Redis refuses writes because it cannot write its snapshot to disk (MISCONF: stop-writes-on-bgsave-error). */
  | 'persistence';

/** Redis cannot serve the call now; retrying later may succeed. The caller answers 503. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(readonly reason: StoreUnavailableReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** What ioredis's and Redis's messages mean, first match wins. */
const UNAVAILABLE: readonly (readonly [StoreUnavailableReason, RegExp])[] = [
  // MOVED / ASK reach a caller only from a pipeline (the script and WAIT, HOLD_REPLICA_ACKS), which ioredis
  // does not redirect: the slot moved (a failover, a resharding) and nothing ran; a retry goes to the new owner.
  ['cluster', /CLUSTERDOWN|MASTERDOWN|TRYAGAIN|Too many Cluster redirections|Failed to refresh slots cache|None of startup nodes is available|Cluster isn't ready|^MOVED |^ASK /],
  ['loading', /LOADING/],
  ['replicas', /NOREPLICAS/],
  ['memory', /^OOM |OOM command not allowed/],
  ['read-only', /^READONLY |You can't write against a read only replica/],
  ['persistence', /^MISCONF /],
  ['timeout', /Command timed out|ETIMEDOUT/],
  ['connection', /Connection is closed|Stream isn't writeable|enableOfflineQueue|ECONNREFUSED|ECONNRESET|EPIPE|MaxRetriesPerRequest|Reached the max retries|Command aborted due to connection close/],
];

/**
 * A StoreUnavailableError for an error of Redis or of its client that means
 * "not now"; any other error as it is. Also for the callers that share the
 * store's connection (BullMQ's queues): the same translation, kept here.
 */
export function translateRedisError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || err === null || typeof err !== 'object') return err;
  const { name, message } = err as { name?: unknown; message?: unknown };
  const text = String(message);
  if (name === 'MaxRetriesPerRequestError') return new StoreUnavailableError('connection', text, { cause: err });
  for (const [reason, pattern] of UNAVAILABLE) {
    if (pattern.test(text)) return new StoreUnavailableError(reason, text, { cause: err });
  }
  return err;
}

/**
 * Whether a call that failed may have run in Redis all the same, or may still
 * run: it got no answer in time (Redis frozen or far away; ioredis sends it
 * again on a new connection), or its connection was lost after it was sent
 * (ioredis gave up on it, or a cluster's client after sending it again). A call
 * that writes sends what undoes it. Not a call ioredis refused to send (no
 * connection, no offline queue), nor one Redis refused (LOADING, READONLY,
 * OOM...).
 */
export function mayHaveRun(err: unknown): boolean {
  const translated = translateRedisError(err);
  if (!(translated instanceof StoreUnavailableError)) return false;
  switch (translated.reason) {
    case 'timeout':
      return true;
    case 'connection':
      return !NEVER_SENT.test(translated.message);
    case 'cluster':
      // A cluster's client sends a command again after a failover (its connection closed,
      // CLUSTERDOWN, TRYAGAIN) until it gives up ("Too many Cluster redirections"): an
      // earlier send may have run on the old master and reached the promoted replica.
      return TRIED_AGAIN.test(translated.message);
    default:
      return false;
  }
}

/** A cluster's client giving up on a command it had sent, perhaps more than once. */
const TRIED_AGAIN = /Too many Cluster redirections/;

/** ioredis's refusal to send a command while it has no connection (enableOfflineQueue: false). */
const NEVER_SENT = /Stream isn't writeable|enableOfflineQueue/;

type AnyClass = abstract new (...args: never[]) => unknown;

/**
 * Makes every method of a store class translate what it throws or rejects with
 * (translateRedisError): applied once to each class the package exports, so a
 * method added later is translated too. Methods that return neither a promise
 * nor throw (async generators, getters) are left as they are.
 */
export function translateErrorsOf(cls: AnyClass): void {
  const proto = cls.prototype as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
    const method = descriptor.value as unknown;
    if (name === 'constructor' || typeof method !== 'function' || isAsyncGenerator(method)) continue;
    const translated = function (this: unknown, ...args: unknown[]): unknown {
      let out: unknown;
      try {
        out = method.apply(this, args);
      } catch (err) {
        throw translateRedisError(err);
      }
      return out instanceof Promise ? out.catch(rethrowTranslated) : out;
    };
    Object.defineProperty(translated, 'name', { value: name });
    Object.defineProperty(proto, name, { ...descriptor, value: translated });
  }
}

function rethrowTranslated(err: unknown): never {
  throw translateRedisError(err);
}

const isAsyncGenerator = (fn: unknown) => Object.prototype.toString.call(fn) === '[object AsyncGeneratorFunction]';
