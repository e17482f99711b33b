// Redis's errors are translated at the hold store's edge (store-errors.ts): a
// store method that meets a Redis that is away or frozen rejects with
// StoreUnavailableError and its reason, never with ioredis's own error. The
// outages run on a redis-server of the test's own; the shared one is never touched.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { Redis, ReplyError } from 'ioredis';
import { HoldStore, IdempotencyStore, ReconcileStore, StoreUnavailableError, translateRedisError } from '@holdfast/hold-store';

async function sparePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** The API's fail-fast options (apps/api runtime.ts): no offline queue, one retry, a command timeout. */
const failFast = (port: number) => new Redis({
  host: '127.0.0.1', port, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 300, connectTimeout: 500,
  retryStrategy: () => 100, lazyConnect: true,
});

const rejection = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => err);

test('when ioredis or Redis say they cannot serve now, then the translation names why; any other error stays as it is', () => {
  const cases: [Error, string][] = [
    [new Error('Connection is closed.'), 'connection'],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'connection'],
    [Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' }), 'connection'],
    [new Error('connect ECONNREFUSED 127.0.0.1:1'), 'connection'],
    [new Error('Command timed out'), 'timeout'],
    [new ReplyError('LOADING Redis is loading the dataset in memory'), 'loading'],
    [new ReplyError('CLUSTERDOWN The cluster is down'), 'cluster'],
    [new Error("Cluster isn't ready and enableOfflineQueue options is false"), 'cluster'],
    [new ReplyError('NOREPLICAS Not enough good replicas to write.'), 'replicas'],
  ];
  for (const [err, reason] of cases) {
    const translated = translateRedisError(err);
    expect(translated).toBeInstanceOf(StoreUnavailableError);
    expect({ message: err.message, reason: (translated as StoreUnavailableError).reason }).toEqual({ message: err.message, reason });
    expect((translated as StoreUnavailableError).cause).toBe(err);
  }
  const other = new ReplyError('ERR wrong number of arguments');
  expect(translateRedisError(other)).toBe(other);
  expect(translateRedisError('text')).toBe('text');
});

test('when nothing listens where Redis should be, then every store rejects with StoreUnavailableError (connection)', async () => {
  const redis = failFast(await sparePort());
  redis.on('error', () => undefined);
  try {
    const eventId = randomUUID();
    for (const call of [
      () => new HoldStore(redis).isPrimed(eventId),
      () => new ReconcileStore(redis).soldSeats(eventId),
      () => new IdempotencyStore(redis).begin('p', 'k', 'f'),
    ]) {
      const err = await rejection(call());
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as StoreUnavailableError).reason).toBe('connection');
    }
  } finally {
    redis.disconnect();
  }
});

describe('a Redis of the test\'s own', () => {
  let server: ChildProcess;
  let redis: Redis;

  beforeAll(async () => {
    const port = await sparePort();
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    redis = failFast(port);
    redis.on('error', () => undefined);
    for (let i = 0; i < 100 && redis.status !== 'ready'; i++) {
      await redis.connect().catch(() => new Promise((r) => setTimeout(r, 50)));
    }
    expect(await redis.ping()).toBe('PONG');
  });
  afterAll(async () => {
    redis?.disconnect();
    if (server && server.exitCode === null) {
      server.kill('SIGCONT');
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGKILL');
      await exited;
    }
  });

  test('when Redis freezes (SIGSTOP), then a hold script rejects with StoreUnavailableError (timeout) and works again after', async () => {
    const store = new HoldStore(redis);
    const eventId = randomUUID();
    const count = () => store.countHoldRequest({ eventId, customerId: 'c1', rateLimit: 100, rateWindowMs: 60_000 });
    expect(await count()).toBeNull();
    server.kill('SIGSTOP');
    try {
      const err = await rejection(count());
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as StoreUnavailableError).reason).toBe('timeout');
    } finally {
      server.kill('SIGCONT');
    }
    let again: unknown = await rejection(count());
    for (let i = 0; i < 40 && again instanceof Error; i++) {
      await new Promise((r) => setTimeout(r, 100));
      again = await rejection(count());
    }
    expect(again).toBeNull();
  });
});
