// The hold store sends the scripts of one event-loop turn in one socket write
// (scripts.ts, writeCoalescer): checked on the real Redis, by counting the
// writes on the client's own socket.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { eventKeys, HoldStore } from '../src';

let redis: Redis;
let store: HoldStore;
const eventId = randomUUID();

beforeAll(async () => {
  redis = new Redis(process.env.REDIS_URL!);
  store = new HoldStore(redis);
  await redis.ping();
});
afterAll(async () => {
  const keys = await redis.keys(`{ev:${eventId}}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

type SocketWrite = (this: Socket, ...args: unknown[]) => unknown;

/** Counts the system-call-level writes (write or writev) of the client's socket while `run` runs. */
async function countWrites<T>(run: () => Promise<T>): Promise<{ result: T; writes: number; chunks: number }> {
  const socket = (redis as unknown as { stream: Socket & { _write: SocketWrite; _writev: SocketWrite } }).stream;
  const { _write, _writev } = socket;
  let writes = 0;
  let chunks = 0;
  socket._write = function (this: Socket, ...args: unknown[]) {
    writes += 1;
    chunks += 1;
    return _write.apply(this, args);
  };
  socket._writev = function (this: Socket, ...args: unknown[]) {
    writes += 1;
    chunks += (args[0] as unknown[]).length;
    return _writev.apply(this, args);
  };
  try {
    return { result: await run(), writes, chunks };
  } finally {
    socket._write = _write;
    socket._writev = _writev;
  }
}

describe('script writes', () => {
  test('when several scripts are sent in one turn, then they leave in one socket write and each gets its own answer, in order', async () => {
    const customerId = `c-${randomUUID()}`;
    const count = () => store.countHoldRequest({ eventId, customerId, rateLimit: 3, rateWindowMs: 60_000 });
    await count(); // the script is loaded on this connection (its first use is an EVAL)
    const { result, writes, chunks } = await countWrites(() => Promise.all([count(), count(), count(), count(), count()]));
    expect(writes).toBe(1);
    expect(chunks).toBe(5);
    // Limit 3, one counted before: two more pass, then the customer is over the limit.
    expect(result.map((r) => (r === null ? 'ok' : 'limited'))).toEqual(['ok', 'ok', 'limited', 'limited', 'limited']);
    expect(await redis.get(eventKeys(eventId).rateLimit(customerId))).toBe('6');
  });

  test('when scripts are sent in successive turns, then each turn has its own write and none waits for a later turn', async () => {
    const customerId = `c-${randomUUID()}`;
    const count = () => store.countHoldRequest({ eventId, customerId, rateLimit: 100, rateWindowMs: 60_000 });
    const { result, writes } = await countWrites(async () => {
      const first = await count();
      const second = await count();
      return [first, second];
    });
    expect(result).toEqual([null, null]);
    expect(writes).toBe(2);
  });
});
