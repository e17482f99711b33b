import { HttpConnection } from './http-connection.client';
import { elapsedMs, LatencyHistogram, round3, type LatencySummary } from './latency.histogram';

export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface HttpLoadOptions {
  /** e.g. `http://127.0.0.1:43211`; only loopback addresses are accepted. */
  baseUrl: string;
  concurrency: number;
  /** Upper bound on requests sent (warm-up excluded). */
  maxRequests: number;
  /** Upper bound on the measured phase's duration. */
  maxDurationMs: number;
  /** Requests sent before measuring (same loops, not recorded). */
  warmupRequests?: number;
  /** Builds the request number `index` (0-based, warm-up requests come first). */
  makeRequest(index: number): LoadRequest;
  /** Sees every measured response, e.g. to collect created ids. */
  onResponse?(index: number, status: number, body: Buffer): void;
  /** Statuses counted as success; default: any 2xx. */
  isOk?(status: number): boolean;
  /** Per-request timeout; a timed-out request counts as an error. */
  requestTimeoutMs?: number;
  /** Sees every measured request's latency as the histograms record it (e.g. to record it in another histogram too). */
  onLatency?(ms: number, ok: boolean): void;
}

export interface HttpLoadResult {
  requests: number;
  ok: number;
  failed: number;
  /** Transport errors and timeouts (no HTTP status). */
  errors: number;
  statusCounts: Record<string, number>;
  /** Up to five distinct failures (status and the start of the body, or the transport error). */
  failureSamples: string[];
  durationMs: number;
  /** Successful requests per second over the measured phase. */
  okPerSec: number;
  requestsPerSec: number;
  stoppedBy: 'count' | 'time';
  /** Latency of every measured request, successful or not. */
  latency: LatencySummary;
  /** Latency of successful requests only. */
  okLatency: LatencySummary;
}

/**
 * A closed-loop HTTP load generator: `concurrency` loops, each sending its next
 * request as soon as the previous answer arrived, over keep-alive connections.
 * Bounded in count and in time; it stops by itself.
 */
export async function runHttpLoad(options: HttpLoadOptions): Promise<HttpLoadResult> {
  const base = new URL(options.baseUrl);
  assertLoopback(base.hostname);
  // One keep-alive connection per loop (http-connection.client.ts says why not Node's http client).
  const connections = Array.from({ length: options.concurrency }, () => connectionTo(base, options.requestTimeoutMs ?? 30_000));
  const isOk = options.isOk ?? ((status: number) => status >= 200 && status < 300);
  const warmup = options.warmupRequests ?? 0;

  try {
    let nextIndex = 0;
    if (warmup > 0) {
      await Promise.all(
        connections.map(async (connection) => {
          while (nextIndex < warmup) {
            const index = nextIndex;
            nextIndex += 1;
            await connection.send(options.makeRequest(index)).catch(() => undefined);
          }
        }),
      );
    }

    const histogram = new LatencyHistogram();
    const okHistogram = new LatencyHistogram();
    const statusCounts: Record<string, number> = {};
    let sent = 0;
    let ok = 0;
    let errors = 0;
    let stoppedBy: 'count' | 'time' = 'count';
    const failureSamples = new Set<string>();
    const sample = (text: string) => {
      if (failureSamples.size < 5) failureSamples.add(text.slice(0, 300));
    };
    const started = process.hrtime.bigint();
    const deadline = Date.now() + options.maxDurationMs;

    await Promise.all(
      connections.map(async (connection) => {
        for (;;) {
          if (sent >= options.maxRequests) return;
          if (Date.now() >= deadline) {
            stoppedBy = 'time';
            return;
          }
          const index = warmup + sent;
          sent += 1;
          const t0 = process.hrtime.bigint();
          try {
            const response = await connection.send(options.makeRequest(index));
            const ms = elapsedMs(t0);
            histogram.record(ms);
            statusCounts[String(response.status)] = (statusCounts[String(response.status)] ?? 0) + 1;
            options.onLatency?.(ms, isOk(response.status));
            if (isOk(response.status)) {
              ok += 1;
              okHistogram.record(ms);
            } else {
              sample(`${response.status} ${response.body.toString('utf8', 0, 300)}`);
            }
            options.onResponse?.(index, response.status, response.body);
          } catch (error) {
            histogram.record(elapsedMs(t0));
            sample(`error ${error instanceof Error ? error.message : String(error)}`);
            errors += 1;
            statusCounts.error = (statusCounts.error ?? 0) + 1;
          }
        }
      }),
    );
    const durationMs = elapsedMs(started);
    return {
      requests: sent,
      ok,
      failed: sent - ok,
      errors,
      statusCounts,
      failureSamples: [...failureSamples],
      durationMs: round3(durationMs),
      okPerSec: round3((ok / durationMs) * 1000),
      requestsPerSec: round3((sent / durationMs) * 1000),
      stoppedBy,
      latency: histogram.summary(),
      okLatency: okHistogram.summary(),
    };
  } finally {
    for (const connection of connections) connection.close();
  }
}

export interface HttpClient {
  send(request: LoadRequest): Promise<{ status: number; body: Buffer }>;
  close(): void;
}

/** One keep-alive connection to a loopback server, for request-by-request clients (the race lab). */
export function createHttpClient(baseUrl: string, timeoutMs = 30_000): HttpClient {
  const base = new URL(baseUrl);
  assertLoopback(base.hostname);
  const connection = connectionTo(base, timeoutMs);
  return { send: (request) => connection.send(request), close: () => connection.close() };
}

function connectionTo(base: URL, timeoutMs: number): HttpConnection {
  return new HttpConnection(base.hostname.replace(/^\[|\]$/g, ''), Number(base.port || 80), timeoutMs);
}

function assertLoopback(hostname: string): void {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)) return;
  throw new Error(`load generator only targets loopback addresses, not ${hostname}`);
}
