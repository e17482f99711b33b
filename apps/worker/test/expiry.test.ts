import { Redis } from 'ioredis';
import { expireHold, newHoldId } from '@holdfast/domain';
import { eventKeys } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, seatGrid, useTestApi, isolatedDatabaseUrl, expiredHoldRow, sleepUntil, waitFor } from '@holdfast/test-kit';
import { startWorker, type WorkerHandle } from '../src';

let worker: WorkerHandle;
// Declared before useTestApi's, so it runs first: the worker closes before the API and its Redis.
afterAll(async () => { await worker?.close(); });
// A Redis of its own: no other suite's delayed expiry jobs reach this worker (its counters stay exact).
const { api } = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('expiry') }, { privateRedis: true });
beforeAll(async () => {
  worker = await startWorker(api.config, { sweepEveryMs: 1000, reconcileEveryMs: 3_600_000, metricsPort: 0 });
});

const within = { timeoutMs: 15_000, intervalMs: 100 };
const holdRow = (id: string) => api.rt.db.hold.findUnique({ where: { id } });
const metricValue = async (url: string, name: string) => {
  const text = await (await fetch(url)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : NaN;
};

test('when a hold is persisted, then a delayed expire-hold job with the hold id as job id is scheduled', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 600, seats: seatGrid(['A'], 1, 2) });
  try {
    const token = api.token('customer');
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { seatIds: [seats[0]!.id] } });
    expect(res.status).toBe(201);
    const job = await waitFor('the expiry job', () => api.rt.queues.expiry.getJob(res.body.hold.id), within);
    expect(job?.id).toBe(res.body.hold.id);
    expect(await job!.getState()).toBe('delayed');
    const dueAt = job!.timestamp + (job!.opts.delay ?? 0);
    expect(Math.abs(dueAt - Date.parse(res.body.hold.expiresAt))).toBeLessThan(1000);
    await job!.remove();
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when a hold reaches expiresAt unconfirmed, then it is EXPIRED in PostgreSQL, counted, and its seat announced available', async () => {
  const { event, seats } = await createTestEvent(api, {
    holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 3), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10 }],
  });
  const sub = new Redis(api.config.redisUrl);
  const messages: string[] = [];
  try {
    await sub.subscribe(eventKeys(event.id).channel);
    sub.on('message', (_c, m) => messages.push(m));
    const before = await metricValue(worker.metricsUrl!, 'holdfast_holds_expired_total');
    const token = api.token('customer');
    const seat = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { seatIds: [seats[1]!.id] } });
    const ga = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { ticketTypeId: event.ticketTypes[0].id, quantity: 4 } });
    expect([seat.status, ga.status]).toEqual([201, 201]);
    const rows = await waitFor('both holds EXPIRED', async () => {
      const r = await Promise.all([holdRow(seat.body.hold.id), holdRow(ga.body.hold.id)]);
      return r.every((x) => x?.status === 'EXPIRED') && r;
    }, within);
    expect(rows.map((r) => r?.status)).toEqual(['EXPIRED', 'EXPIRED']);
    expect(rows[0]!.endedAt!.getTime()).toBeGreaterThanOrEqual(rows[0]!.expiresAt.getTime());
    expect(await metricValue(worker.metricsUrl!, 'holdfast_holds_expired_total')).toBe(before + 2);
    // The API's /metrics reports the worker's expiries too (shared through Redis).
    const scraped = await api.call('GET', '/metrics');
    const apiLine = (scraped.body as string).split('\n').find((l) => l.startsWith('holdfast_holds_expired_total '));
    expect(Number(apiLine?.split(' ')[1])).toBe(before + 2);
    const announced = await waitFor('the seat announced available', () => messages.some((x) => x.includes(seats[1]!.id) && x.includes('available')) && messages, { timeoutMs: 3000, intervalMs: 100 });
    expect(announced.some((x) => JSON.parse(x).status === 'available' && JSON.parse(x).seatIds.includes(seats[1]!.id))).toBe(true);
    const job = await api.rt.queues.expiry.getJob(seat.body.hold.id);
    expect(await job!.getState()).toBe('completed');
    expect(job!.returnvalue).toBe('expired');
    const ev = await api.call('GET', `/v1/events/${event.id}`);
    expect(ev.body.event.ticketTypes[0].available).toBe(10);
    // The seat can be held again by someone else.
    const again = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[1]!.id] } });
    expect(again.status).toBe(201);
  } finally {
    sub.disconnect();
    await dropTestEvent(api, event.id);
  }
});

test('when the expiry runs twice, then the second run changes nothing and is not counted', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 2) });
  try {
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[0]!.id] } });
    const id = res.body.hold.id as string;
    const first = await waitFor('the hold EXPIRED', () => expiredHoldRow(api, id), within);
    const counted = await metricValue(worker.metricsUrl!, 'holdfast_holds_expired_total');
    // Someone else holds the seat after the expiry (a lease of another hold); a repeated expiry must not free it.
    const lease = eventKeys(event.id).seat(seats[0]!.id);
    const someoneElse = newHoldId(event.id);
    await api.rt.redis.set(lease, someoneElse, 'PX', 60_000);
    expect(await expireHold(worker.ctx, id)).toEqual({ kind: 'already_ended', status: 'EXPIRED' });
    const job = await api.rt.queues.expiry.getJob(id);
    await job!.retry('completed').catch(async () => {
      // Older BullMQ: re-add under the same id once the completed one is gone.
      await job!.remove();
      await api.rt.queues.expiry.add('expire-hold', { holdId: id }, { jobId: id });
    });
    const rerun = await waitFor('the second run', async () => {
      const j = await api.rt.queues.expiry.getJob(id);
      return j?.finishedOn !== undefined && j.returnvalue !== 'expired' && j;
    }, within);
    expect(rerun!.returnvalue).toBe('already expired');
    const second = await holdRow(id);
    expect(second!.endedAt!.getTime()).toBe(first!.endedAt!.getTime());
    expect(await metricValue(worker.metricsUrl!, 'holdfast_holds_expired_total')).toBe(counted);
    expect(await api.rt.redis.get(lease)).toBe(someoneElse);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when a released hold’s expiry job runs, then the hold stays released', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 2) });
  try {
    const token = api.token('customer');
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { seatIds: [seats[0]!.id] } });
    const rel = await api.call('DELETE', `/v1/holds/${res.body.hold.id}`, { token });
    expect(rel.body.hold.status).toBe('released');
    await api.rt.ctx.persister.flush();
    const job = await waitFor('the expiry job', () => api.rt.queues.expiry.getJob(res.body.hold.id), within);
    const state = await waitFor('the job completed', async () => { const s = await job.getState(); return s === 'completed' && s; }, within);
    expect(state).toBe('completed');
    expect((await holdRow(res.body.hold.id))!.status).toBe('RELEASED');
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when a due hold has no expiry job (lost with Redis), then the sweep expires it', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 2, seats: seatGrid(['A'], 1, 2) });
  try {
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[0]!.id] } });
    const id = res.body.hold.id as string;
    const job = await waitFor('the expiry job', () => api.rt.queues.expiry.getJob(id), within);
    await job!.remove();
    expect(await api.rt.queues.expiry.getJob(id)).toBeUndefined();
    const row = await waitFor('the sweep to expire the hold', () => expiredHoldRow(api, id), within);
    expect(row!.status).toBe('EXPIRED');
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an API dies before draining its outbox, then the sweep persists the holds and schedules their expiry', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 600, seats: seatGrid(['A'], 1, 2) });
  try {
    // A hold taken by the store alone, as if the API process died before its persister ran.
    const holdId = newHoldId(event.id);
    const json = JSON.stringify({
      eventId: event.id, customerId: 'crashed-api-customer', currency: 'USD', totalCents: 5000,
      items: [{ seatId: seats[1]!.id, label: seats[1]!.label, tier: 'standard', priceCents: 5000, quantity: 1 }],
    });
    const r = await api.rt.ctx.store.holdSeats({
      eventId: event.id, holdId, customerId: 'crashed-api-customer', ttlMs: 600_000, maxPerCustomer: 10, rateLimit: 0,
      rateWindowMs: 60_000, outboxMaxPending: 100_000, candidates: [{ seatIds: [seats[1]!.id], recordJson: json }],
    });
    expect(r.kind).toBe('ok');
    const row = await waitFor('the hold in PostgreSQL', () => holdRow(holdId), within);
    expect(row?.status).toBe('ACTIVE');
    const job = await waitFor('the expiry job', () => api.rt.queues.expiry.getJob(holdId), within);
    expect(await job!.getState()).toBe('delayed');
    await job!.remove();
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when a hold is extended, then its expiry job fires at the old time, finds it not due, and expires it at the new time', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 2, seats: seatGrid(['A'], 1, 1) });
  try {
    const buyer = `extender-${Date.now()}`;
    const token = api.token('customer', buyer);
    const held = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { seatIds: [seats[0]!.id] } });
    expect(held.status).toBe(201);
    const oldExpiry = Date.parse(held.body.hold.expiresAt);
    await waitFor('the expiry job', () => api.rt.queues.expiry.getJob(held.body.hold.id), within);
    await sleepUntil(oldExpiry, -600); // until just before the old expiry
    const extended = await api.call('POST', `/v1/holds/${held.body.hold.id}/extend`, { token });
    expect(extended.status).toBe(200);
    const newExpiry = Date.parse(extended.body.hold.expiresAt);
    expect(newExpiry - oldExpiry).toBeGreaterThan(1000);

    // Past the old time: the job ran, found the hold not due and went back to the delayed set.
    await sleepUntil(oldExpiry, 500);
    expect((await holdRow(held.body.hold.id))?.status).toBe('ACTIVE');
    const job = await api.rt.queues.expiry.getJob(held.body.hold.id);
    expect(await job!.getState()).toBe('delayed');
    expect(job!.attemptsMade).toBe(0);

    const row = await waitFor('the hold EXPIRED at the new time', () => expiredHoldRow(api, held.body.hold.id), within);
    expect(row?.status).toBe('EXPIRED');
    expect(row!.expiresAt.getTime()).toBe(newExpiry);
    expect(row!.endedAt!.getTime()).toBeGreaterThanOrEqual(newExpiry);
    expect(await api.rt.redis.exists(eventKeys(event.id).seat(seats[0]!.id))).toBe(0);
  } finally {
    await dropTestEvent(api, event.id);
  }
});
