// A hold (or an Idempotency-Key's claim) that ran in Redis though its call
// failed, and whose undo could not be sent at once because the connection was
// down: the undo is kept and sent once the client is connected again
// (PendingUndos), so the buyer's retry finds the seat free, not held for the
// hold's 10 minutes by a hold nobody was told of. The connection runs through a
// relay of the test's own, to a redis-server of its own.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { eventKeys, HoldStore, IdempotencyStore, StoreUnavailableError } from '../src';
import { PendingUndos } from '../src/pending-undos';
import { RedisProcess, sleep, startRelay, waitFor, type Relay } from '@holdfast/test-kit';
import { holdBase, loadScripts, newEvent, seatJson } from './hold-requests';

let server: RedisProcess;
let relay: Relay;
/** The API's fail-fast client (apps/api runtime.ts), through the relay. */
let redis: Redis;
/** Straight to the server: what the test reads. */
let direct: Redis;
let store: HoldStore;

beforeAll(async () => {
  server = await RedisProcess.start();
  relay = await startRelay(`redis://127.0.0.1:${server.port}`);
  redis = new Redis({
    host: '127.0.0.1', port: relay.port, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000, connectTimeout: 1500,
    retryStrategy: (times) => Math.min(100 * times, 1000), lazyConnect: true,
  });
  redis.on('error', () => undefined);
  await redis.connect();
  direct = new Redis(server.url);
  store = new HoldStore(redis);
  await loadScripts(direct);
});
afterAll(async () => {
  redis?.disconnect();
  direct?.disconnect();
  await relay?.close();
  await server?.stop();
});
afterEach(async () => {
  relay.unmute();
  await relay.restore();
  await waitFor('the client to be connected again', () => redis.status === 'ready', { timeoutMs: 5000, intervalMs: 10 });
  await waitFor('nothing left to undo', () => store.undos.size === 0, { timeoutMs: 5000, intervalMs: 10 });
  await direct.flushdb();
});

/** What the call answered: its value, or the reason of the StoreUnavailableError it threw. */
const settle = <T>(p: Promise<T>) => p.then((value) => ({ value }), (err: unknown) => ({
  reason: err instanceof StoreUnavailableError ? err.reason : String(err),
}));

/**
 * Runs `call` while the relay drops Redis's answers, until `ran` (the script ran in Redis),
 * then cuts the connection and keeps it down (`refuse`: the port refuses connections, so
 * ioredis gives up on the call at its next reconnect) until the call has failed.
 */
async function lostWithConnection<T>(ran: () => Promise<boolean>, call: () => Promise<T>, refuse: boolean) {
  relay.mute();
  const answered = settle(call());
  await waitFor('the script to run', ran, { timeoutMs: 5000, intervalMs: 5 });
  relay.cut({ refuse });
  relay.unmute();
  const answer = await answered;
  // Still down a while after the call failed: the undo sent at once finds no connection.
  await sleep(300);
  return answer;
}

test('when a seat hold ran, its connection was lost and stayed down past the call\'s timeout, then the hold is given back once the client reconnects', async () => {
  const eventId = await newEvent(store);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`];
  const answer = await lostWithConnection(async () => (await direct.exists(k.hold(holdId))) === 1,
    () => store.holdSeats({ ...holdBase(eventId, holdId, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] }), false);
  expect(answer).toEqual({ reason: 'timeout' });
  // The give-back sent at the timeout found no connection: kept, and Redis still has the hold.
  expect(store.undos.size).toBe(1);
  expect(await direct.get(k.seat(seatIds[0]!))).toBe(holdId);
  await relay.restore();
  await waitFor('the seat to be free', async () => (await direct.get(k.seat(seatIds[0]!))) === null, { timeoutMs: 5000, intervalMs: 10 });
  expect(await direct.hgetall(k.hold(holdId))).toEqual({ status: 'released' });
  expect(store.undos.size).toBe(0);
  // The buyer's retry (a new request) gets the seat.
  const retry = await store.holdSeats({ ...holdBase(eventId, `h-${randomUUID()}`, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] });
  expect(retry.kind).toBe('ok');
});

test('when a ticket hold ran and ioredis gave up on it (its reconnect refused), then the call answers 503 at once and the tickets come back once Redis can be reached', async () => {
  const ticketTypeId = randomUUID();
  const eventId = await newEvent(store, [{ id: ticketTypeId, capacity: 5, sold: 0 }]);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const recordJson = JSON.stringify({ eventId, customerId, items: [{ ticketTypeId, quantity: 3 }], currency: 'EUR', totalCents: 3000 });
  const t0 = Date.now();
  const answer = await lostWithConnection(async () => (await direct.exists(k.hold(holdId))) === 1,
    () => store.holdTickets({ ...holdBase(eventId, holdId, customerId), ticketTypeId, quantity: 3, recordJson }), true);
  // Given up at the first refused reconnect (maxRetriesPerRequest: 1), before the command timeout.
  expect(answer).toEqual({ reason: 'connection' });
  expect(Date.now() - t0).toBeLessThan(1000 + 300);
  expect(store.undos.size).toBe(1);
  expect(await direct.hget(k.ticketType(ticketTypeId), 'held')).toBe('3');
  await relay.restore();
  await waitFor('the tickets to come back', async () => (await direct.hget(k.ticketType(ticketTypeId), 'held')) === '0', { timeoutMs: 5000, intervalMs: 10 });
  expect(await direct.hgetall(k.hold(holdId))).toEqual({ status: 'released' });
});

test('when a hold is refused before it is sent (no connection), then nothing is kept to give back', async () => {
  const eventId = await newEvent(store);
  relay.cut({ refuse: true });
  await waitFor('the client to lose its connection', () => redis.status !== 'ready', { timeoutMs: 5000, intervalMs: 5 });
  const seatIds = [`s-${randomUUID()}`];
  const customerId = `c-${randomUUID()}`;
  const answer = await settle(store.holdSeats({ ...holdBase(eventId, `h-${randomUUID()}`, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] }));
  expect(answer).toEqual({ reason: 'connection' });
  expect(store.undos.size).toBe(0);
});

test('when an Idempotency-Key\'s claim ran and its connection was lost for good, then the key is released once Redis can be reached and a retry with it starts', async () => {
  const idempotency = new IdempotencyStore(redis);
  const principal = `p-${randomUUID()}`;
  const key = `k-${randomUUID()}`;
  const redisKey = IdempotencyStore.redisKey(principal, key);
  const answer = await lostWithConnection(async () => (await direct.exists(redisKey)) === 1, () => idempotency.begin(principal, key, 'fp-1'), true);
  expect(answer).toEqual({ reason: 'connection' });
  expect(await direct.exists(redisKey)).toBe(1);
  await relay.restore();
  await waitFor('the key to be released', async () => (await direct.exists(redisKey)) === 0, { timeoutMs: 5000, intervalMs: 10 });
  expect((await idempotency.begin(principal, key, 'fp-1')).kind).toBe('started');
});

test('when a keyed request\'s release cannot reach Redis, then the key is released once Redis can be reached, not "in progress" for its lease', async () => {
  const idempotency = new IdempotencyStore(redis);
  const principal = `p-${randomUUID()}`;
  const key = `k-${randomUUID()}`;
  const claim = await idempotency.begin(principal, key, 'fp-1');
  expect(claim.kind).toBe('started');
  if (claim.kind !== 'started') return;
  relay.cut({ refuse: true });
  await waitFor('the client to lose its connection', () => redis.status !== 'ready', { timeoutMs: 5000, intervalMs: 5 });
  expect(await settle(idempotency.release(principal, key, claim.token))).toEqual({ reason: 'connection' });
  expect(await idempotency.begin(principal, key, 'fp-1').catch(() => null)).toBeNull();
  await relay.restore();
  await waitFor('the key to be released', async () => (await direct.exists(IdempotencyStore.redisKey(principal, key))) === 0, { timeoutMs: 5000, intervalMs: 10 });
  expect((await idempotency.begin(principal, key, 'fp-1')).kind).toBe('started');
});

test('when Redis lost its cached scripts and is frozen as a key\'s release is sent, then the release runs when Redis answers again', async () => {
  const idempotency = new IdempotencyStore(redis);
  const principal = `p-${randomUUID()}`;
  const key = `k-${randomUUID()}`;
  const redisKey = IdempotencyStore.redisKey(principal, key);
  const claim = await idempotency.begin(principal, key, 'fp-1');
  if (claim.kind !== 'started') throw new Error(`claim ${claim.kind}`);
  // As after a restart: Redis no longer has the scripts by their SHA.
  await direct.script('FLUSH');
  server.pause();
  try {
    expect(await settle(idempotency.release(principal, key, claim.token))).toEqual({ reason: 'timeout' });
  } finally {
    server.resume();
  }
  await waitFor('the key to be released', async () => (await direct.exists(redisKey)) === 0, { timeoutMs: 5000, intervalMs: 10 });
  await loadScripts(direct);
});

describe('PendingUndos', () => {
  const unavailable = () => Promise.reject(new Error('Connection is closed.'));

  test('when an undo fails for a reason other than an unreachable Redis, then it is not kept', async () => {
    const undos = new PendingUndos(redis);
    await undos.send('a', () => Promise.reject(new Error('ERR something else')), Date.now() + 60_000);
    expect(undos.size).toBe(0);
  });

  test('when undos fail for want of Redis, then they are kept up to the limit, the oldest dropped first, and sent again until they succeed', async () => {
    const undos = new PendingUndos(redis, 2, 50);
    let failing = true;
    const sent: string[] = [];
    const undo = (name: string) => () => {
      sent.push(name);
      return failing ? unavailable() : Promise.resolve();
    };
    for (const name of ['a', 'b', 'c']) await undos.send(name, undo(name), Date.now() + 60_000);
    expect(undos.size).toBe(2);
    expect(undos.dropped).toBe(1);
    failing = false;
    sent.length = 0;
    await waitFor('the kept undos to be sent', () => undos.size === 0, { timeoutMs: 2000, intervalMs: 10 });
    expect(sent.sort()).toEqual(['b', 'c']);
  });

  test('when an undo\'s time has passed, then it is dropped, not sent again', async () => {
    const undos = new PendingUndos(redis, 10, 50);
    let calls = 0;
    await undos.send('late', () => {
      calls += 1;
      return unavailable();
    }, Date.now() + 120);
    expect(undos.size).toBe(1);
    await waitFor('the undo to be dropped', () => undos.dropped === 1, { timeoutMs: 2000, intervalMs: 10 });
    expect(undos.size).toBe(0);
    const sentBeforeDrop = calls;
    await sleep(200);
    expect(calls).toBe(sentBeforeDrop);
  });
});
