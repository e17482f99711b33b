import http from 'node:http';

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
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency, maxFreeSockets: options.concurrency });
  const isOk = options.isOk ?? ((status: number) => status >= 200 && status < 300);
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const warmup = options.warmupRequests ?? 0;

  try {
    let nextIndex = 0;
    if (warmup > 0) {
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          while (nextIndex < warmup) {
            const index = nextIndex;
            nextIndex += 1;
            await send(agent, base, options.makeRequest(index), timeoutMs).catch(() => undefined);
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
      Array.from({ length: options.concurrency }, async () => {
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
            const response = await send(agent, base, options.makeRequest(index), timeoutMs);
            const ms = elapsedMs(t0);
            histogram.record(ms);
            statusCounts[String(response.status)] = (statusCounts[String(response.status)] ?? 0) + 1;
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
    agent.destroy();
  }
}

interface RawResponse {
  status: number;
  body: Buffer;
}

export interface HttpClient {
  send(request: LoadRequest): Promise<RawResponse>;
  close(): void;
}

/** One keep-alive connection pool to a loopback server, for request-by-request clients (the race lab). */
export function createHttpClient(baseUrl: string, maxSockets = 1, timeoutMs = 30_000): HttpClient {
  const base = new URL(baseUrl);
  assertLoopback(base.hostname);
  const agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  return { send: (request) => send(agent, base, request, timeoutMs), close: () => agent.destroy() };
}

function send(agent: http.Agent, base: URL, request: LoadRequest, timeoutMs: number): Promise<RawResponse> {
  return new Promise<RawResponse>((resolve, reject) => {
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body !== undefined) {
      headers['content-length'] = Buffer.byteLength(request.body);
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
    }
    const req = http.request(
      { agent, host: base.hostname, port: base.port, method: request.method, path: request.path, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`request timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

function assertLoopback(hostname: string): void {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)) return;
  throw new Error(`load generator only targets loopback addresses, not ${hostname}`);
}
