import createFetchClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { HttpMethod, PathsWithMethod } from 'openapi-typescript-helpers';
import type { components, paths } from './api.generated';
import { idempotentOperations } from './api.generated';
import { eventStream, type EventStreamOptions, type StreamItem } from './event-stream';
import { errorOfAnswer, HoldfastError, retryAfterOf } from './holdfast-error';

export type Hold = components['schemas']['Hold'];
export type HoldItem = components['schemas']['HoldItem'];
export type Order = components['schemas']['Order'];
export type Event = components['schemas']['Event'];
export type Seat = components['schemas']['Seat'];
export type Payment = components['schemas']['Payment'];
export type AuditEntry = components['schemas']['AuditEntry'];
export type Sales = components['schemas']['Sales'];
/** Where a buyer stands in an event's waiting room. */
export type QueueStanding = paths['/v1/events/{eventId}/queue/me']['get']['responses'][200]['content']['application/json']['queue'];
/** What a hold request selects: seats by id, the best `quantity` of a tier, or general-admission tickets. */
export type HoldRequest = components['schemas']['CreateHoldBody'];

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** openapi-fetch's own rule: the init object may be left out when nothing in it is required. */
type InitParam<Init> = RequiredKeys<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
type DataOf<R> = R extends { data: infer D } ? D : never;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- openapi-fetch's own bound
type Call<Paths extends Record<string, any>, M extends HttpMethod> = <
  P extends PathsWithMethod<Paths, M>,
  I extends MaybeOptionalInit<Paths[P], M>,
>(
  url: P,
  ...init: InitParam<I>
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- openapi-fetch's own bound
) => Promise<DataOf<FetchResponse<Paths[P][M] & Record<string, any>, I, 'application/json'>>>;

/** A call to one endpoint that answers its 2xx body, or throws HoldfastError. */
export type CallMethod<M extends HttpMethod> = Call<{ [P in keyof paths]: paths[P] }, M>;

export interface RetryOptions {
  /**
   * Retries of one call after `429` or `503` answers that carry `Retry-After`
   * (default 2; 0: none); also, for a call with an `Idempotency-Key`, sends
   * again after the server could not be reached or the connection was lost
   * before the answer (the same key: the server answers what the first did).
   */
  maxRetries?: number;
  /** A `Retry-After` longer than this many seconds is not waited for: the error is thrown at once (default 30). */
  maxDelaySeconds?: number;
  /**
   * How long a call with an `Idempotency-Key` waits, in all, while the server
   * answers `409 IDEMPOTENCY_IN_PROGRESS` (an earlier attempt of it still runs,
   * or its server died and the key's claim has not lapsed yet: 10 s for a
   * hold), sending it again each `Retry-After` (default 20; 0: not at all).
   */
  inProgressWaitSeconds?: number;
}

export interface HoldfastClientOptions {
  /** The API's address, e.g. `https://tickets.example.com` (no `/v1`). */
  baseUrl: string;
  /** A bearer token for every call. */
  token?: string;
  /**
   * Gives the bearer token for a call (instead of `token`); `undefined` sends
   * none. After a `401 UNAUTHORIZED` it is asked once more with `refresh: true`
   * and the call is sent again with the new token.
   */
  getToken?: (options: { refresh: boolean }) => string | undefined | Promise<string | undefined>;
  /** The fetch to send with (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** Honour `Retry-After` on `429` and `503` (see RetryOptions); `false`: never retry. */
  retry?: RetryOptions | false;
  /**
   * Makes the `Idempotency-Key` of a call to an endpoint that takes one (the
   * hold and the confirm), when the call does not pass its own: one per call,
   * the same for its retries. Default `crypto.randomUUID()`; `false` sends none.
   */
  idempotencyKey?: (() => string) | false;
}

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });

const IDEMPOTENT = new Set(idempotentOperations);

/** After a keyed call's connection was lost, the pause before it is sent again (times the losses so far). */
const LOST_CONNECTION_PAUSE_MS = 250;

/** Whether a 409 is IDEMPOTENCY_IN_PROGRESS (its body read from a copy: the answer stays readable). */
async function isInProgress(response: Response): Promise<boolean> {
  const body = (await response.clone().json().catch(() => null)) as { error?: { code?: string } } | null;
  return body?.error?.code === 'IDEMPOTENCY_IN_PROGRESS';
}

/**
 * A client of the holdfast API: `GET`, `POST`, `PATCH`, `DELETE` over every
 * path of the OpenAPI document (typed params, bodies and answers; a refusal
 * throws HoldfastError), helpers for the storefront's calls, `events()` for the
 * live stream, and `raw`, the openapi-fetch client itself (answers
 * `{ data, error, response }` without throwing).
 */
export function createHoldfastClient(options: HoldfastClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/$/, '');
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retry = options.retry === false
    ? { maxRetries: 0, maxDelaySeconds: 0, inProgressWaitSeconds: 0 }
    : { maxRetries: 2, maxDelaySeconds: 30, inProgressWaitSeconds: 20, ...options.retry };
  const newKey = options.idempotencyKey === false ? null : (options.idempotencyKey ?? (() => globalThis.crypto.randomUUID()));
  const tokenFor = async (refresh: boolean) => (options.getToken ? options.getToken({ refresh }) : options.token);

  /**
   * One logical call: the token, a new token once after a 401, and the waits a 429 or 503 asks
   * for; with an Idempotency-Key, also a lost connection and 409 IDEMPOTENCY_IN_PROGRESS.
   */
  async function send(request: Request): Promise<Response> {
    const ownAuthorization = request.headers.has('Authorization');
    const keyed = request.headers.has('Idempotency-Key');
    let refreshed = false;
    let lostConnections = 0;
    let inProgressMs = 0;
    for (let retries = 0; ; ) {
      const attempt = request.clone();
      if (!ownAuthorization) {
        const token = await tokenFor(refreshed);
        if (token) attempt.headers.set('Authorization', `Bearer ${token}`);
      }
      let response: Response;
      try {
        response = await baseFetch(attempt);
      } catch (error) {
        if (request.signal?.aborted) throw error;
        // The request may have run (its answer lost with the connection): sent again with its key,
        // the server answers what that run did, or runs it if it never did.
        if (keyed && lostConnections < retry.maxRetries) {
          lostConnections++;
          await sleep(LOST_CONNECTION_PAUSE_MS * lostConnections, request.signal);
          continue;
        }
        throw new HoldfastError(0, 'NETWORK_ERROR', 'The server could not be reached.', undefined, undefined, undefined, { cause: error });
      }
      if (response.status === 401 && options.getToken && !ownAuthorization && !refreshed) {
        refreshed = true;
        await response.body?.cancel();
        continue;
      }
      if (keyed && response.status === 409 && inProgressMs < retry.inProgressWaitSeconds * 1000 && (await isInProgress(response))) {
        const waitMs = Math.min((retryAfterOf(response) ?? 1) * 1000, retry.inProgressWaitSeconds * 1000 - inProgressMs);
        inProgressMs += waitMs;
        await response.body?.cancel();
        await sleep(waitMs, request.signal);
        continue;
      }
      const wait = response.status === 429 || response.status === 503 ? retryAfterOf(response) : undefined;
      if (wait === undefined || retries >= retry.maxRetries || wait > retry.maxDelaySeconds) return response;
      retries++;
      await response.body?.cancel();
      await sleep(wait * 1000, request.signal);
    }
  }

  const raw: Client<paths, 'application/json'> = createFetchClient<paths, 'application/json'>({ baseUrl, fetch: send });
  const idempotency: Middleware = {
    onRequest({ request, schemaPath }) {
      if (newKey && !request.headers.has('Idempotency-Key') && IDEMPOTENT.has(`${request.method} ${schemaPath}`)) {
        request.headers.set('Idempotency-Key', newKey());
      }
      return request;
    },
  };
  raw.use(idempotency);

  const throwing = <M extends HttpMethod>(method: Uppercase<M>): CallMethod<M> =>
    (async (url: string, init?: Record<string, unknown>) => {
      const call = raw[method as 'GET'] as (url: string, init?: Record<string, unknown>) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
      const { data, error, response } = await call(url, init);
      if (!response.ok) throw errorOfAnswer(response, error);
      return data;
    }) as CallMethod<M>;

  const GET = throwing<'get'>('GET');
  const POST = throwing<'post'>('POST');
  const PATCH = throwing<'patch'>('PATCH');
  const DELETE = throwing<'delete'>('DELETE');
  /** `queuePass`: the pass of the event's waiting room, sent as Holdfast-Queue-Pass (holds). */
  type CallOptions = { signal?: AbortSignal; idempotencyKey?: string; queuePass?: string };
  const headersOf = (o?: CallOptions) => {
    const h: Record<string, string> = {};
    if (o?.idempotencyKey) h['Idempotency-Key'] = o.idempotencyKey;
    if (o?.queuePass) h['Holdfast-Queue-Pass'] = o.queuePass;
    return Object.keys(h).length ? h : undefined;
  };

  return {
    GET, POST, PATCH, DELETE,
    /** The openapi-fetch client under this one (same token, retries and Idempotency-Key): answers `{ data, error, response }`. */
    raw,

    getEvent: async (eventId: string) => (await GET('/v1/events/{eventId}', { params: { path: { eventId } } })).event,
    listSeats: async (eventId: string) => (await GET('/v1/events/{eventId}/seats', { params: { path: { eventId } } })).seats,
    /** Holds seats or tickets for the event's hold time (customer token); one Idempotency-Key for the call and its retries. */
    hold: async (eventId: string, request: HoldRequest, o?: CallOptions) =>
      (await POST('/v1/events/{eventId}/holds', { params: { path: { eventId } }, body: request, headers: headersOf(o), signal: o?.signal })).hold,
    /** Joins the event's waiting room (customer token); `nonce`: the proof of work when the room asks for one. */
    joinQueue: async (eventId: string, nonce?: string): Promise<QueueStanding> =>
      (await POST('/v1/events/{eventId}/queue', { params: { path: { eventId } }, body: nonce === undefined ? {} : { nonce } })).queue,
    /** Where the customer stands in the event's waiting room. */
    queueStanding: async (eventId: string): Promise<QueueStanding> =>
      (await GET('/v1/events/{eventId}/queue/me', { params: { path: { eventId } } })).queue,
    getHold: async (holdId: string) => (await GET('/v1/holds/{holdId}', { params: { path: { holdId } } })).hold,
    extendHold: async (holdId: string) => (await POST('/v1/holds/{holdId}/extend', { params: { path: { holdId } } })).hold,
    releaseHold: async (holdId: string) => (await DELETE('/v1/holds/{holdId}', { params: { path: { holdId } } })).hold,
    /**
     * Turns a hold into an order once its payment is captured (service or admin
     * token). `created` is false when the hold had already become this order.
     */
    confirm: async (holdId: string, paymentReference: string, o?: CallOptions): Promise<{ order: Order; created: boolean }> => {
      const { data, error, response } = await raw.POST('/v1/holds/{holdId}/confirm', {
        params: { path: { holdId } }, body: { paymentReference }, headers: headersOf(o), signal: o?.signal,
      });
      if (!data) throw errorOfAnswer(response, error);
      return { order: data.order, created: response.status === 201 };
    },
    getOrder: async (orderId: string) => (await GET('/v1/orders/{orderId}', { params: { path: { orderId } } })).order,

    /** The event's live changes (`GET /v1/events/{eventId}/stream`) as an async iterator; see StreamItem. */
    events: (eventId: string, streamOptions?: EventStreamOptions): AsyncGenerator<StreamItem> =>
      eventStream({ baseUrl, fetch: baseFetch }, eventId, streamOptions),
  };
}

export type HoldfastClient = ReturnType<typeof createHoldfastClient>;
