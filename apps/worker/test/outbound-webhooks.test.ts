// Outbound webhooks end to end: the real API and worker on PostgreSQL, Redis and BullMQ, and a
// real HTTP receiver on loopback (WEBHOOK_ALLOW_PRIVATE=true). Retries are fast here
// (WEBHOOK_RETRY_BASE_MS=100, a 4 s window) so the suite runs in seconds.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { deliverWebhook, recordWebhookEvent } from '@holdfast/domain';
import {
  createTestEvent, deliverEvent, dropTestEvent, freePort, isolatedDatabaseUrl, paymentIntentEvent, seatGrid, useTestApi, waitFor, WebhookReceiver,
} from '@holdfast/test-kit';
import { startWorker, type WorkerHandle } from '../src';

let worker: WorkerHandle;
let receiver: WebhookReceiver;
afterAll(async () => {
  await worker?.close();
  await receiver?.close();
});
const { api } = useTestApi({
  DATABASE_URL: isolatedDatabaseUrl('webhooks'), WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_DELAY_MS: '1000',
  WEBHOOK_RETRY_WINDOW_SECONDS: '4', WEBHOOK_TIMEOUT_MS: '1500', WEBHOOK_DISPATCH_EVERY_MS: '100',
}, { privateRedis: true });
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  worker = await startWorker(api.config, { sweepEveryMs: 1000, reconcileEveryMs: 3_600_000, metricsPort: null, webhookRequeueEveryMs: 500 });
});
const endpoints: string[] = [];
afterEach(async () => {
  receiver.answer = () => 200;
  const admin = api.token('admin');
  for (const id of endpoints.splice(0)) await api.call('DELETE', `/v1/admin/webhooks/${id}`, { token: admin });
});

/** The verification snippet exactly as docs/http-api.md prints it. */
function documentedVerifier(): (secret: string, header: string | undefined, rawBody: string, toleranceSeconds?: number) => boolean {
  const doc = readFileSync(path.join(__dirname, '../../../docs/http-api.md'), 'utf8');
  const block = /<!-- webhook-verify-snippet -->\n```js\n([\s\S]*?)```\n<!-- \/webhook-verify-snippet -->/.exec(doc);
  if (!block) throw new Error('docs/http-api.md has no webhook verification snippet');
  return new Function('require', 'Buffer', `${block[1]}\nreturn verifyHoldfastSignature;`)(require, Buffer);
}

async function register(events: string[], pathName = `/${randomUUID()}`): Promise<{ id: string; secret: string; url: string }> {
  const res = await api.call('POST', '/v1/admin/webhooks', { token: api.token('admin'), body: { url: receiver.url + pathName, events } });
  expect(res.status).toBe(201);
  endpoints.push(res.body.webhook.id);
  return { id: res.body.webhook.id, secret: res.body.webhook.secret, url: receiver.url + pathName };
}

const deliveriesOf = async (webhookId: string) =>
  (await api.call('GET', `/v1/admin/webhooks/${webhookId}/deliveries`, { token: api.token('admin') })).body.deliveries as {
    id: string; eventId: string; type: string; status: string; finishedAt: string | null;
    attempts: { attempt: number; status: string; responseCode: number | null; error: string | null; at: string; durationMs: number }[];
  }[];

async function oneSeatHold(ttl = 600) {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: ttl, seats: seatGrid(['A'], 1, 2) });
  const customer = api.token('customer');
  const hold = await api.call('POST', `/v1/events/${event.id}/holds`, { token: customer, body: { seatIds: [seats[0]!.id] } });
  expect(hold.status).toBe(201);
  return { event, hold: hold.body.hold, customer };
}

const within = { timeoutMs: 15_000, intervalMs: 50 };

test('when a confirm commits, then the receiver gets order.confirmed once, signed so that the documented snippet verifies it (and refuses another secret or a changed body)', async () => {
  const hook = await register(['order.confirmed']);
  const other = await register(['hold.expired']);
  const { event, hold } = await oneSeatHold();
  try {
    const confirmed = await api.call('POST', `/v1/holds/${hold.id}/confirm`, { token: api.token('service'), body: { paymentReference: 'pay-1' } });
    expect(confirmed.status).toBe(201);
    const [delivery] = await waitFor('the delivery to succeed', async () => {
      const d = await deliveriesOf(hook.id);
      return d.length === 1 && d[0]!.status === 'succeeded' ? d : null;
    }, within);
    const got = receiver.of(delivery!.eventId);
    expect(got).toHaveLength(1);
    const req = got[0]!;
    expect(req.path).toBe(new URL(hook.url).pathname);
    expect(req.headers['content-type']).toBe('application/json');
    const payload = JSON.parse(req.body);
    expect(payload).toEqual({ id: delivery!.eventId, type: 'order.confirmed', createdAt: expect.any(String), data: { order: confirmed.body.order } });
    const verify = documentedVerifier();
    const header = req.headers['holdfast-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verify(hook.secret, header, req.body)).toBe(true);
    expect(verify(other.secret, header, req.body)).toBe(false);
    expect(verify(hook.secret, header, req.body.replace('pay-1', 'pay-2'))).toBe(false);
    expect(verify(hook.secret, header, req.body, -1)).toBe(false);
    expect(delivery!.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 'succeeded', responseCode: 200, error: null })]);
    expect(await deliveriesOf(other.id)).toEqual([]);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when the receiver answers 500 three times and then 200, then it gets the delivery once more after each failure, later each time, and each attempt is recorded with its code', async () => {
  const hook = await register(['hold.released']);
  receiver.answer = (r) => (r.path === new URL(hook.url).pathname && receiver.received.filter((x) => x.path === r.path).length <= 3 ? 500 : 200);
  const { event, hold, customer } = await oneSeatHold();
  try {
    expect((await api.call('DELETE', `/v1/holds/${hold.id}`, { token: customer })).status).toBe(200);
    const [delivery] = await waitFor('the delivery to succeed', async () => {
      const d = await deliveriesOf(hook.id);
      return d.length === 1 && d[0]!.status === 'succeeded' ? d : null;
    }, within);
    const got = receiver.of(delivery!.eventId);
    expect(got).toHaveLength(4);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    const gaps = got.slice(1).map((r, i) => r.at - got[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(90);
    expect(gaps[1]).toBeGreaterThanOrEqual(180);
    expect(gaps[2]).toBeGreaterThanOrEqual(360);
    expect(delivery!.attempts.map((a) => [a.attempt, a.status, a.responseCode])).toEqual([
      [1, 'failed', 500], [2, 'failed', 500], [3, 'failed', 500], [4, 'succeeded', 200],
    ]);
    expect(delivery!.attempts[0]!.error).toBe('answered 500');
    expect(JSON.parse(got[3]!.body).data.hold).toMatchObject({ id: hold.id, status: 'released', releasedBy: 'customer' });
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when the receiver answers with a redirect, then it is not followed: the attempt fails with its 3xx code and is retried', async () => {
  const hook = await register(['hold.released']);
  const pathname = new URL(hook.url).pathname;
  receiver.answer = (r) => (r.path === pathname && receiver.received.filter((x) => x.path === pathname).length === 1
    ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } } : 200);
  const { event, hold, customer } = await oneSeatHold();
  try {
    expect((await api.call('DELETE', `/v1/holds/${hold.id}`, { token: customer })).status).toBe(200);
    const [delivery] = await waitFor('the delivery to succeed', async () => {
      const d = await deliveriesOf(hook.id);
      return d.length === 1 && d[0]!.status === 'succeeded' ? d : null;
    }, within);
    expect(delivery!.attempts.map((a) => [a.status, a.responseCode])).toEqual([['failed', 302], ['succeeded', 200]]);
    expect(delivery!.attempts[0]!.error).toMatch(/redirect .*not followed/);
    expect(receiver.received.filter((r) => r.path === '/elsewhere')).toEqual([]);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when the receiver hangs, then holds and confirms all succeed meanwhile, each attempt fails by timeout, and the delivery is given up after the retry window', async () => {
  const hook = await register(['order.confirmed', 'hold.released', 'hold.expired']);
  const pathname = new URL(hook.url).pathname;
  receiver.answer = (r) => (r.path === pathname ? 'hang' : 200);
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 600, seats: seatGrid(['A'], 2, 10) });
  try {
    const service = api.token('service');
    const buy = async (i: number) => {
      const customer = api.token('customer');
      const hold = await api.call('POST', `/v1/events/${event.id}/holds`, { token: customer, body: { seatIds: [seats[i]!.id] } });
      expect(hold.status).toBe(201);
      const confirmed = await api.call('POST', `/v1/holds/${hold.body.hold.id}/confirm`, { token: service, body: { paymentReference: `hang-${i}` } });
      expect(confirmed.status).toBe(201);
    };
    await buy(0);
    // The receiver now holds a delivery's request open; the next nine buyers hold and pay meanwhile.
    await waitFor('the receiver to be hanging on a delivery', () => receiver.received.some((r) => r.path === pathname), within);
    for (let i = 1; i < 10; i++) await buy(i);
    const orders = await api.rt.db.order.count({ where: { eventId: event.id } });
    expect(orders).toBe(10);
    const gaveUp = await waitFor('every delivery to be given up', async () => {
      const d = await deliveriesOf(hook.id);
      return d.length === 10 && d.every((x) => x.status === 'failed') ? d : null;
    }, { timeoutMs: 30_000, intervalMs: 200 });
    for (const d of gaveUp) {
      expect(d.attempts.length).toBeGreaterThanOrEqual(1);
      for (const a of d.attempts) expect([a.status, a.responseCode, a.error]).toEqual(['failed', null, 'no answer within 1500 ms']);
      expect(d.finishedAt).not.toBeNull();
    }
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when a hold expires unconfirmed, then the receiver gets hold.expired with the hold as expired', async () => {
  const hook = await register(['hold.expired']);
  const { event, hold } = await oneSeatHold(1);
  try {
    const [delivery] = await waitFor('the hold.expired delivery', async () => {
      const d = await deliveriesOf(hook.id);
      return d.length === 1 && d[0]!.status === 'succeeded' ? d : null;
    }, within);
    const payload = JSON.parse(receiver.of(delivery!.eventId)[0]!.body);
    expect(payload.type).toBe('hold.expired');
    expect(payload.data.hold).toMatchObject({ id: hold.id, status: 'expired' });
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when two events are about one hold, then the second is sent only after the first succeeded, while another hold\'s event does not wait', async () => {
  const hook = await register(['waitlist.offered', 'waitlist.offer_expired']);
  const pathname = new URL(hook.url).pathname;
  const holdA = `h_${randomUUID()}`;
  const holdB = `h_${randomUUID()}`;
  let firstId = '';
  receiver.answer = (r) => (r.path === pathname && JSON.parse(r.body).id === firstId && receiver.of(firstId).length <= 2 ? 500 : 200);
  const ids = await api.rt.db.$transaction(async (tx) => [
    await recordWebhookEvent(tx, 'waitlist.offered', { n: 1 }, holdA),
    await recordWebhookEvent(tx, 'waitlist.offer_expired', { n: 2 }, holdA),
    await recordWebhookEvent(tx, 'waitlist.offered', { n: 3 }, holdB),
  ]);
  firstId = ids[0]!;
  const [first, second, other] = ids as string[];
  await waitFor('every delivery to succeed', async () => {
    const d = await deliveriesOf(hook.id);
    return d.length === 3 && d.every((x) => x.status === 'succeeded') ? d : null;
  }, within);
  const firstOk = receiver.of(first!)[2]!;
  expect(receiver.of(first!)).toHaveLength(3);
  expect(receiver.of(second!)).toHaveLength(1);
  expect(receiver.of(second!)[0]!.at).toBeGreaterThanOrEqual(firstOk.at);
  expect(receiver.of(other!)[0]!.at).toBeLessThan(firstOk.at);
});

test('when an endpoint is disabled while a delivery to it waits, then the delivery is given up without a request', async () => {
  const hook = await register(['payment.refund_required']);
  const eventId = await api.rt.db.$transaction(async (tx) => {
    const id = await recordWebhookEvent(tx, 'payment.refund_required', { payment: { id: 'p' } }, null);
    await tx.$executeRaw`UPDATE webhook_endpoints SET enabled = false WHERE id = ${hook.id}::uuid`;
    return id;
  });
  const [d] = await waitFor('the delivery to be given up', async () => {
    const x = await deliveriesOf(hook.id);
    return x.length === 1 && x[0]!.status === 'failed' ? x : null;
  }, within);
  expect(d!.attempts).toEqual([]);
  expect(receiver.of(eventId!)).toEqual([]);
});

test('when the endpoint\'s host is private at sending time and private addresses are not allowed, then nothing is sent and the attempt fails naming the address', async () => {
  // A loopback port nobody listens on: whatever the worker's own attempts do, nothing is received.
  const res = await api.call('POST', '/v1/admin/webhooks', {
    token: api.token('admin'), body: { url: `http://127.0.0.1:${await freePort()}/closed`, events: ['hold.expired'] },
  });
  expect(res.status).toBe(201);
  endpoints.push(res.body.webhook.id);
  await api.rt.db.$transaction(async (tx) => {
    const id = await recordWebhookEvent(tx, 'hold.expired', { hold: { id: 'x' } }, null);
    // Queued already: this test, not the worker's dispatcher, makes the attempt.
    await tx.$executeRaw`UPDATE webhook_deliveries SET status = 'queued' WHERE event_id = ${id}::uuid`;
  });
  const [d] = await deliveriesOf(res.body.webhook.id);
  const outcome = await deliverWebhook(worker.ctx, d!.id, { ...api.config.webhooks, allowPrivate: false });
  expect(outcome).toEqual({ kind: 'retry', responseCode: null, error: expect.stringMatching(/^not sent: .*127\.0\.0\.1.*private address/) });
  const attempts = (await deliveriesOf(res.body.webhook.id))[0]!.attempts;
  expect(attempts.filter((a) => /^not sent/.test(a.error ?? ''))).toEqual([expect.objectContaining({ status: 'failed', responseCode: null })]);
});

test('when a Stripe payment arrives for a released hold, then the receiver gets payment.refund_required with the payment as the admin list shows it', async () => {
  const hook = await register(['payment.refund_required']);
  const { event, hold, customer } = await oneSeatHold();
  try {
    expect((await api.call('DELETE', `/v1/holds/${hold.id}`, { token: customer })).status).toBe(200);
    const paid = await deliverEvent(api, paymentIntentEvent({ holdId: hold.id, amount: hold.totalCents, currency: hold.currency.toLowerCase() }));
    expect(paid.status).toBe(200);
    const [delivery] = await waitFor('the payment.refund_required delivery', async () => {
      const d = await deliveriesOf(hook.id);
      return d.length === 1 && d[0]!.status === 'succeeded' ? d : null;
    }, within);
    const payload = JSON.parse(receiver.of(delivery!.eventId)[0]!.body);
    expect(payload.type).toBe('payment.refund_required');
    const listed = await api.call('GET', '/v1/admin/payments?status=refund_required&limit=1000', { token: api.token('admin') });
    const payment = listed.body.payments.find((p: { holdId: string }) => p.holdId === hold.id);
    expect(payload.data).toEqual({ payment });
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when a queued delivery has no job (Redis lost its data), then the worker adds it again and the delivery goes through', async () => {
  const hook = await register(['hold.released']);
  const eventId = await api.rt.db.$transaction(async (tx) => {
    const id = await recordWebhookEvent(tx, 'hold.released', { hold: { id: 'lost-job' } }, null);
    // Marked queued as the dispatcher marks it, but no job was ever added: as after a FLUSHALL.
    await tx.$executeRaw`UPDATE webhook_deliveries SET status = 'queued' WHERE event_id = ${id}::uuid`;
    return id;
  });
  const [d] = await waitFor('the delivery to succeed', async () => {
    const x = await deliveriesOf(hook.id);
    return x.length === 1 && x[0]!.status === 'succeeded' ? x : null;
  }, within);
  expect(d!.attempts.map((a) => [a.status, a.responseCode])).toEqual([['succeeded', 200]]);
  expect(receiver.of(eventId!)).toHaveLength(1);
});
