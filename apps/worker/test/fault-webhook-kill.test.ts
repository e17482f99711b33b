// kill -9 of the worker while it is sending a webhook loses no delivery: the job it held is run
// again by the next worker (BullMQ's stalled-job check), and every delivery reaches the receiver.
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { recordWebhookEvent } from '@holdfast/domain';
import { WEBHOOK_QUEUE, workerConnection } from '@holdfast/jobs';
import { isolatedDatabaseUrl, useTestApi, waitFor, WebhookReceiver, WorkerProcess } from '@holdfast/test-kit';

let receiver: WebhookReceiver;
// Declared before useTestApi's, so they run first: no worker outlives the test's Redis.
afterAll(async () => {
  WorkerProcess.killAll();
  await receiver?.close();
});
const { api, redis } = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('hookkill'), WEBHOOK_ALLOW_PRIVATE: 'true' }, { privateRedis: true });
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});

test('when the worker is killed with -9 while a receiver holds its request, then another worker delivers it again and no delivery is lost', async () => {
  const admin = api.token('admin');
  const reg = await api.call('POST', '/v1/admin/webhooks', { token: admin, body: { url: `${receiver.url}/kill`, events: ['hold.released'] } });
  expect(reg.status).toBe(201);
  const webhookId = reg.body.webhook.id as string;
  const queue = new Queue(WEBHOOK_QUEUE, { connection: workerConnection(redis.url) });
  try {
    const eventIds = (await api.rt.db.$transaction(async (tx) => {
      const ids: (string | null)[] = [];
      for (let i = 0; i < 5; i++) ids.push(await recordWebhookEvent(tx, 'hold.released', { hold: { id: `h_kill_${i}` } }, `h_${randomUUID()}`));
      return ids;
    })) as string[];
    // The first request of the first event is never answered: the worker is inside it when killed.
    receiver.answer = (r, index) => (index === 0 ? 'hang' : 200);
    const env = {
      REDIS_URL: redis.url, DATABASE_URL: api.config.databaseUrl, RECONCILE_EVERY_SECONDS: '3600', WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_DISPATCH_EVERY_MS: '100',
    };
    const w1 = await WorkerProcess.start({ ...env, WORKER_METRICS_PORT: '0' });
    const hung = await waitFor('the receiver to hold a request open', () => receiver.received[0], { timeoutMs: 20_000 });
    const hungEvent = JSON.parse(hung.body).id as string;
    expect(eventIds).toContain(hungEvent);
    const active = await queue.getActive();
    expect(active.map((j) => j.data.deliveryId).length).toBeGreaterThanOrEqual(1);
    expect((await w1.signal('SIGKILL')).signal).toBe('SIGKILL');

    const w2 = await WorkerProcess.start({ ...env, WORKER_METRICS_PORT: '0' });
    try {
      const deliveries = await waitFor('every delivery to succeed', async () => {
        const d = (await api.call('GET', `/v1/admin/webhooks/${webhookId}/deliveries`, { token: admin })).body.deliveries as {
          eventId: string; status: string; attempts: { status: string; responseCode: number | null }[];
        }[];
        return d.length === 5 && d.every((x) => x.status === 'succeeded') ? d : null;
      }, { timeoutMs: 45_000, intervalMs: 250 });
      for (const id of eventIds) expect(receiver.of(id).length).toBeGreaterThanOrEqual(1);
      // The request the dead worker never finished was sent again, and answered.
      expect(receiver.of(hungEvent).length).toBeGreaterThanOrEqual(2);
      const again = deliveries.find((d) => d.eventId === hungEvent)!;
      expect(again.attempts.at(-1)).toEqual(expect.objectContaining({ status: 'succeeded', responseCode: 200 }));
    } finally {
      await w2.signal('SIGTERM');
    }
  } finally {
    await queue.close();
    await api.call('DELETE', `/v1/admin/webhooks/${webhookId}`, { token: admin });
  }
});
