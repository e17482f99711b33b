import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { loadConfig, type Config } from '@holdfast/config';
import { eventKeyPattern, IdempotencyStore, masters } from '@holdfast/hold-store';
import { checkResponse, createApiRuntime, createLogger, signToken, type ApiRuntime } from '@holdfast/api';
import { EVENT_ROWS_DELETE } from './event-rows';
import { removeExpiryJobsOf } from './expiry-jobs';
import { RedisProcess } from './redis-process';
import { standIn } from './stand-in';

export interface TestApi {
  url: string;
  rt: ApiRuntime;
  config: Config;
  token(role: 'customer' | 'service' | 'admin', sub?: string): string;
  /** fetch against the API with JSON in and out. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any field of any answer
  call(method: string, path: string, opts?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  /** An Idempotency-Key sent to this API some other way than `call` (its Redis key is removed at close, as call's are). */
  trackIdempotencyKey(token: string, key: string): void;
  close(): Promise<void>;
}

export interface StartApiOptions {
  /** Where the API's log lines go (e.g. `logLines().sink`) instead of the default logger's. */
  logTo?: NodeJS.WritableStream;
}

/** Starts the real app on port 0 against the real PostgreSQL and Redis. */
export async function startApi(env: Record<string, string> = {}, options: StartApiOptions = {}): Promise<TestApi> {
  const config = loadConfig({ ...process.env, ...env });
  const rt = await createApiRuntime(config, options.logTo ? createLogger(config, 'holdfast-api', options.logTo) : undefined);
  const server: Server = await new Promise((resolve) => {
    const s = rt.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  server.keepAliveTimeout = 1000;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The Redis keys of the Idempotency-Keys sent through `call`: removed when the API closes.
  const keyed = new Set<string>();
  return {
    url, rt, config,
    token: (role, sub = `${role}-${Math.random().toString(36).slice(2)}`) => {
      if (!config.jwtSecret) throw new Error('startApi: this API has no JWT_SECRET to sign test tokens with');
      return signToken(config.jwtSecret, sub, role);
    },
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      const idempotencyKey = Object.entries(headers).find(([name]) => name.toLowerCase() === 'idempotency-key')?.[1];
      if (idempotencyKey !== undefined && opts.token) keyed.add(idempotencyRedisKey(opts.token, idempotencyKey));
      let body: string | undefined;
      if (opts.raw !== undefined) body = opts.raw;
      else if (opts.body !== undefined) body = JSON.stringify(opts.body);
      if (body !== undefined) headers['content-type'] ??= 'application/json';
      const res = await fetch(url + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON: the test sees the raw text */
      }
      // Every answer a test gets must be what the route table documents for its endpoint and status.
      checkResponse(method, path, { status: res.status, body: parsed, contentType: res.headers.get('content-type') });
      return { status: res.status, body: parsed, headers: res.headers };
    },
    trackIdempotencyKey(token, key) {
      keyed.add(idempotencyRedisKey(token, key));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      for (const key of keyed) await rt.redis.del(key).catch(() => undefined); // one at a time: a cluster's keys lie in many slots
      await rt.close();
    },
  };
}

/** The Redis key of an Idempotency-Key sent with a bearer token (its principal is the token's role and subject). */
function idempotencyRedisKey(token: string, key: string): string {
  const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub?: string; role?: string };
  return IdempotencyStore.redisKey(`${claims.role}:${claims.sub}`, key);
}

export interface SeatSpec { section: string; row: string; number: number; tier: string; priceCents: number }

/** A grid of seats: sections × rows × numbers, one tier and price unless told. */
export function seatGrid(sections: string[], rows: number, perRow: number, tier = 'standard', priceCents = 5000): SeatSpec[] {
  const seats: SeatSpec[] = [];
  for (const section of sections)
    for (let r = 1; r <= rows; r++)
      for (let n = 1; n <= perRow; n++) seats.push({ section, row: String(r), number: n, tier, priceCents });
  return seats;
}

/** Creates an event through the admin API and returns it with its seats. */
export async function createTestEvent(api: TestApi, body: Record<string, unknown>) {
  const res = await api.call('POST', '/v1/admin/events', {
    token: api.token('admin'),
    body: { name: 'Test event', startsAt: '2027-01-01T19:00:00Z', ...body },
  });
  if (res.status !== 201) throw new Error(`event creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  const seats = await api.call('GET', `/v1/events/${res.body.event.id}/seats`);
  return { event: res.body.event, seats: seats.body.seats as { id: string; label: string; status: string; tier: string; priceCents: number }[] };
}

/** Removes an event's rows and Redis keys after a test. */
export async function dropTestEvent(api: TestApi, eventId: string): Promise<void> {
  // Holds still in the outbox are written first: drained after the event's row is gone, PostgreSQL
  // would refuse them and they would be parked in a stream made anew, after its keys were deleted.
  await api.rt.ctx.persister.flush().catch(() => undefined);
  for (const sql of EVENT_ROWS_DELETE) await api.rt.db.$executeRawUnsafe(sql, eventId);
  await forgetEventInRedis(api, eventId);
  await dropExpiryJobsOf(api, eventId);
}

/** Removes the expiry jobs of an event's holds from the API's queue (removeExpiryJobsOf). */
export async function dropExpiryJobsOf(api: TestApi, eventId: string): Promise<void> {
  await removeExpiryJobsOf(api.rt.queues.expiry, async (pattern) => (await scanOn(api, '0', 'MATCH', pattern, 'COUNT', 1000))[1], eventId);
}

/**
 * Removes webhook endpoints made by a test through the admin API: their rows,
 * the audit entries their creation and changes wrote, and the webhook events
 * no delivery points to any more.
 */
export async function dropTestWebhooks(api: TestApi, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  const db = api.rt.db;
  await db.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ANY (${ids}::uuid[])`;
  await db.$executeRaw`DELETE FROM audit_entries WHERE event_id IS NULL AND details->>'webhookId' = ANY (${ids}::text[])`;
  await db.$executeRaw`DELETE FROM webhook_events ev WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id)`;
}

/** Deletes every Redis key of an event, as if Redis had restarted without its data. */
export async function forgetEventInRedis(api: TestApi, eventId: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await scanOn(api, cursor, 'MATCH', eventKeyPattern(eventId), 'COUNT', 1000);
    if (keys.length) await api.rt.redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

export interface TestApiOptions extends StartApiOptions {
  /** Runs the API on a redis-server of the suite's own (`redis`), started before it and stopped after. */
  privateRedis?: boolean;
}

/**
 * For a suite (or a describe block): starts the API before its tests and,
 * after them, drops every event made through `newEvent`, closes the API and
 * stops its private Redis. `api` stands for the started API, so it can be
 * taken apart at once: `const { api, newEvent } = useTestApi()`. `env` may be
 * a function, read when the API starts (after the suite's earlier hooks).
 */
export function useTestApi(env: Record<string, string> | (() => Record<string, string>) = {}, options: TestApiOptions = {}) {
  let api: TestApi | undefined;
  let redis: RedisProcess | undefined;
  const events: string[] = [];
  const started = (): TestApi => {
    if (!api) throw new Error('useTestApi: the API is not started yet (use it inside a test or a hook)');
    return api;
  };
  const liveApi = standIn(started);
  const liveRedis = standIn((): RedisProcess => {
    if (!redis) throw new Error('useTestApi: no private Redis (pass { privateRedis: true }) or not started yet');
    return redis;
  });
  beforeAll(async () => {
    if (options.privateRedis) redis = await RedisProcess.start();
    const vars = typeof env === 'function' ? env() : env;
    api = await startApi(redis ? { ...vars, REDIS_URL: redis.url } : vars, options);
  });
  afterAll(async () => {
    if (api) {
      for (const id of events) await dropTestEvent(api, id);
      await api.close();
    }
    await redis?.stop();
  });
  return {
    api: liveApi,
    /** The suite's own redis-server (with `privateRedis`). */
    redis: liveRedis,
    async newEvent(body: Record<string, unknown>) {
      const created = await createTestEvent(started(), body);
      events.push(created.event.id);
      return created;
    },
  };
}

/**
 * SCAN … MATCH over every master (the one Redis, or each master of a cluster),
 * whole: answers cursor '0' with every key found, so a caller's loop runs once.
 */
export async function scanOn(api: TestApi, _cursor: string, _match: 'MATCH', pattern: string, _count: 'COUNT', count: number): Promise<[string, string[]]> {
  const found: string[] = [];
  for (const node of masters(api.rt.redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  return ['0', found];
}
