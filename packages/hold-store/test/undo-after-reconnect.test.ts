// A hold (or an Idempotency-Key's claim) that ran in Redis though its call
// failed, and whose undo could not be sent at once because the connection was
// down: the undo is kept and sent once the client is connected again
// (PendingUndos), so the buyer's retry finds the seat free, not held for the
// hold's 10 minutes by a hold nobody was told of. The connection runs through a
// relay of the test's own, to a redis-server of its own.
import { randomUUID } from 'node:crypto';
import { eventKeys, IdempotencyStore, StoreUnavailableError } from '../src';
import { PendingUndos } from '../src/pending-undos';
import { sleep, waitFor } from '@holdfast/test-kit';
import { holdBase, loadScripts, newEvent, relayedRedis, runWithAnswerLost, seatJson, ticketJson } from './hold-requests';

const env = relayedRedis();
afterEach(async () => {
  await waitFor('nothing left to undo', () => env.store.undos.size === 0, { timeoutMs: 5000, intervalMs: 10 });
  await env.direct.flushdb();
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
  const { answered } = await runWithAnswerLost(env, ran, () => settle(call()), { refuse });
  const answer = await answered;
  // Still down a while after the call failed: the undo sent at once finds no connection.
  await sleep(300);
  return answer;
}

test('when a seat hold ran, its connection was lost and stayed down past the call\'s timeout, then the hold is given back once the client reconnects', async () => {
  const eventId = await newEvent(env.store);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const seatIds = [`s-${randomUUID()}`];
  const answer = await lostWithConnection(async () => (await env.direct.exists(k.hold(holdId))) === 1,
    () => env.store.holdSeats({ ...holdBase(eventId, holdId, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] }), false);
  expect(answer).toEqual({ reason: 'timeout' });
  // The give-back sent at the timeout found no connection: kept, and Redis still has the hold.
  expect(env.store.undos.size).toBe(1);
  expect(await env.direct.get(k.seat(seatIds[0]!))).toBe(holdId);
  await env.relay.restore();
  await waitFor('the seat to be free', async () => (await env.direct.get(k.seat(seatIds[0]!))) === null, { timeoutMs: 5000, intervalMs: 10 });
  expect(await env.direct.hgetall(k.hold(holdId))).toEqual({ status: 'released' });
  expect(env.store.undos.size).toBe(0);
  // The buyer's retry (a new request) gets the seat.
  const retry = await env.store.holdSeats({ ...holdBase(eventId, `h-${randomUUID()}`, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] });
  expect(retry.kind).toBe('ok');
});

test('when a ticket hold ran and ioredis gave up on it (its reconnect refused), then the call answers 503 at once and the tickets come back once Redis can be reached', async () => {
  const ticketTypeId = randomUUID();
  const eventId = await newEvent(env.store, [{ id: ticketTypeId, capacity: 5, sold: 0 }]);
  const k = eventKeys(eventId);
  const holdId = `h-${randomUUID()}`;
  const customerId = `c-${randomUUID()}`;
  const recordJson = ticketJson(eventId, customerId, ticketTypeId, 3);
  const answer = await lostWithConnection(async () => (await env.direct.exists(k.hold(holdId))) === 1,
    () => env.store.holdTickets({ ...holdBase(eventId, holdId, customerId), ticketTypeId, quantity: 3, recordJson }), true);
  // Given up at the first refused reconnect (maxRetriesPerRequest: 1), not timed out.
  expect(answer).toEqual({ reason: 'connection' });
  expect(env.store.undos.size).toBe(1);
  expect(await env.direct.hget(k.ticketType(ticketTypeId), 'held')).toBe('3');
  await env.relay.restore();
  await waitFor('the tickets to come back', async () => (await env.direct.hget(k.ticketType(ticketTypeId), 'held')) === '0', { timeoutMs: 5000, intervalMs: 10 });
  expect(await env.direct.hgetall(k.hold(holdId))).toEqual({ status: 'released' });
});

test('when a hold is refused before it is sent (no connection), then nothing is kept to give back', async () => {
  const eventId = await newEvent(env.store);
  env.relay.cut({ refuse: true });
  await waitFor('the client to lose its connection', () => env.redis.status !== 'ready', { timeoutMs: 5000, intervalMs: 5 });
  const seatIds = [`s-${randomUUID()}`];
  const customerId = `c-${randomUUID()}`;
  const answer = await settle(env.store.holdSeats({ ...holdBase(eventId, `h-${randomUUID()}`, customerId), candidates: [{ seatIds, recordJson: seatJson(eventId, customerId, seatIds) }] }));
  expect(answer).toEqual({ reason: 'connection' });
  expect(env.store.undos.size).toBe(0);
});

test('when an Idempotency-Key\'s claim ran and its connection was lost for good, then the key is released once Redis can be reached and a retry with it starts', async () => {
  const idempotency = new IdempotencyStore(env.redis);
  const principal = `p-${randomUUID()}`;
  const key = `k-${randomUUID()}`;
  const redisKey = IdempotencyStore.redisKey(principal, key);
  const answer = await lostWithConnection(async () => (await env.direct.exists(redisKey)) === 1, () => idempotency.begin(principal, key, 'fp-1'), true);
  expect(answer).toEqual({ reason: 'connection' });
  expect(await env.direct.exists(redisKey)).toBe(1);
  await env.relay.restore();
  await waitFor('the key to be released', async () => (await env.direct.exists(redisKey)) === 0, { timeoutMs: 5000, intervalMs: 10 });
  expect((await idempotency.begin(principal, key, 'fp-1')).kind).toBe('started');
});

test('when a keyed request\'s release cannot reach Redis, then the key is released once Redis can be reached, not "in progress" for its lease', async () => {
  const idempotency = new IdempotencyStore(env.redis);
  const principal = `p-${randomUUID()}`;
  const key = `k-${randomUUID()}`;
  const claim = await idempotency.begin(principal, key, 'fp-1');
  expect(claim.kind).toBe('started');
  if (claim.kind !== 'started') return;
  env.relay.cut({ refuse: true });
  await waitFor('the client to lose its connection', () => env.redis.status !== 'ready', { timeoutMs: 5000, intervalMs: 5 });
  expect(await settle(idempotency.release(principal, key, claim.token))).toEqual({ reason: 'connection' });
  expect(await idempotency.begin(principal, key, 'fp-1').catch(() => null)).toBeNull();
  await env.relay.restore();
  await waitFor('the key to be released', async () => (await env.direct.exists(IdempotencyStore.redisKey(principal, key))) === 0, { timeoutMs: 5000, intervalMs: 10 });
  expect((await idempotency.begin(principal, key, 'fp-1')).kind).toBe('started');
});

test('when Redis lost its cached scripts and is frozen as a key\'s release is sent, then the release runs when Redis answers again', async () => {
  const idempotency = new IdempotencyStore(env.redis);
  const principal = `p-${randomUUID()}`;
  const key = `k-${randomUUID()}`;
  const redisKey = IdempotencyStore.redisKey(principal, key);
  const claim = await idempotency.begin(principal, key, 'fp-1');
  if (claim.kind !== 'started') throw new Error(`claim ${claim.kind}`);
  // As after a restart: Redis no longer has the scripts by their SHA.
  await env.direct.script('FLUSH');
  env.server.pause();
  try {
    expect(await settle(idempotency.release(principal, key, claim.token))).toEqual({ reason: 'timeout' });
  } finally {
    env.server.resume();
  }
  await waitFor('the key to be released', async () => (await env.direct.exists(redisKey)) === 0, { timeoutMs: 5000, intervalMs: 10 });
  await loadScripts(env.direct);
});

describe('PendingUndos', () => {
  const unavailable = () => Promise.reject(new Error('Connection is closed.'));

  test('when an undo fails for a reason other than an unreachable Redis, then it is not kept', async () => {
    const undos = new PendingUndos(env.redis);
    await undos.send('a', () => Promise.reject(new Error('ERR something else')), Date.now() + 60_000);
    expect(undos.size).toBe(0);
  });

  test('when undos fail for want of Redis, then they are kept up to the limit, one dropped for each over it, and sent again until they succeed', async () => {
    const undos = new PendingUndos(env.redis, 2, 50);
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
    await waitFor('the kept undos to be sent', () => undos.size === 0, { timeoutMs: 5000, intervalMs: 10 });
    // The two kept: the newest, and one of the others (the oldest, unless a resend in between made it newer).
    expect(sent).toHaveLength(2);
    expect(sent).toContain('c');
  });

  test('when an undo\'s time has passed, then it is dropped, not sent again', async () => {
    const undos = new PendingUndos(env.redis, 10, 50);
    let calls = 0;
    await undos.send('late', () => {
      calls += 1;
      return unavailable();
    }, Date.now() + 1000);
    expect(undos.size).toBe(1);
    await waitFor('the undo to be dropped', () => undos.dropped === 1, { timeoutMs: 5000, intervalMs: 10 });
    expect(undos.size).toBe(0);
    const sentBeforeDrop = calls;
    await sleep(200);
    expect(calls).toBe(sentBeforeDrop);
  });
});
