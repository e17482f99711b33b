import type { components } from './api.generated';
import { errorOfAnswer, HoldfastError } from './holdfast-error';
import { readSse } from './sse-parser';

/**
 * What the event stream (`GET /v1/events/{eventId}/stream`) yields:
 * - `open` each time the stream (re)connects. The API keeps no backlog of
 *   changes, so on `reconnected: true` re-read what you show (the seat map):
 *   changes made while the stream was down are not sent again.
 * - `reconnecting` when the stream dropped or an attempt to open it failed
 *   (`error` says why when the server refused), before the wait for the next.
 * - `seat` when a seat changes status; `availability` when a ticket type's count changes;
 *   `queue` when the event's waiting room admits places.
 */
export type StreamItem =
  | { type: 'open'; reconnected: boolean }
  | { type: 'reconnecting'; retryInMs: number; error?: HoldfastError }
  | { type: 'seat'; seatId: string; status: components['schemas']['Seat']['status'] }
  | { type: 'availability'; ticketTypeId: string; available: number }
  /** The event's waiting room admitted places: how many so far (a waiting page's place is its position − (admitted − its reading's admitted)), how many wait, and the pace wait estimates use (places a minute). */
  | { type: 'queue'; admitted: number; waiting: number; perMinute?: number };

export interface EventStreamOptions {
  /** Stops the stream: the iterator ends (no error). */
  signal?: AbortSignal;
  /** Reconnect after a drop or a refused connection (default true); false ends the iterator on a drop and throws on a refusal. */
  reconnect?: boolean;
  /**
   * Wait before reconnecting after a drop (default: the stream's `retry:`, 2 s from this API); doubled
   * after each failed attempt or short-lived connection, at most `maxDelayMs`, back to this once a
   * connection stayed open 30 s. Each wait is drawn between it and twice it, so the many pages an API
   * restart drops do not all come back at once.
   */
  delayMs?: number;
  /** Longest wait between attempts (default 30 s). */
  maxDelayMs?: number;
}

export interface StreamDeps {
  baseUrl: string;
  fetch: (request: Request) => Promise<Response>;
}

/** A connection open this long counts as healthy: the next drop waits the base delay again. */
const STABLE_MS = 30_000;

/** The wait before the next attempt: at least `ms` (a Retry-After is a floor), spread up to twice it. */
const spread = (ms: number) => Math.round(ms * (1 + Math.random()));

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * The event's changes as an async iterator over Server-Sent Events read with
 * fetch (Node and browsers alike). A dropped connection is opened again after
 * the stream's `retry` time (longer on repeated failures, or a 503's
 * `Retry-After`), sending `Last-Event-ID` when the stream gave ids. A
 * `404 EVENT_NOT_FOUND` (and any other 4xx) ends it with a HoldfastError.
 */
export async function* eventStream(deps: StreamDeps, eventId: string, options: EventStreamOptions = {}): AsyncGenerator<StreamItem> {
  const { signal, reconnect = true, maxDelayMs = 30_000 } = options;
  const url = `${deps.baseUrl.replace(/\/$/, '')}/v1/events/${encodeURIComponent(eventId)}/stream`;
  let baseDelay = options.delayMs ?? 2000;
  let delay = baseDelay;
  let lastEventId: string | undefined;
  let opened = 0;
  while (!signal?.aborted) {
    const headers: Record<string, string> = { Accept: 'text/event-stream', 'Cache-Control': 'no-cache' };
    if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
    let response: Response | undefined;
    let waitMs = delay;
    let refusal: HoldfastError | undefined;
    try {
      response = await deps.fetch(new Request(url, { headers, signal }));
    } catch (error) {
      if (signal?.aborted) return;
      if (!reconnect) throw error instanceof HoldfastError ? error : new HoldfastError(0, 'NETWORK_ERROR', 'The server could not be reached.', undefined, undefined, undefined, { cause: error });
    }
    if (response && !response.ok) {
      const text = await response.text().catch(() => '');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      const error = errorOfAnswer(response, body);
      // 4xx: asking again will not help. 5xx: the server is down or full for now.
      if (!reconnect || response.status < 500) throw error;
      if (error.retryAfterSeconds !== undefined) waitMs = Math.max(waitMs, error.retryAfterSeconds * 1000);
      refusal = error;
    } else if (response?.body) {
      yield { type: 'open', reconnected: opened++ > 0 };
      const openedAt = Date.now();
      try {
        const serverRetry = (ms: number) => {
          if (options.delayMs !== undefined) return;
          baseDelay = ms;
          delay = ms;
        };
        for await (const message of readSse(response.body, serverRetry)) {
          if (message.id !== undefined) lastEventId = message.id;
          if (message.event !== 'seat' && message.event !== 'availability' && message.event !== 'queue') continue;
          let data: Record<string, unknown>;
          try {
            data = JSON.parse(message.data) as Record<string, unknown>;
          } catch {
            continue;
          }
          yield { ...data, type: message.event } as StreamItem;
        }
      } catch (error) {
        if (signal?.aborted) return;
        if (!reconnect) throw error;
      }
      if (!reconnect || signal?.aborted) return;
      // A connection cut soon after it opened (a proxy's timeout, a server shedding load) backs off like a refusal.
      if (Date.now() - openedAt >= STABLE_MS) delay = baseDelay;
      waitMs = delay;
    }
    waitMs = spread(waitMs);
    yield { type: 'reconnecting', retryInMs: waitMs, ...(refusal ? { error: refusal } : {}) };
    await sleep(waitMs, signal);
    delay = Math.min(delay * 2, maxDelayMs);
  }
}
