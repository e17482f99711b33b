// Redis's errors are translated at the hold store's edge (store-errors.ts): a
// store method that meets a Redis that is away or frozen rejects with
// StoreUnavailableError and its reason, never with ioredis's own error. The
// outages run on a redis-server of the test's own; the shared one is never touched.
import { randomUUID } from 'node:crypto';
import { Redis, ReplyError } from 'ioredis';
import { eventKeys, HoldStore, IdempotencyStore, ReconcileStore, StoreUnavailableError, translateRedisError } from '../src';
import { freePort, RedisProcess, waitFor } from '@holdfast/test-kit';
import { failFast } from './hold-requests';
import { mayHaveRun } from '../src/store-errors';


const rejection = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => err);

test('when ioredis or Redis say they cannot serve now, then the translation names why; any other error stays as it is', () => {
  const cases: [Error, string][] = [
    [new Error('Connection is closed.'), 'connection'],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'connection'],
    [Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' }), 'connection'],
    [new Error('connect ECONNREFUSED 127.0.0.1:1'), 'connection'],
    [new Error('Command aborted due to connection close'), 'connection'],
    [new Error('Command timed out'), 'timeout'],
    [new ReplyError('LOADING Redis is loading the dataset in memory'), 'loading'],
    [new ReplyError('CLUSTERDOWN The cluster is down'), 'cluster'],
    [new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'), 'cluster'],
    [new Error("Cluster isn't ready and enableOfflineQueue options is false"), 'cluster'],
    // From a pipeline (a hold with HOLD_REPLICA_ACKS), which ioredis does not redirect after a failover or resharding.
    [new ReplyError('MOVED 12182 127.0.0.1:7102'), 'cluster'],
    [new ReplyError('ASK 12182 127.0.0.1:7102'), 'cluster'],
    [new ReplyError('NOREPLICAS Not enough good replicas to write.'), 'replicas'],
    [new ReplyError("OOM command not allowed when used memory > 'maxmemory'."), 'memory'],
    [new ReplyError("READONLY You can't write against a read only replica."), 'read-only'],
    [new ReplyError('MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.'), 'persistence'],
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

test('when a call failed, then it may have run only if it was sent and its answer never came (what decides a give-back)', () => {
  const cases: [Error, boolean][] = [
    [new Error('Command timed out'), true],
    [new Error('Connection is closed.'), true],
    [Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' }), true],
    [new Error('Command aborted due to connection close'), true],
    [new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'), true],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false"), false],
    [new Error("Cluster isn't ready and enableOfflineQueue options is false"), false],
    [new ReplyError('CLUSTERDOWN The cluster is down'), false],
    [new ReplyError('MOVED 12182 127.0.0.1:7102'), false],
    [new ReplyError('LOADING Redis is loading the dataset in memory'), false],
    [new ReplyError("READONLY You can't write against a read only replica."), false],
    [new ReplyError('ERR wrong number of arguments'), false],
  ];
  expect(cases.map(([err]) => [err.message, mayHaveRun(err)])).toEqual(cases.map(([err, may]) => [err.message, may]));
});

test('when nothing listens where Redis should be, then every store rejects with StoreUnavailableError (connection)', async () => {
  const redis = failFast(await freePort());
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
  let server: RedisProcess;
  let redis: Redis;

  beforeAll(async () => {
    server = await RedisProcess.start();
    redis = failFast(server.port);
    redis.on('error', () => undefined);
    await redis.connect();
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  test('when Redis freezes (SIGSTOP), then a hold script rejects with StoreUnavailableError (timeout) and works again after', async () => {
    const store = new HoldStore(redis);
    const eventId = randomUUID();
    const count = () => store.countHoldRequest({ eventId, customerId: 'c1', rateLimit: 100, rateWindowMs: 60_000 });
    expect(await count()).toBeNull();
    server.pause();
    try {
      const err = await rejection(count());
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as StoreUnavailableError).reason).toBe('timeout');
    } finally {
      server.resume();
    }
    await waitFor('the hold store to answer again', async () => (await count()) === null, { timeoutMs: 5000 });
  });

  /** Blocks this process's event loop, as a long GC pause or a starved CPU would. */
  const stall = (ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      // nothing: the loop is blocked
    }
  };

  test('when this process stalls past the command timeout right after a hold script was issued, then the script still gets Redis\'s answer, not a timeout', async () => {
    const store = new HoldStore(redis);
    const eventId = randomUUID();
    const customerId = `stall-${randomUUID()}`;
    const window = eventKeys(eventId).rateLimit(customerId);
    // Issued, then the process stalls twice the timeout (300 ms) before the command is even written.
    const counted = store.countHoldRequest({ eventId, customerId, rateLimit: 100, rateWindowMs: 60_000 });
    stall(600);
    await expect(counted).resolves.toBeNull();
    // The script ran once: the request is in the customer's window.
    expect(Number(await redis.get(window))).toBe(1);
    await redis.del(window);
  });

  test('when this process stalls and Redis is frozen too, then a hold script still fails (timeout): the grace does not hide a Redis that does not answer', async () => {
    const store = new HoldStore(redis);
    const eventId = randomUUID();
    server.pause();
    try {
      const counted = rejection(store.countHoldRequest({ eventId, customerId: 'frozen', rateLimit: 100, rateWindowMs: 60_000 }));
      stall(600);
      const err = await counted;
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as StoreUnavailableError).reason).toBe('timeout');
    } finally {
      server.resume();
    }
    await redis.del(eventKeys(eventId).rateLimit('frozen'));
  });

  test('when Redis has no room for another client (maxclients), then a new connection\'s store call rejects with StoreUnavailableError (connection)', async () => {
    const clients = (await redis.client('LIST') as string).trim().split('\n').length;
    await redis.config('SET', 'maxclients', String(clients));
    const late = failFast(server.port);
    late.on('error', () => undefined);
    try {
      const err = await rejection(new HoldStore(late).isPrimed(randomUUID()));
      expect(err).toBeInstanceOf(StoreUnavailableError);
      // Refused at connect, the API's fail-fast client never sends the call ("Stream isn't writeable").
      expect((err as StoreUnavailableError).reason).toBe('connection');
    } finally {
      late.disconnect();
      await redis.config('SET', 'maxclients', '10000');
    }
  });

  test('when Redis is at its maxmemory (noeviction), then a hold script that writes rejects with StoreUnavailableError (memory)', async () => {
    const store = new HoldStore(redis);
    const eventId = randomUUID();
    const used = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
    await redis.config('SET', 'maxmemory-policy', 'noeviction');
    await redis.config('SET', 'maxmemory', String(used - 1024));
    try {
      const err = await rejection(store.countHoldRequest({ eventId, customerId: 'c1', rateLimit: 100, rateWindowMs: 60_000 }));
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as StoreUnavailableError).reason).toBe('memory');
    } finally {
      await redis.config('SET', 'maxmemory', '0');
    }
  });
});
