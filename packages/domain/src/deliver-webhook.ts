// The worker delivers a recorded event to one endpoint: signed as Stripe signs, to an address
// checked again at the moment of sending (DNS rebinding), no redirect followed, 10 s at most;
// each attempt is recorded, and a delivery not through within the retry window is given up.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import {
  findWebhookDeliveryForSend, giveUpWebhookDelivery, markWebhookDeliveriesQueued, queuedWebhookDeliveries, readyWebhookDeliveries,
  recordWebhookAttempt,
} from '@holdfast/db';
import type { DomainContext } from './context';
import { checkWebhookUrl, type WebhookUrlPolicy } from './webhook-url';

/** How deliveries are tried (config.webhooks). */
export interface WebhookDeliverySettings extends WebhookUrlPolicy {
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxDelayMs: number;
  retryWindowMs: number;
}

export const DEFAULT_WEBHOOK_DELIVERY: WebhookDeliverySettings = {
  allowPrivate: false, allowHttp: false, timeoutMs: 10_000, retryBaseMs: 10_000, retryMaxDelayMs: 3_600_000, retryWindowMs: 86_400_000,
};

/** The header a receiver checks: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the secret>`. */
export const SIGNATURE_HEADER = 'Holdfast-Signature';

export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** The wait before retry `failures` + 1 (after that many failed attempts): base × 2^(failures-1), capped. */
export function webhookRetryDelayMs(failures: number, s: Pick<WebhookDeliverySettings, 'retryBaseMs' | 'retryMaxDelayMs'>): number {
  return Math.min(s.retryMaxDelayMs, s.retryBaseMs * 2 ** Math.min(40, Math.max(0, failures - 1)));
}

export type DeliverOutcome =
  | { kind: 'succeeded'; responseCode: number }
  | { kind: 'retry'; responseCode: number | null; error: string }
  | { kind: 'gave_up'; responseCode: number | null; error: string }
  /** Nothing to do: the delivery is over already, or gone with its endpoint. */
  | { kind: 'skipped' };

interface SendResult {
  code: number | null;
  error: string | null;
}

/**
 * POSTs the body to the URL, connecting only to `addresses` (already checked), never following
 * a redirect; gives up after timeoutMs. The answer's status is all that is read.
 */
function send(url: URL, addresses: string[], headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> {
  const pinned: LookupFunction = (_host, options, callback) => {
    const all = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: typeof all) => void)(null, all);
    else callback(null, all[0]!.address, all[0]!.family);
  };
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(r);
    };
    const req = lib.request(url, {
      method: 'POST', agent: false, lookup: pinned,
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
    }, (res) => {
      const code = res.statusCode ?? null;
      res.resume();
      done({ code, error: code !== null && code >= 300 && code < 400 ? `redirect to ${res.headers.location ?? '(none)'} not followed` : null });
    });
    const timer = setTimeout(() => done({ code: null, error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    req.on('error', (err) => done({ code: null, error: err.message }));
    req.end(body);
  });
}

/**
 * One attempt at a delivery (the job of its BullMQ queue; runs at least once, so a delivery
 * already over is skipped). A 2xx answer succeeds; anything else (3xx included, no answer,
 * an address now private) is a failed attempt, retried until the retry window is over.
 */
export async function deliverWebhook(
  ctx: DomainContext, deliveryId: string, settings: WebhookDeliverySettings = DEFAULT_WEBHOOK_DELIVERY,
): Promise<DeliverOutcome> {
  const row = await findWebhookDeliveryForSend(ctx.db, deliveryId);
  if (!row || row.status === 'succeeded' || row.status === 'failed') return { kind: 'skipped' };
  if (!row.endpoint.enabled) {
    await giveUpWebhookDelivery(ctx.db, deliveryId, 'the endpoint was disabled');
    return { kind: 'gave_up', responseCode: null, error: 'the endpoint was disabled' };
  }
  const body = JSON.stringify({ id: row.event.id, type: row.event.type, createdAt: row.event.createdAt.toISOString(), data: row.event.data });
  const startedAt = new Date();
  const t0 = performance.now();
  const url = new URL(row.endpoint.url);
  const verdict = await checkWebhookUrl(row.endpoint.url, settings);
  let result: SendResult;
  if (!verdict.ok) {
    result = { code: null, error: `not sent: the URL ${verdict.reason}` };
  } else {
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'holdfast-webhooks/1',
      [SIGNATURE_HEADER]: signWebhook(row.endpoint.secret, body, Math.floor(Date.now() / 1000)),
    };
    result = await send(url, verdict.addresses, headers, body, settings.timeoutMs);
  }
  const durationMs = Math.round(performance.now() - t0);
  const ok = result.code !== null && result.code >= 200 && result.code < 300;
  const error = ok ? null : (result.error ?? `answered ${result.code}`);
  const failures = row.attempts + 1;
  const nextAt = Date.now() + webhookRetryDelayMs(failures, settings);
  const finish = ok ? 'succeeded' : nextAt > row.createdAt.getTime() + settings.retryWindowMs ? 'failed' : null;
  const recorded = await recordWebhookAttempt(ctx.db, {
    deliveryId, ok, responseCode: result.code, error, startedAt, durationMs, finish,
  });
  if (!recorded) return { kind: 'skipped' };
  if (ok) return { kind: 'succeeded', responseCode: result.code! };
  ctx.log.info({ deliveryId, endpointId: row.endpoint.id, responseCode: result.code, error, attempt: failures }, 'webhook delivery attempt failed');
  return finish === 'failed' ? { kind: 'gave_up', responseCode: result.code, error: error! } : { kind: 'retry', responseCode: result.code, error: error! };
}

/**
 * The dispatcher: hands the deliveries that may go now to `enqueue` (which adds their jobs, one
 * per delivery id, so adding twice adds one), then marks them queued. A crash in between adds
 * them again next time: at least once. Returns how many it handed over.
 */
export async function dispatchWebhookDeliveries(
  ctx: DomainContext, enqueue: (deliveryIds: string[]) => Promise<void>, batch = 500,
): Promise<number> {
  let total = 0;
  for (;;) {
    const ready = await readyWebhookDeliveries(ctx.db, batch);
    if (!ready.length) return total;
    const ids = ready.map((d) => d.id);
    await enqueue(ids);
    await markWebhookDeliveriesQueued(ctx.db, ids);
    total += ids.length;
    if (ready.length < batch) return total;
  }
}

/**
 * The jobs of deliveries marked queued, added again: a Redis that lost its data lost them too
 * (adding a job that exists adds nothing, its id being the delivery's). Up to `limit`, oldest
 * first; returns how many it handed over.
 */
export async function requeueWebhookDeliveries(
  ctx: DomainContext, enqueue: (deliveryIds: string[]) => Promise<void>, limit = 1000,
): Promise<number> {
  const ids = await queuedWebhookDeliveries(ctx.db, limit);
  if (ids.length) await enqueue(ids);
  return ids.length;
}
