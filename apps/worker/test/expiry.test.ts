import { Redis } from 'ioredis';
import { expireHold, newHoldId } from '@holdfast/domain';
import { eventKeys } from '@holdfast/hold-store';
import { EXPIRE_HOLD_JOB, EXPIRE_HOLDS_JOB } from '@holdfast/jobs';
import {
  batchExpiryJobsOf, createTestEvent, dropTestEvent, expiredByRun, expiryJobOf, finishedJob, seatGrid, useTestApi, isolatedDatabaseUrl, expiredHoldRow, sleepUntil, waitFor,
} from '@holdfast/test-kit';
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

const expiryJob = (holdId: string) => expiryJobOf(api.rt.queues.expiry, holdId);

test('when a hold is persisted, then a delayed expiry job naming it is scheduled, due at its expiresAt', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 600, seats: seatGrid(['A'], 1, 2) });
  try {
    const token = api.token('customer');
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { seatIds: [seats[0]!.id] } });
    expect(res.status).toBe(201);
    const job = await waitFor('the expiry job', () => expiryJob(res.body.hold.id), within);
    expect(job.name).toBe(EXPIRE_HOLDS_JOB);
    expect(job.data).toEqual({ holdIds: [res.body.hold.id] });
    expect(await job!.getState()).toBe('delayed');
    const dueAt = job!.timestamp + (job!.opts.delay ?? 0);
    expect(Math.abs(dueAt - Date.parse(res.body.hold.expiresAt))).toBeLessThan(1000);
    await job!.remove();
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when many holds are persisted together, then they share a few delayed jobs (one per batch, each due at the latest of its holds), each hold in exactly one', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 600, seats: seatGrid(['A'], 2, 20) });
  try {
    const held = await Promise.all(seats.map((seat) =>
      api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seat.id] } })));
    expect(held.every((r) => r.status === 201)).toBe(true);
    await api.rt.ctx.persister.flush();
    const ids = held.map((r) => r.body.hold.id as string);
    const jobsOf = await waitFor('every hold in an expiry job', async () => {
      const found = await Promise.all(ids.map((id) => batchExpiryJobsOf(api.rt.queues.expiry, id)));
      return found.every((jobs) => jobs.length > 0) && found;
    }, within);
    expect(jobsOf.every((jobs) => jobs.length === 1)).toBe(true);
    const jobs = new Map(jobsOf.map(([job]) => [job!.id, job!]));
    expect(jobs.size).toBeLessThan(ids.length / 4);
    for (const job of jobs.values()) {
      expect(await job.getState()).toBe('delayed');
      const latest = Math.max(...held.filter((r) => (job.data.holdIds as string[]).includes(r.body.hold.id)).map((r) => Date.parse(r.body.hold.expiresAt)));
      expect(Math.abs(job.timestamp + (job.opts.delay ?? 0) - latest)).toBeLessThan(1000);
      await job.remove();
    }
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
    const job = await expiryJob(seat.body.hold.id);
    expect(await job!.getState()).toBe('completed');
    expect(expiredByRun(job!)).toBe(true);
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
    const job = await finishedJob('the first run', () => expiryJob(id), within);
    expect(job.returnvalue).toEqual({ expired: 1, not_due: 0, already_ended: 0, missing: 0 });
    await job.retry('completed');
    const rerun = await finishedJob('the second run', () => api.rt.queues.expiry.getJob(job.id!), within, (j) => !expiredByRun(j));
    expect(rerun.returnvalue).toEqual({ expired: 0, not_due: 0, already_ended: 1, missing: 0 });
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
    const job = await waitFor('the expiry job', () => expiryJob(res.body.hold.id), within);
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
    const job = await waitFor('the expiry job', () => expiryJob(id), within);
    await job!.remove();
    expect(await expiryJob(id)).toBeUndefined();
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
    const job = await waitFor('the expiry job', () => expiryJob(holdId), within);
    expect(await job!.getState()).toBe('delayed');
    await job!.remove();
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when a hold is extended, then the expiry job of its batch fires at the old time, finds it not due, gives it its own job, and it expires at the new time', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 2, seats: seatGrid(['A'], 1, 1) });
  try {
    const buyer = `extender-${Date.now()}`;
    const token = api.token('customer', buyer);
    const held = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { seatIds: [seats[0]!.id] } });
    expect(held.status).toBe(201);
    const oldExpiry = Date.parse(held.body.hold.expiresAt);
    const batch = await waitFor('the expiry job', () => expiryJob(held.body.hold.id), within);
    expect(batch.name).toBe(EXPIRE_HOLDS_JOB);
    await sleepUntil(oldExpiry, -600); // until just before the old expiry
    const extended = await api.call('POST', `/v1/holds/${held.body.hold.id}/extend`, { token });
    expect(extended.status).toBe(200);
    const newExpiry = Date.parse(extended.body.hold.expiresAt);
    expect(newExpiry - oldExpiry).toBeGreaterThan(1000);

    // Past the old time: the batch's job ran, found the hold not due and gave it its own job at the new time.
    await sleepUntil(oldExpiry, 500);
    expect((await holdRow(held.body.hold.id))?.status).toBe('ACTIVE');
    const ran = await api.rt.queues.expiry.getJob(batch.id!);
    expect(await ran!.getState()).toBe('completed');
    expect(ran!.returnvalue).toEqual({ expired: 0, not_due: 1, already_ended: 0, missing: 0 });
    const job = await api.rt.queues.expiry.getJob(held.body.hold.id);
    expect(job!.name).toBe(EXPIRE_HOLD_JOB);
    expect(await job!.getState()).toBe('delayed');
    expect(Math.abs(job!.timestamp + (job!.opts.delay ?? 0) - newExpiry)).toBeLessThan(1000);

    const row = await waitFor('the hold EXPIRED at the new time', () => expiredHoldRow(api, held.body.hold.id), within);
    expect(row?.status).toBe('EXPIRED');
    expect(row!.expiresAt.getTime()).toBe(newExpiry);
    expect(row!.endedAt!.getTime()).toBeGreaterThanOrEqual(newExpiry);
    expect(await api.rt.redis.exists(eventKeys(event.id).seat(seats[0]!.id))).toBe(0);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an expiry job names a hold PostgreSQL never got beside a due one, then the due one expires and the other is counted missing', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 2) });
  try {
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[0]!.id] } });
    const id = res.body.hold.id as string;
    const own = await waitFor('the expiry job', () => expiryJob(id), within);
    await own.remove();
    const never = newHoldId(event.id);
    await sleepUntil(Date.parse(res.body.hold.expiresAt), 50);
    const job = await api.rt.queues.expiry.add(EXPIRE_HOLDS_JOB, { holdIds: [never, id] }, { jobId: `exp_${never}_2` });
    const done = await finishedJob('the job', () => api.rt.queues.expiry.getJob(job.id!), within);
    // The sweep (every second here) may have expired the due hold just before the job ran.
    const { expired, already_ended: ended, missing, not_due: notDue } = done.returnvalue as Record<string, number>;
    expect({ handled: expired! + ended!, missing, notDue }).toEqual({ handled: 1, missing: 1, notDue: 0 });
    expect((await holdRow(id))?.status).toBe('EXPIRED');
    await done.remove();
  } finally {
    await dropTestEvent(api, event.id);
  }
});
