import { Redis } from 'ioredis';
import { eventKeys } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, seatGrid, startApi, type TestApi, recordMeasurements, RedisProcess, startTraffic, type Sample, isolatedDatabaseUrl, expiredHoldRow, expiredByRun, expiryJobOf, finishedJob, sleep, waitFor } from '@holdfast/test-kit';
import { startWorker, type WorkerHandle } from '../src';

const OUTAGE_MS = 10_000;
const within = { timeoutMs: 30_000, intervalMs: 100 };

interface Rig {
  redis: RedisProcess;
  api: TestApi;
  worker: WorkerHandle;
}

async function startRig(workerOpts: { sweepEveryMs: number; reconcileEveryMs: number }): Promise<Rig> {
  const redis = await RedisProcess.start();
  const api = await startApi({ DATABASE_URL: isolatedDatabaseUrl('outage'), REDIS_URL: redis.url, HOLD_RATE_LIMIT_PER_MINUTE: '100000' });
  const worker = await startWorker(api.config, { ...workerOpts, metricsPort: null });
  return { redis, api, worker };
}

async function stopRig(rig: Rig, eventIds: string[]) {
  await rig.redis.start().catch(() => undefined);
  for (const id of eventIds) await dropTestEvent(rig.api, id).catch(() => undefined);
  await rig.worker.close();
  await rig.api.close();
  await rig.redis.stop();
}

/** What the samples taken while Redis was away say. */
function outageStats(samples: Sample[], downAt: number, upAt: number) {
  // Requests that started once Redis was gone and finished before it came back.
  const during = samples.filter((s) => s.at >= downAt + 50 && s.at + s.ms <= upAt);
  const recovered = samples.filter((s) => s.at >= upAt && s.kind === 'hold' && s.status === 201).sort((a, b) => a.at - b.at)[0];
  return {
    requestsDuringOutage: during.length,
    answered503: during.filter((s) => s.status === 503).length,
    otherStatuses: [...new Set(during.filter((s) => s.status !== 503).map((s) => `${s.kind}:${s.status}`))],
    maxLatencyMsDuringOutage: Math.max(0, ...during.map((s) => s.ms)),
    status500Total: samples.filter((s) => s.status >= 500 && s.status !== 503).length,
    msToFirstHoldAfterRedisReturned: recovered ? recovered.at + recovered.ms - upAt : null,
    totalRequests: samples.length,
  };
}

test('when Redis is killed for 10 s mid-traffic and comes back empty, then holds answer 503 fast, everything recovers by itself, and lost expiry jobs are covered by the sweep', async () => {
  const rig = await startRig({ sweepEveryMs: 1000, reconcileEveryMs: 2000 });
  const { api, redis } = rig;
  const ids: string[] = [];
  try {
    const short = await createTestEvent(api, { holdTtlSeconds: 5, seats: seatGrid(['S'], 1, 2) });
    const long = await createTestEvent(api, { holdTtlSeconds: 300, maxTicketsPerCustomer: 100, seats: seatGrid(['L'], 4, 25) });
    ids.push(short.event.id, long.event.id);
    const buyer = api.token('customer', 'outage-buyer');
    // A hold due during the outage, a hold that outlives it, and one to release while Redis is away.
    const due = await api.call('POST', `/v1/events/${short.event.id}/holds`, { token: buyer, body: { seatIds: [short.seats[0]!.id] } });
    const live = await api.call('POST', `/v1/events/${long.event.id}/holds`, { token: buyer, body: { seatIds: [long.seats[99]!.id] } });
    const toRelease = await api.call('POST', `/v1/events/${long.event.id}/holds`, { token: buyer, body: { seatIds: [long.seats[98]!.id] } });
    expect([due.status, live.status, toRelease.status]).toEqual([201, 201, 201]);
    await api.rt.ctx.persister.flush();
    expect(await expiryJobOf(api.rt.queues.expiry, due.body.hold.id)).toBeDefined();

    const traffic = startTraffic(api, long.event.id, long.seats.slice(0, 90).map((s) => s.id));
    await sleep(1000); // the sale runs a while before Redis goes
    const downAt = Date.now();
    await redis.kill();
    await sleep(1000); // a second into the outage
    const ready = await api.call('GET', '/readyz');
    const health = await api.call('GET', '/healthz');
    const t0 = Date.now();
    const release = await api.call('DELETE', `/v1/holds/${toRelease.body.hold.id}`, { token: buyer });
    const releaseMs = Date.now() - t0;
    const metricsDuring = await api.call('GET', '/metrics');
    await sleep(OUTAGE_MS - (Date.now() - downAt)); // the rest of the outage
    await redis.start();
    const upAt = Date.now();
    await waitFor('a hold taken after Redis returned', () => traffic.samples.some((s) => s.at >= upAt && s.status === 201), { timeoutMs: 20_000, intervalMs: 100 });
    await sleep(2000); // the sale goes on after the recovery
    const samples = await traffic.stop();

    expect(ready.status).toBe(503);
    expect(ready.body.error.details.down).toEqual(['Redis']);
    expect(health.status).toBe(200);
    expect(metricsDuring.status).toBe(200);
    expect(release.status).toBe(503);
    expect(release.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(releaseMs).toBeLessThan(2000);
    const stats = outageStats(samples, downAt, upAt);
    expect(stats.requestsDuringOutage).toBeGreaterThan(10);
    expect(stats.answered503).toBe(stats.requestsDuringOutage);
    expect(stats.maxLatencyMsDuringOutage).toBeLessThan(2000);
    expect(stats.status500Total).toBe(0);
    expect(stats.msToFirstHoldAfterRedisReturned).not.toBeNull();
    expect((await api.call('GET', '/readyz')).status).toBe(200);

    // The restarted Redis lost the delayed job; the sweep expires the hold anyway.
    const expiredAt = await waitFor('the sweep to expire the due hold', () => expiredHoldRow(api, due.body.hold.id), within);
    expect(expiredAt?.status).toBe('EXPIRED');
    // Reconciliation takes the live hold's seat again, so nobody else can hold it.
    const k = eventKeys(long.event.id);
    const owner = await waitFor('reconciliation to restore the live hold\'s lease', async () => {
      const o = await api.rt.redis.get(k.seat(long.seats[99]!.id));
      return o === live.body.hold.id && o;
    }, within);
    expect(owner).toBe(live.body.hold.id);
    const other = await api.call('POST', `/v1/events/${long.event.id}/holds`, { token: api.token('customer'), body: { seatIds: [long.seats[99]!.id] } });
    expect(other.status).toBe(409);
    // The release that answered 503 was recorded first; repeating it answers the released hold.
    const again = await api.call('DELETE', `/v1/holds/${toRelease.body.hold.id}`, { token: buyer });
    expect(again.status).toBe(200);
    expect(again.body.hold.status).toBe('released');
    // Scripts are reloaded on NOSCRIPT: flush them and hold again.
    await api.rt.redis.script('FLUSH');
    const afterFlush = await api.call('POST', `/v1/events/${long.event.id}/holds`, { token: api.token('customer'), body: { seatIds: [long.seats[97]!.id] } });
    expect(afterFlush.status).toBe(201);

    recordMeasurements('redis-killed-10s', {
      ...stats, outageMs: upAt - downAt, releaseDuringOutage: { status: release.status, ms: releaseMs },
      readyzDuringOutage: ready.status, dueHoldExpiredBy: 'sweep (restarted Redis lost the delayed job)',
      liveHoldRestoredBy: 'reconciliation', ordersLost: 0,
    });
  } finally {
    await stopRig(rig, ids);
  }
});

test('when Redis freezes for 10 s (SIGSTOP, data kept), then requests time out into 503 within 2 s and the delayed expiry job scheduled before still runs', async () => {
  const rig = await startRig({ sweepEveryMs: 600_000, reconcileEveryMs: 600_000 });
  const { api, redis, worker } = rig;
  const ids: string[] = [];
  try {
    const short = await createTestEvent(api, { holdTtlSeconds: 4, seats: seatGrid(['S'], 1, 2) });
    const long = await createTestEvent(api, { holdTtlSeconds: 300, maxTicketsPerCustomer: 100, seats: seatGrid(['L'], 2, 25) });
    ids.push(short.event.id, long.event.id);
    const due = await api.call('POST', `/v1/events/${short.event.id}/holds`, { token: api.token('customer'), body: { seatIds: [short.seats[0]!.id] } });
    expect(due.status).toBe(201);
    await api.rt.ctx.persister.flush();
    const job = await waitFor('the expiry job', () => expiryJobOf(api.rt.queues.expiry, due.body.hold.id), within);
    expect(await job!.getState()).toBe('delayed');

    const traffic = startTraffic(api, long.event.id, long.seats.map((s) => s.id));
    await sleep(500); // the sale runs a while before Redis freezes
    const downAt = Date.now();
    redis.pause();
    await sleep(1000); // a second into the freeze
    const t0 = Date.now();
    const ready = await api.call('GET', '/readyz');
    const readyMs = Date.now() - t0;
    await sleep(OUTAGE_MS - (Date.now() - downAt)); // the rest of the outage
    redis.resume();
    const upAt = Date.now();
    await waitFor('a hold taken after Redis returned', () => traffic.samples.some((s) => s.at >= upAt && s.status === 201), { timeoutMs: 20_000, intervalMs: 100 });
    await sleep(1000); // the sale goes on after the recovery
    const samples = await traffic.stop();

    expect(ready.status).toBe(503);
    expect(readyMs).toBeLessThan(2000);
    const stats = outageStats(samples, downAt, upAt);
    expect(stats.requestsDuringOutage).toBeGreaterThan(5);
    expect(stats.answered503).toBe(stats.requestsDuringOutage);
    expect(stats.maxLatencyMsDuringOutage).toBeLessThan(2000);
    expect(stats.status500Total).toBe(0);
    // The job was due during the freeze; the sweep is off, so only the job can expire the hold.
    const row = await waitFor('the job to expire the due hold', () => expiredHoldRow(api, due.body.hold.id), within);
    expect(row?.status).toBe('EXPIRED');
    const done = await finishedJob('the expiry job', () => expiryJobOf(worker.expiryQueue, due.body.hold.id), within);
    expect(expiredByRun(done!)).toBe(true);
    recordMeasurements('redis-frozen-10s', {
      ...stats, outageMs: upAt - downAt, readyzDuringOutage: { status: ready.status, ms: readyMs },
      expiryJobAfterOutage: { state: await done!.getState(), returnvalue: done!.returnvalue, finishedMsAfterRedisReturned: done!.finishedOn! - upAt },
      ordersLost: 0,
    });
  } finally {
    await stopRig(rig, ids);
  }
});

test('when Redis is unreachable at a scrape, then /metrics still answers without hanging', async () => {
  const redis = await RedisProcess.start();
  const api = await startApi({ DATABASE_URL: isolatedDatabaseUrl('outage'), REDIS_URL: redis.url });
  try {
    const probe = new Redis(redis.url);
    expect(await probe.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    probe.disconnect();
    await redis.kill();
    const t0 = Date.now();
    const res = await api.call('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(res.body).toContain('holdfast_holds_created_total');
  } finally {
    await redis.start();
    await api.close();
    await redis.stop();
  }
});
