/**
 * The honest anchor of the hold path: a bare `node:http` server that answers
 * each POST with exactly one `SET key val NX EX 600` through ioredis (the client
 * holdfast uses), its body JSON in and out, keep-alive (HTTP/1.1's default).
 * What one Node process answering one HTTP request with one Redis round trip
 * costs, with nothing else: no framework, no auth, no validation library. Run
 * as a child process with the same node flags as holdfast's API (see
 * baseline-servers.ts); it listens on port 0 and reports its port over IPC.
 */
import http from 'node:http';
import Redis from 'ioredis';

const redis = new Redis(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
const prefix = process.env.BENCH_KEY_PREFIX ?? 'bench:bare:';

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') return answer(res, 404, { error: { code: 'NOT_FOUND', message: 'POST only' } });
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    type Body = { seatId?: unknown; customerId?: unknown } | null;
    let body: Body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
    } catch {
      body = null;
    }
    const seatId = typeof body?.seatId === 'string' ? body.seatId : null;
    if (!seatId) return answer(res, 400, { error: { code: 'VALIDATION_FAILED', message: 'seatId is required' } });
    redis.set(`${prefix}${seatId}`, String(body?.customerId ?? 'anon'), 'EX', 600, 'NX').then(
      (taken) => (taken === 'OK'
        ? answer(res, 201, { hold: { seatId } })
        : answer(res, 409, { error: { code: 'SEATS_UNAVAILABLE', message: 'seat is held' } })),
      () => answer(res, 503, { error: { code: 'SERVICE_UNAVAILABLE', message: 'Redis failed' } }),
    );
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.send?.({ type: 'listening', port: address.port });
});

process.on('SIGTERM', () => {
  server.close(() => {
    void redis.quit().finally(() => process.exit(0));
  });
  server.closeAllConnections();
});
