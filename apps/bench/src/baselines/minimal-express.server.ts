/**
 * The baseline a hold path is measured against: Express 5, a JSON body, and
 * exactly one `SET key val NX EX 600` through ioredis per request. Run as a
 * child process by the bench (see child-server.launcher.ts); it listens on
 * port 0 and reports its port over IPC.
 */
import express from 'express';
import Redis from 'ioredis';

const redis = new Redis(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
const prefix = process.env.BENCH_KEY_PREFIX ?? 'bench:min:';

const app = express();
app.use(express.json({ limit: '100kb' }));
app.post('/hold', async (req, res) => {
  const seatId = typeof req.body?.seatId === 'string' ? req.body.seatId : null;
  if (!seatId) {
    res.status(400).json({ error: { code: 'VALIDATION_FAILED', message: 'seatId is required' } });
    return;
  }
  const taken = await redis.set(`${prefix}${seatId}`, String(req.body.customerId ?? 'anon'), 'EX', 600, 'NX');
  if (taken === 'OK') res.status(201).json({ hold: { seatId } });
  else res.status(409).json({ error: { code: 'SEATS_UNAVAILABLE', message: 'seat is held' } });
});

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.send?.({ type: 'listening', port: address.port });
});

process.on('SIGTERM', () => {
  server.close(() => {
    void redis.quit().finally(() => process.exit(0));
  });
  server.closeAllConnections();
});
