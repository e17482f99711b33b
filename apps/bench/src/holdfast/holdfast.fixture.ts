import { createSecretKey, randomBytes } from 'node:crypto';
import path from 'node:path';

import { createDb, ensureDatabase, listSeats, migrateDatabase, type Db } from '@holdfast/db';
import { createDomain, createEvent, type DomainContext } from '@holdfast/domain';
import { eventKeyPattern, HoldStore } from '@holdfast/hold-store';
import { EXPIRY_QUEUE } from '@holdfast/jobs';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import jwt from 'jsonwebtoken';
import { removeExpiryJobsOf, sign as signStripe, WorkerProcess } from '@holdfast/test-kit';

import { launchChildServer, type ChildServer } from '../baselines/child-server.launcher';
import { benchDatabaseUrl } from '../bench-database.service';
import { startNodeFlags } from './start-node-flags';

/**
 * holdfast as the bench runs it: its tables (the app's own migrations) in the
 * bench database, its Redis keys in a dedicated Redis database index, events
 * created through the domain (`createEvent`) or through the API as a user would
 * (`createEventOverHttp`), and the real HTTP API in a child process.
 */
export interface HoldfastFixture {
  databaseUrl: string;
  redisUrl: string;
  ctx: DomainContext;
  redis: Redis;
  db: Db;
  createEvent(options: BenchEventOptions): Promise<BenchEvent>;
  /**
   * The same event created with `POST /v1/admin/events` on the API at `baseUrl`,
   * its seats sent as a list or as a layout; `createMs` is the request's time
   * (body sent to 201 read), `bodyBytes` its body's size.
   */
  createEventOverHttp(baseUrl: string, options: BenchEventOptions & { as: 'seats' | 'layout' }): Promise<BenchEvent & { createMs: number; bodyBytes: number }>;
  customerToken(customerId: string): string;
  serviceToken(): string;
  adminToken(): string;
  /** Makes an event created some other way (e.g. over HTTP with settings of its own) one this fixture drops on close. */
  adopt(eventId: string): void;
  /** `env`: variables over the bench's own (e.g. OTEL_EXPORTER_OTLP_ENDPOINT for `--tracing on`). */
  startApi(options?: { nodeArgs?: string[]; logFile?: string; env?: Record<string, string> }): Promise<ChildServer>;
  /** holdfast's worker (expiries, outbox, reconciliation) as its own process, on the API's database and Redis. */
  startWorker(env?: Record<string, string>): Promise<WorkerProcess>;
  /** Signs a Stripe webhook payload as Stripe would, with the secret the API was started with. */
  signWebhook(payload: string): string;
  /** Waits (bounded) until the API has persisted every hold of the event from its outbox. */
  outboxDrained(eventId: string): Promise<void>;
  /** Deletes the event's rows and Redis keys. */
  dropEvent(eventId: string): Promise<void>;
  /** Drops every event this fixture created, and closes its connections. */
  close(): Promise<void>;
}

interface BenchEventOptions {
  name: string;
  seats: number;
  ticketCapacity?: number;
  maxTicketsPerCustomer?: number;
  /** How long a hold lasts (600 s unless told). */
  holdTtlSeconds?: number;
}

export interface BenchEvent {
  eventId: string;
  seatIds: string[];
  ticketTypeId: string | null;
}

export function holdfastDatabaseUrl(): string {
  return process.env.BENCH_API_DATABASE_URL ?? benchDatabaseUrl();
}

/** A Redis database index of its own (12 unless told), so the API's keys never mix with anything else's. */
export function holdfastRedisUrl(): string {
  return process.env.BENCH_API_REDIS_URL ?? 'redis://127.0.0.1:6379/12';
}

export async function openHoldfastFixture(): Promise<HoldfastFixture> {
  const databaseUrl = holdfastDatabaseUrl();
  const redisUrl = holdfastRedisUrl();
  await ensureDatabase(databaseUrl);
  await migrateDatabase(databaseUrl);
  const jwtSecret = randomBytes(24).toString('hex');
  const stripeWebhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  const db: Db = createDb(databaseUrl, { poolSize: 4 });
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  const ctx = createDomain({ db, store: new HoldStore(redis), settings: { holdRateLimitPerMinute: 100_000 } });
  // The expiry jobs the API schedules for the holds it persists (BullMQ's default prefix: one Redis).
  const expiry = new Queue(EXPIRY_QUEUE, { connection: redis });
  const created = new Set<string>();
  // The API's token format (HS256, sub and role, 12 h expiry), signed with a
  // KeyObject: given the secret as a string, jsonwebtoken first tries to parse it
  // as a PEM key on every call, and the race lab signs one token per buyer.
  const signingKey = createSecretKey(Buffer.from(jwtSecret, 'utf8'));
  const sign = (sub: string, role: 'customer' | 'service' | 'admin') =>
    jwt.sign({ sub, role }, signingKey, { algorithm: 'HS256', expiresIn: 12 * 3600 });

  const dropEvent = async (eventId: string): Promise<void> => {
    await outboxDrained(ctx.store, eventId);
    await db.$executeRaw`DELETE FROM order_items WHERE order_id IN (SELECT id FROM orders WHERE event_id = ${eventId}::uuid)`;
    await db.$executeRaw`DELETE FROM payments WHERE event_id = ${eventId}::uuid OR hold_id IN (SELECT id FROM holds WHERE event_id = ${eventId}::uuid)`;
    await db.$executeRaw`DELETE FROM audit_entries WHERE event_id = ${eventId}::uuid`;
    await db.$executeRaw`DELETE FROM orders WHERE event_id = ${eventId}::uuid`;
    await db.$executeRaw`DELETE FROM holds WHERE event_id = ${eventId}::uuid`;
    await db.$executeRaw`DELETE FROM events WHERE id = ${eventId}::uuid`;
    await forEachKeyBatch(redis, eventKeyPattern(eventId), (keys) => redis.unlink(...keys));
    await removeExpiryJobsOf(expiry, async (pattern) => {
      const keys: string[] = [];
      await forEachKeyBatch(redis, pattern, async (batch) => keys.push(...batch));
      return keys;
    }, eventId);
    created.delete(eventId);
  };

  return {
    databaseUrl,
    redisUrl,
    ctx,
    redis,
    db,
    async createEvent(options) {
      const event = await createEvent(ctx, {
        name: options.name,
        startsAt: new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1, 19)),
        currency: 'USD',
        holdTtlSeconds: options.holdTtlSeconds ?? 600,
        maxTicketsPerCustomer: options.maxTicketsPerCustomer ?? 100,
        seats: seatLayout(options.seats),
        ticketTypes: options.ticketCapacity
          ? [{ name: 'General Admission', priceCents: 5000, capacity: options.ticketCapacity }]
          : [],
      });
      created.add(event.id);
      const seats = await listSeats(db, event.id);
      return { eventId: event.id, seatIds: seats.map((seat) => seat.id), ticketTypeId: event.ticketTypes[0]?.id ?? null };
    },
    async createEventOverHttp(baseUrl, options) {
      const body = JSON.stringify({
        name: options.name,
        startsAt: new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1, 19)).toISOString(),
        maxTicketsPerCustomer: options.maxTicketsPerCustomer ?? 100,
        ...(options.as === 'seats' ? { seats: seatLayout(options.seats) } : { layout: compactLayout(options.seats) }),
        ticketTypes: options.ticketCapacity ? [{ name: 'General Admission', priceCents: 5000, capacity: options.ticketCapacity }] : [],
      });
      const t0 = performance.now();
      const res = await fetch(`${baseUrl}/v1/admin/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sign('bench-admin', 'admin')}`, 'content-type': 'application/json' },
        body,
      });
      const answer = (await res.json()) as { event?: { id: string; ticketTypes: { id: string }[] } };
      const createMs = performance.now() - t0;
      if (res.status !== 201 || !answer.event) throw new Error(`POST /v1/admin/events answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
      created.add(answer.event.id);
      const seats = await listSeats(db, answer.event.id);
      return {
        eventId: answer.event.id, seatIds: seats.map((seat) => seat.id), ticketTypeId: answer.event.ticketTypes[0]?.id ?? null,
        createMs, bodyBytes: Buffer.byteLength(body),
      };
    },
    customerToken: (customerId) => sign(customerId, 'customer'),
    serviceToken: () => sign('bench-service', 'service'),
    adminToken: () => sign('bench-admin', 'admin'),
    adopt: (eventId) => {
      created.add(eventId);
    },
    startWorker: (env = {}) =>
      WorkerProcess.start({
        NODE_ENV: 'production',
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        JWT_SECRET: jwtSecret,
        STRIPE_WEBHOOK_SECRET: stripeWebhookSecret,
        WORKER_METRICS_PORT: '0',
        ...env,
      }),
    signWebhook: (payload) => signStripe(payload, stripeWebhookSecret),
    startApi: (options = {}) =>
      launchChildServer({
        entry: path.join(__dirname, 'holdfast-api.server.ts'),
        // As `npm start` runs it (its node flags), plus the bench's own (a CPU profile).
        nodeArgs: [...startNodeFlags(), ...(options.nodeArgs ?? [])],
        stdoutFile: options.logFile,
        env: {
          NODE_ENV: 'production',
          DEMO_MODE: 'false',
          PORT: '0',
          DATABASE_URL: databaseUrl,
          REDIS_URL: redisUrl,
          JWT_SECRET: jwtSecret,
          STRIPE_WEBHOOK_SECRET: stripeWebhookSecret,
          // The limiter still runs on every hold; the bench's customers just never reach it.
          HOLD_RATE_LIMIT_PER_MINUTE: '100000',
          LOG_LEVEL: 'info',
          ...options.env,
        },
      }),
    outboxDrained: (eventId) => outboxDrained(ctx.store, eventId),
    dropEvent,
    async close() {
      try {
        for (const eventId of [...created]) await dropEvent(eventId);
      } finally {
        ctx.persister.stop();
        await expiry.close();
        redis.disconnect();
        await db.$disconnect();
      }
    },
  };
}

/** Every key matching `pattern` (SCAN), a non-empty batch at a time. */
async function forEachKeyBatch(redis: Redis, pattern: string, each: (keys: string[]) => Promise<unknown>): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length > 0) await each(keys);
    cursor = next;
  } while (cursor !== '0');
}

/** How long dropEvent waits for the API to persist an event's last holds. */
const OUTBOX_DRAIN_WAIT_MS = 15_000;

/**
 * Waits (bounded) until the API has persisted every hold of the event from its
 * outbox. Dropped under a live outbox, the event's last holds reach
 * PostgreSQL after their event is gone: each is refused (foreign key), the
 * batch is written again one record at a time and each record parked in a
 * stream that outlives the event; a race lab warm-up sale left 500 of those
 * to the API's next seconds, the measured sale's (`git show aba00ee:docs/benchmarks.md`,
 * issue 12, seventh pass).
 */
async function outboxDrained(store: HoldStore, eventId: string): Promise<void> {
  const deadline = Date.now() + OUTBOX_DRAIN_WAIT_MS;
  while ((await store.outboxLength(eventId)) > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The seats of `seatLayout(count)` as a layout: sections of rows 1–100 of 100 seats, the last one shorter. */
function compactLayout(count: number) {
  const range = (from: number, to: number, seatsPerRow: number) => ({ from, to, seatsPerRow, tier: 'standard', priceCents: 5000 });
  const sections = [];
  for (let first = 0, s = 1; first < count; first += 10_000, s += 1) {
    const inSection = Math.min(10_000, count - first);
    const fullRows = Math.floor(inSection / 100);
    const rows = [];
    if (fullRows > 0) rows.push(range(1, fullRows, 100));
    if (inSection % 100 > 0) rows.push(range(fullRows + 1, fullRows + 1, inSection % 100));
    sections.push({ name: `S${s}`, rows });
  }
  return { sections };
}

/** `count` seats: sections of 100 rows × 100 seats, one tier and price. */
function seatLayout(count: number): { section: string; row: string; number: number; tier: string; priceCents: number }[] {
  return Array.from({ length: count }, (_, index) => ({
    section: `S${Math.floor(index / 10_000) + 1}`,
    row: String(Math.floor((index % 10_000) / 100) + 1),
    number: (index % 100) + 1,
    tier: 'standard',
    priceCents: 5000,
  }));
}
