/**
 * For the hold store's fault tests (store-errors, lost-hold-give-back, resent-hold),
 * which run on a redis-server of their own: the API's fail-fast client, the fields
 * every hold carries, a seat hold's record JSON, and a primed event on a given store.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { scriptFiles, scriptSource, type HoldStore, type ScriptName } from '../src';

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
