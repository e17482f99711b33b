// Outbound webhooks in PostgreSQL: endpoints, the events recorded in the caller's transaction
// with one delivery per subscribed endpoint, and each attempt at a delivery.
import { randomUUID } from 'node:crypto';
import { Prisma } from '@prisma/client';
import type { DbClient } from './event.repository';
import { translated } from './errors';

export type WebhookDeliveryStatus = 'pending' | 'queued' | 'succeeded' | 'failed';

export interface WebhookEndpointRow {
  id: string;
  url: string;
  events: string[];
  /** The signing secret: handed to the deliverer, never logged, never listed. */
  secret: string;
  enabled: boolean;
  createdBy: string;
  createdAt: Date;
}

export interface WebhookEventInput {
  type: string;
  data: unknown;
  /** Deliveries of one key (a hold id) to one endpoint go out in order; null: no order. */
  orderingKey: string | null;
}

/**
 * Records an event, and one pending delivery for each enabled endpoint subscribed to its type,
 * in ONE statement on the caller's transaction client: both commit with the caller's writes or
 * neither does. Without a subscribed endpoint nothing is written (one index-free look at a
 * small table). Returns the event's id, or null when nothing was written.
 */
export async function insertWebhookEvent(tx: DbClient, event: WebhookEventInput): Promise<string | null> {
  return (await insertWebhookEvents(tx, event.type, [event]))[0] ?? null;
}

/**
 * insertWebhookEvent for many events of one type, in the same ONE statement: each event's
 * deliveries are numbered (seq) in the order the events are given, so per key and endpoint they
 * go out in that order, after any recorded before. Returns the ids of the events written (none
 * without a subscribed endpoint). The endpoints are read with the key-share lock their deliveries'
 * foreign key takes anyway, taken first: an endpoint being deleted meanwhile is waited for and then
 * skipped, where the foreign key's check would fail the caller's whole transaction (a release, a
 * cancel, an expiry) once the delete committed.
 */
export async function insertWebhookEvents(
  tx: DbClient, type: string, events: readonly { data: unknown; orderingKey: string | null }[],
): Promise<string[]> {
  if (!events.length) return [];
  const ids = events.map(() => randomUUID());
  const rows = await translated(() => tx.$queryRawUnsafe<{ id: string }[]>(`
    WITH ep AS (SELECT id FROM webhook_endpoints WHERE enabled AND $1 = ANY (events) FOR KEY SHARE),
    input AS (SELECT * FROM unnest($2::uuid[], $3::jsonb[], $4::text[]) WITH ORDINALITY AS u(id, data, ordering_key, n)),
    ev AS (
      INSERT INTO webhook_events (id, type, data, ordering_key)
      SELECT input.id, $1, input.data, input.ordering_key FROM input
      WHERE EXISTS (SELECT 1 FROM ep)
      ORDER BY input.n
      RETURNING id
    )
    INSERT INTO webhook_deliveries (id, event_id, endpoint_id, ordering_key)
    SELECT gen_random_uuid(), ev.id, ep.id, input.ordering_key FROM ev JOIN input ON input.id = ev.id CROSS JOIN ep
    ORDER BY input.n, ep.id
    RETURNING event_id::text AS id`,
    type, ids, events.map((e) => JSON.stringify(e.data)), events.map((e) => e.orderingKey)));
  const written = new Set(rows.map((r) => r.id));
  return ids.filter((id) => written.has(id));
}

const ENDPOINT_COLUMNS = Prisma.sql`id, url, events, secret, enabled, created_by AS "createdBy", created_at AS "createdAt"`;

export async function insertWebhookEndpoint(
  tx: DbClient, e: { id: string; url: string; events: string[]; secret: string; createdBy: string },
): Promise<WebhookEndpointRow> {
  const rows = await translated(() => tx.$queryRaw<WebhookEndpointRow[]>`
    INSERT INTO webhook_endpoints (id, url, events, secret, created_by)
    VALUES (${e.id}::uuid, ${e.url}, ${e.events}::text[], ${e.secret}, ${e.createdBy})
    RETURNING ${ENDPOINT_COLUMNS}`);
  return rows[0]!;
}

export async function listWebhookEndpointRows(
  db: DbClient, limit: number, after?: { createdAt: Date; id: string },
): Promise<WebhookEndpointRow[]> {
  const where = after
    ? Prisma.sql`WHERE (created_at, id) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)`
    : Prisma.empty;
  return translated(() => db.$queryRaw<WebhookEndpointRow[]>`
    SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ${where} ORDER BY created_at, id LIMIT ${limit}`);
}

export async function findWebhookEndpoint(db: DbClient, id: string): Promise<WebhookEndpointRow | null> {
  const rows = await translated(() => db.$queryRaw<WebhookEndpointRow[]>`
    SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ${id}::uuid`);
  return rows[0] ?? null;
}

/** Locks the endpoint's row for the caller's transaction; null when there is none. */
export async function lockWebhookEndpoint(tx: DbClient, id: string): Promise<WebhookEndpointRow | null> {
  const rows = await translated(() => tx.$queryRaw<WebhookEndpointRow[]>`
    SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ${id}::uuid FOR UPDATE`);
  return rows[0] ?? null;
}

export async function setWebhookEndpointEnabled(tx: DbClient, id: string, enabled: boolean): Promise<WebhookEndpointRow | null> {
  const rows = await translated(() => tx.$queryRaw<WebhookEndpointRow[]>`
    UPDATE webhook_endpoints SET enabled = ${enabled} WHERE id = ${id}::uuid RETURNING ${ENDPOINT_COLUMNS}`);
  return rows[0] ?? null;
}

/** Deletes the endpoint with its deliveries and their attempts; events no endpoint needs any more go too. */
export async function deleteWebhookEndpointRow(tx: DbClient, id: string): Promise<boolean> {
  const n = await translated(() => tx.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ${id}::uuid`);
  if (n) {
    await translated(() => tx.$executeRaw`
      DELETE FROM webhook_events ev WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id)`);
  }
  return n > 0;
}

export interface WebhookAttemptRow {
  attempt: number;
  status: 'succeeded' | 'failed';
  responseCode: number | null;
  error: string | null;
  startedAt: Date;
  durationMs: number;
}

export interface WebhookDeliveryRow {
  id: string;
  seq: bigint;
  endpointId: string;
  eventId: string;
  eventType: string;
  orderingKey: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  tries: WebhookAttemptRow[];
}

/** An endpoint's deliveries, newest first, each with its attempts (oldest first). */
export async function listWebhookDeliveryRows(
  db: DbClient, endpointId: string, limit: number, beforeSeq?: bigint,
): Promise<WebhookDeliveryRow[]> {
  const before = beforeSeq !== undefined ? Prisma.sql`AND d.seq < ${beforeSeq}` : Prisma.empty;
  return translated(() => db.$queryRaw<WebhookDeliveryRow[]>`
    SELECT d.id, d.seq, d.endpoint_id AS "endpointId", d.event_id AS "eventId", ev.type AS "eventType",
           d.ordering_key AS "orderingKey", d.status, d.attempts, d.last_error AS "lastError",
           d.created_at AS "createdAt", d.finished_at AS "finishedAt",
           COALESCE((SELECT jsonb_agg(jsonb_build_object(
                       'attempt', a.attempt, 'status', a.status, 'responseCode', a.response_code, 'error', a.error,
                       'startedAt', a.started_at, 'durationMs', a.duration_ms) ORDER BY a.attempt, a.started_at)
                     FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::jsonb) AS tries
    FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
    WHERE d.endpoint_id = ${endpointId}::uuid ${before}
    ORDER BY d.seq DESC LIMIT ${limit}`).then((rows) =>
    rows.map((r) => ({ ...r, tries: (r.tries as unknown as (Omit<WebhookAttemptRow, 'startedAt'> & { startedAt: string })[]).map((t) => ({ ...t, startedAt: new Date(t.startedAt) })) })));
}

/**
 * Pending deliveries that may go now, oldest first: none of an ordering key while an earlier
 * delivery of the same key to the same endpoint is not over (pending or queued).
 */
export async function readyWebhookDeliveries(db: DbClient, limit: number): Promise<{ id: string; endpointId: string }[]> {
  return translated(() => db.$queryRaw<{ id: string; endpointId: string }[]>`
    SELECT d.id, d.endpoint_id AS "endpointId" FROM webhook_deliveries d
    WHERE d.status = 'pending'
      AND (d.ordering_key IS NULL OR NOT EXISTS (
        SELECT 1 FROM webhook_deliveries p
        WHERE p.endpoint_id = d.endpoint_id AND p.ordering_key = d.ordering_key AND p.seq < d.seq
          AND p.status IN ('pending', 'queued')))
    ORDER BY d.seq LIMIT ${limit}`);
}

/** Deliveries marked queued (their jobs should exist), oldest first: for adding their jobs again after Redis lost them. */
export async function queuedWebhookDeliveries(db: DbClient, limit: number): Promise<string[]> {
  const rows = await translated(() => db.$queryRaw<{ id: string }[]>`
    SELECT id FROM webhook_deliveries WHERE status = 'queued' ORDER BY seq LIMIT ${limit}`);
  return rows.map((r) => r.id);
}

/** Marks deliveries queued once their jobs exist (only those still pending). */
export async function markWebhookDeliveriesQueued(db: DbClient, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  return translated(() => db.$executeRaw`
    UPDATE webhook_deliveries SET status = 'queued' WHERE id = ANY (${ids}::uuid[]) AND status = 'pending'`);
}

/** What the deliverer needs for one delivery: it, its event and its endpoint (with the secret). */
export interface WebhookSendRow {
  id: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  createdAt: Date;
  event: { id: string; type: string; data: unknown; createdAt: Date };
  endpoint: { id: string; url: string; secret: string; enabled: boolean };
}

export async function findWebhookDeliveryForSend(db: DbClient, id: string): Promise<WebhookSendRow | null> {
  const rows = await translated(() => db.$queryRaw<{
    id: string; status: WebhookDeliveryStatus; attempts: number; created_at: Date;
    event_id: string; type: string; data: unknown; event_created_at: Date;
    endpoint_id: string; url: string; secret: string; enabled: boolean;
  }[]>`
    SELECT d.id, d.status, d.attempts, d.created_at, ev.id AS event_id, ev.type, ev.data, ev.created_at AS event_created_at,
           ep.id AS endpoint_id, ep.url, ep.secret, ep.enabled
    FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id JOIN webhook_endpoints ep ON ep.id = d.endpoint_id
    WHERE d.id = ${id}::uuid`);
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id, status: r.status, attempts: r.attempts, createdAt: r.created_at,
    event: { id: r.event_id, type: r.type, data: r.data, createdAt: r.event_created_at },
    endpoint: { id: r.endpoint_id, url: r.url, secret: r.secret, enabled: r.enabled },
  };
}

export interface WebhookAttemptInput {
  deliveryId: string;
  ok: boolean;
  responseCode: number | null;
  error: string | null;
  startedAt: Date;
  durationMs: number;
  /** Set when this attempt ends the delivery: succeeded, or failed (given up). */
  finish: 'succeeded' | 'failed' | null;
}

/**
 * Records one attempt and its delivery's new state, in one statement. A delivery already
 * over (a duplicate run of its job) records nothing: false.
 */
export async function recordWebhookAttempt(db: DbClient, a: WebhookAttemptInput): Promise<boolean> {
  const rows = await translated(() => db.$queryRaw<{ id: string }[]>`
    WITH d AS (
      UPDATE webhook_deliveries SET attempts = attempts + 1, last_error = ${a.error},
        status = COALESCE(${a.finish}, status),
        finished_at = CASE WHEN ${a.finish}::text IS NULL THEN NULL ELSE now() END
      WHERE id = ${a.deliveryId}::uuid AND status IN ('pending', 'queued')
      RETURNING id, attempts
    )
    INSERT INTO webhook_attempts (id, delivery_id, attempt, status, response_code, error, started_at, duration_ms)
    SELECT gen_random_uuid(), d.id, d.attempts, ${a.ok ? 'succeeded' : 'failed'}, ${a.responseCode}, ${a.error},
           ${a.startedAt.toISOString()}::timestamptz, ${a.durationMs}
    FROM d RETURNING delivery_id AS id`);
  return rows.length > 0;
}

/** Ends a delivery without an attempt (its endpoint was disabled): failed, with the reason. */
export async function giveUpWebhookDelivery(db: DbClient, id: string, reason: string): Promise<boolean> {
  const n = await translated(() => db.$executeRaw`
    UPDATE webhook_deliveries SET status = 'failed', last_error = ${reason}, finished_at = now()
    WHERE id = ${id}::uuid AND status IN ('pending', 'queued')`);
  return n > 0;
}

/** What one retention batch removed, and where the next batch starts (null: no event was looked at). */
export interface WebhookRetentionBatch {
  /** Events looked at (locked) by this batch: fewer than the limit means the old events are all seen. */
  examined: number;
  events: number;
  deliveries: number;
  attempts: number;
  last: { createdAt: Date; id: string } | null;
}

/**
 * One retention batch, in ONE statement (its own short transaction): the next `limit` events
 * created before `cutoff` after the key `after` (oldest first, keyset on created_at, id), locked
 * with SKIP LOCKED so two runs at once take different events; of those, the finished deliveries
 * (succeeded or failed) that finished before `cutoff` are deleted with their attempts, and the
 * events left without any delivery are deleted too. A pending or queued delivery is never
 * touched, and keeps its event. Finished is final (no delivery goes back to pending), and no
 * delivery is ever added to an existing event, so what one snapshot sees stays true. The
 * statement never waits for a row lock (SKIP LOCKED on the deliveries too: one an endpoint's
 * deletion holds stays, and keeps its event, until a later run), so it cannot deadlock with it.
 */
export async function deleteExpiredWebhookBatch(
  db: DbClient, cutoff: Date, limit: number, after: { createdAt: Date; id: string } | null,
): Promise<WebhookRetentionBatch> {
  const from = after
    ? Prisma.sql`AND (e.created_at, e.id) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)`
    : Prisma.empty;
  const rows = await translated(() => db.$queryRaw<{
    examined: number; events: number; deliveries: number; attempts: number; last_created_at: Date | null; last_id: string | null;
  }[]>`
    WITH ev AS (
      SELECT e.id, e.created_at FROM webhook_events e
      WHERE e.created_at < ${cutoff.toISOString()}::timestamptz ${from}
      ORDER BY e.created_at, e.id LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ),
    done AS (
      SELECT d.id FROM webhook_deliveries d
      WHERE d.event_id IN (SELECT id FROM ev) AND d.status IN ('succeeded', 'failed')
        AND d.finished_at < ${cutoff.toISOString()}::timestamptz
      FOR UPDATE OF d SKIP LOCKED
    ),
    a AS (DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM done) RETURNING 1),
    d AS (DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM done) RETURNING 1),
    e AS (
      DELETE FROM webhook_events x WHERE x.id IN (SELECT id FROM ev)
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries k WHERE k.event_id = x.id AND k.id NOT IN (SELECT id FROM done))
      RETURNING 1
    ),
    last AS (SELECT created_at, id FROM ev ORDER BY created_at DESC, id DESC LIMIT 1)
    SELECT (SELECT count(*) FROM ev)::int AS examined, (SELECT count(*) FROM e)::int AS events,
           (SELECT count(*) FROM d)::int AS deliveries, (SELECT count(*) FROM a)::int AS attempts,
           (SELECT created_at FROM last) AS last_created_at, (SELECT id::text FROM last) AS last_id`);
  const r = rows[0]!;
  return {
    examined: r.examined, events: r.events, deliveries: r.deliveries, attempts: r.attempts,
    last: r.last_created_at && r.last_id ? { createdAt: r.last_created_at, id: r.last_id } : null,
  };
}
