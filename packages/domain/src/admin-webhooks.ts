// An admin registers the seller's receivers of events (the signing secret shown once), lists,
// disables or deletes them, and reads each delivery with its attempts; every change is audited.
import { randomBytes, randomUUID } from 'node:crypto';
import type { adminWebhookBody, webhookDeliveryObject, webhookObject, webhookWithSecretObject, z } from '@holdfast/contracts';
import {
  deleteWebhookEndpointRow, findWebhookEndpoint, insertWebhookEndpoint, listWebhookDeliveryRows, listWebhookEndpointRows,
  lockWebhookEndpoint, recordAudit, runTransaction, setWebhookEndpointEnabled, type WebhookEndpointRow,
} from '@holdfast/db';
import type { DomainContext } from './context';
import { decodeAdminCursor } from './admin-cursor';
import { DEFAULT_WEBHOOK_DELIVERY } from './deliver-webhook';
import { errors } from './errors';
import { isUuid } from './ids';
import { encodeCursor, type Page } from './paging';
import { checkWebhookUrl } from './webhook-url';

export type WebhookView = z.output<typeof webhookObject>;
export type WebhookWithSecret = z.output<typeof webhookWithSecretObject>;
export type WebhookDeliveryView = z.output<typeof webhookDeliveryObject>;

function viewOf(row: WebhookEndpointRow): WebhookView {
  return { id: row.id, url: row.url, events: row.events as WebhookView['events'], enabled: row.enabled, createdAt: row.createdAt.toISOString() };
}

/** A new signing secret: 32 random bytes. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * Registers an endpoint once its URL passes the check (webhook-url.ts): a URL refused is
 * 400 VALIDATION_FAILED naming `url` and why. The answer carries the secret, never shown again.
 */
export async function registerWebhook(
  ctx: DomainContext, adminId: string, body: z.output<typeof adminWebhookBody>,
): Promise<WebhookWithSecret> {
  const verdict = await checkWebhookUrl(body.url, ctx.settings.webhooks ?? DEFAULT_WEBHOOK_DELIVERY);
  if (!verdict.ok) throw errors.validation({ fields: [{ path: 'url', message: verdict.reason }] }, `The webhook URL is refused: it ${verdict.reason}.`);
  const secret = newSecret();
  const row = await runTransaction(ctx.db, async (tx) => {
    const created = await insertWebhookEndpoint(tx, { id: randomUUID(), url: body.url, events: body.events, secret, createdBy: `admin:${adminId}` });
    await recordAudit(tx, {
      actor: `admin:${adminId}`, action: 'webhook.created', reason: body.url, details: { webhookId: created.id, url: body.url, events: body.events },
    });
    return created;
  });
  return { ...viewOf(row), secret };
}

export async function listWebhooks(ctx: DomainContext, q: { limit: number; cursor?: string }): Promise<Page<WebhookView>> {
  const c = q.cursor ? decodeAdminCursor(q.cursor, 'uuid') : undefined;
  const rows = await listWebhookEndpointRows(ctx.db, q.limit + 1, c && { createdAt: c.createdAt, id: c.id });
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return { items: page.map(viewOf), nextCursor: rows.length > q.limit && last ? encodeCursor(last.createdAt, last.id) : null };
}

/** Turns deliveries to an endpoint off (its pending deliveries are given up as they come due) or on again; audited. */
export async function setWebhookEnabled(ctx: DomainContext, adminId: string, id: string, enabled: boolean): Promise<WebhookView> {
  if (!isUuid(id)) throw errors.webhookNotFound();
  const row = await runTransaction(ctx.db, async (tx) => {
    const before = await lockWebhookEndpoint(tx, id);
    if (!before) throw errors.webhookNotFound();
    if (before.enabled === enabled) return before;
    const after = (await setWebhookEndpointEnabled(tx, id, enabled))!;
    await recordAudit(tx, {
      actor: `admin:${adminId}`, action: enabled ? 'webhook.enabled' : 'webhook.disabled', reason: before.url, details: { webhookId: id },
    });
    return after;
  });
  return viewOf(row);
}

/** Deletes an endpoint with its deliveries and their attempts; audited. */
export async function deleteWebhook(ctx: DomainContext, adminId: string, id: string): Promise<WebhookView> {
  if (!isUuid(id)) throw errors.webhookNotFound();
  const row = await runTransaction(ctx.db, async (tx) => {
    const before = await lockWebhookEndpoint(tx, id);
    if (!before) throw errors.webhookNotFound();
    await deleteWebhookEndpointRow(tx, id);
    await recordAudit(tx, { actor: `admin:${adminId}`, action: 'webhook.deleted', reason: before.url, details: { webhookId: id } });
    return before;
  });
  return viewOf(row);
}

function decodeSeqCursor(cursor: string): bigint {
  const raw = Buffer.from(cursor, 'base64url').toString();
  const m = /^seq:(\d{1,18})$/.exec(raw);
  if (!m) throw errors.validation({ fields: [{ path: 'cursor', message: 'not a cursor this API returned' }] });
  return BigInt(m[1]!);
}

/** An endpoint's deliveries, newest first, each with every attempt and the receiver's status code. */
export async function listWebhookDeliveries(
  ctx: DomainContext, id: string, q: { limit: number; cursor?: string },
): Promise<Page<WebhookDeliveryView>> {
  if (!isUuid(id)) throw errors.webhookNotFound();
  const before = q.cursor ? decodeSeqCursor(q.cursor) : undefined;
  if (!(await findWebhookEndpoint(ctx.db, id))) throw errors.webhookNotFound();
  const rows = await listWebhookDeliveryRows(ctx.db, id, q.limit + 1, before);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((d) => ({
      id: d.id, eventId: d.eventId, type: d.eventType as WebhookDeliveryView['type'], status: d.status,
      attempts: d.tries.map((t) => ({
        attempt: t.attempt, status: t.status, responseCode: t.responseCode, error: t.error, at: t.startedAt.toISOString(), durationMs: t.durationMs,
      })),
      createdAt: d.createdAt.toISOString(), finishedAt: d.finishedAt ? d.finishedAt.toISOString() : null,
    })),
    nextCursor: rows.length > q.limit && last ? Buffer.from(`seq:${last.seq}`).toString('base64url') : null,
  };
}
