/**
 * For the hold store's fault tests (store-errors, lost-hold-give-back, resent-hold,
 * undo-after-reconnect), which run on a redis-server of their own: the API's
 * fail-fast client, such a server behind a relay, the fields every hold carries, a
 * seat or ticket hold's record JSON, and a primed event on a given store.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisProcess, startRelay, waitFor, type Relay } from '@holdfast/test-kit';
import { HoldStore, scriptFiles, scriptSource, type ScriptName } from '../src';

/** The API's fail-fast options (apps/api runtime.ts): no offline queue, one retry, a (short) command timeout. */
export const failFast = (port: number) => new Redis({
  host: '127.0.0.1', port, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 300, connectTimeout: 500,
  retryStrategy: () => 100, lazyConnect: true,
});

/** The holds' lease. */
export const TTL_MS = 120_000;

/** What every hold request carries besides its selection. */
export const holdBase = (eventId: string, holdId: string, customerId: string) => ({
  eventId, holdId, customerId, ttlMs: TTL_MS, maxPerCustomer: 20, rateLimit: 100, rateWindowMs: 60_000, outboxMaxPending: 1000,
});

/** A seat hold's record JSON (its items, as the API writes them). */
export const seatJson = (eventId: string, customerId: string, seatIds: string[]) =>
  JSON.stringify({ eventId, customerId, items: seatIds.map((seatId) => ({ seatId, quantity: 1 })), currency: 'EUR', totalCents: 1000 * seatIds.length });

/** A ticket hold's record JSON (1,000 cents a ticket). */
export const ticketJson = (eventId: string, customerId: string, ticketTypeId: string, quantity: number) =>
  JSON.stringify({ eventId, customerId, items: [{ ticketTypeId, quantity }], currency: 'EUR', totalCents: 1000 * quantity });

/** A new event, primed on `store` (with these ticket types). */
export async function newEvent(store: HoldStore, ticketTypes: { id: string; capacity: number; sold: number }[] = []): Promise<string> {
  const eventId = randomUUID();
  expect(await store.primeEvent({ eventId, ticketTypes, bought: [], soldSeatIds: [] })).toBe(true);
  return eventId;
}

/**
 * Loads the scripts into Redis, as one that served holds before has them: the first EVALSHA
 * of a script Redis lacks is answered NOSCRIPT, and these tests must not lose that answer.
 */
export async function loadScripts(redis: Redis, except: readonly ScriptName[] = []): Promise<void> {
  for (const name of Object.keys(scriptFiles()) as ScriptName[]) {
    if (!except.includes(name)) await redis.script('LOAD', scriptSource(name));
  }
}

/** A redis-server of the test's own behind a relay (relayedRedis). */
export interface RelayedRedis {
  server: RedisProcess;
  relay: Relay;
  /** The API's fail-fast client (apps/api runtime.ts: its timeouts and retries), through the relay. */
  redis: Redis;
  /** Straight to the server: what the test reads. */
  direct: Redis;
  /** A hold store on `redis`. */
  store: HoldStore;
}

/**
 * Starts `call` while the relay drops Redis's answers, waits until `ran` (what it
 * sent has run in Redis), then cuts the connection (`refuse`: the port stops
 * listening) and lets answers through again. The call is returned still pending
 * (in an object: a promise returned bare would be awaited here).
 */
export async function runWithAnswerLost<T>(
  env: RelayedRedis, ran: () => Promise<boolean>, call: () => Promise<T>, cut: { refuse?: boolean } = {},
): Promise<{ answered: Promise<T> }> {
  env.relay.mute();
  const answered = call();
  await waitFor('what the call sent to run', ran, { timeoutMs: 5000, intervalMs: 5 });
  env.relay.cut(cut);
  env.relay.unmute();
  return { answered };
}

/**
 * Starts a redis-server of the test's own with a relay in front (beforeAll), the
 * scripts loaded (a NOSCRIPT answer must not be the one the relay drops), and stops
 * them (afterAll). After each test the relay lets everything through again and the
 * client is connected; the test's keys are its own to clean.
 */
export function relayedRedis(): RelayedRedis {
  const env = {} as RelayedRedis;
  beforeAll(async () => {
    env.server = await RedisProcess.start();
    env.relay = await startRelay(`redis://127.0.0.1:${env.server.port}`);
    env.redis = new Redis({
      host: '127.0.0.1', port: env.relay.port, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000, connectTimeout: 1500,
      retryStrategy: (times) => Math.min(100 * times, 1000), lazyConnect: true,
    });
    env.redis.on('error', () => undefined);
    await env.redis.connect();
    env.direct = new Redis(env.server.url);
    env.store = new HoldStore(env.redis);
    await loadScripts(env.direct);
  });
  afterAll(async () => {
    env.redis?.disconnect();
    env.direct?.disconnect();
    await env.relay?.close();
    await env.server?.stop();
  });
  afterEach(async () => {
    env.relay.unmute();
    await env.relay.restore();
    await waitFor('the client to be connected again', () => env.redis.status === 'ready', { timeoutMs: 5000, intervalMs: 10 });
  });
  return env;
}
