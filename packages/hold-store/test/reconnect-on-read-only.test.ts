// reconnectOnReadOnly (redis-client.ts): a connection answered READONLY (its Redis was demoted
// by a failover) reconnects, at most once a gap per connection. BullMQ makes several connections
// from one options object, as the worker's do here: each must reconnect on its own refusal, not
// wait out a gap another connection started. On a redis-server of the test's own, made a replica
// of a primary that is not there (it refuses every write); the shared one is never touched.
import { Redis, type RedisOptions } from 'ioredis';
import { reconnectOnReadOnly } from '../src';
import { freePort, RedisProcess, waitFor } from '@holdfast/test-kit';

let server: RedisProcess;
let admin: Redis;

beforeAll(async () => {
  server = await RedisProcess.start();
  admin = new Redis(server.url);
  await admin.replicaof('127.0.0.1', String(await freePort()));
});
afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

const refused = (p: Promise<unknown>) => p.then(() => 'written', (err: Error) => err.message.split(' ')[0]);

test('when two connections made from one options object are each answered READONLY within the gap, then each reconnects once, and a second refusal within the gap does not reconnect it again', async () => {
  // A gap far longer than the test: every reconnect seen here is the first of its connection's gap.
  const options: RedisOptions = { host: '127.0.0.1', port: server.port, reconnectOnError: reconnectOnReadOnly(60_000), retryStrategy: () => 50 };
  const [a, b] = [new Redis(options), new Redis(options)];
  const reconnects = { a: 0, b: 0 };
  a.on('reconnecting', () => { reconnects.a += 1; });
  b.on('reconnecting', () => { reconnects.b += 1; });
  try {
    const [idA, idB] = [await a.client('ID'), await b.client('ID')];

    expect(await refused(a.set('test:read-only', '1'))).toBe('READONLY');
    expect(await refused(b.set('test:read-only', '1'))).toBe('READONLY');
    // Each drops its connection and makes a new one of its own.
    await waitFor('both connections back', () => reconnects.a === 1 && reconnects.b === 1 && a.status === 'ready' && b.status === 'ready',
      { timeoutMs: 5000, intervalMs: 10 });
    expect(await a.client('ID')).not.toBe(idA);
    expect(await b.client('ID')).not.toBe(idB);
    const idA2 = await a.client('ID');

    // Refused again within the gap: the connection stays as it is.
    // (ioredis drops a connection before it rejects the command, so the next one would see a new connection.)
    expect(await refused(a.set('test:read-only', '1'))).toBe('READONLY');
    expect(await a.client('ID')).toBe(idA2);
    expect(reconnects).toEqual({ a: 1, b: 1 });
  } finally {
    a.disconnect();
    b.disconnect();
  }
});

test('when the function is called without a connection, then the calls share one gap; an error other than READONLY never reconnects', () => {
  const reconnect = reconnectOnReadOnly(60_000);
  const readOnly = new Error("READONLY You can't write against a read only replica.");
  expect(reconnect.call(undefined, new Error('ERR unknown command'))).toBe(false);
  expect(reconnect.call(undefined, readOnly)).toBe(1);
  expect(reconnect.call(undefined, readOnly)).toBe(false);
  // Another connection's options object keeps a gap of its own.
  expect(reconnect.call({}, readOnly)).toBe(1);
});
