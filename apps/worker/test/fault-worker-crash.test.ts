import { Queue } from 'bullmq';
import { EXPIRY_QUEUE, workerConnection } from '@holdfast/jobs';
import { eventKeys, ReconcileStore } from '@holdfast/hold-store';
import { EXPIRE_HOLDS_PER_TRANSACTION } from '../src';
import { createTestEvent, dropTestEvent, seatGrid, useTestApi, recordMeasurements, RedisProcess, WorkerProcess, isolatedDatabaseUrl, sleep, waitFor } from '@holdfast/test-kit';

const HOLDS = 200;

// Declared before useTestApi's, so it runs first: no worker outlives the test's Redis.
afterAll(() => WorkerProcess.killAll());
const { api, redis } = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('crash'), HOLD_RATE_LIMIT_PER_MINUTE: '100000' }, { privateRedis: true });

test('when a worker is killed with -9 in the middle of expiry jobs, then another worker runs them again, once in effect', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 3, seats: seatGrid(['K'], 10, 30) });
  const queue = new Queue(EXPIRY_QUEUE, { connection: workerConnection(redis.url) });
  let w1: WorkerProcess | null = null;
  let w2: WorkerProcess | null = null;
  try {
    const holdIds: string[] = [];
    for (let i = 0; i < HOLDS; i += 20) {
      const batch = await Promise.all(seats.slice(i, i + 20).map((s, j) =>
        api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer', `crash-${i + j}`), body: { seatIds: [s.id] } })));
      for (const r of batch) {
        expect(r.status).toBe(201);
        holdIds.push(r.body.hold.id);
      }
    }
    await api.rt.ctx.persister.flush();
    const env = { REDIS_URL: redis.url, DATABASE_URL: api.config.databaseUrl, RECONCILE_EVERY_SECONDS: '3600' };
    // Kill the worker mid-stream (some holds expired already) while it holds at least one job. The jobs
    // still active once it is dead are the ones it held; if it finished them all first, start another and retry.
    let activeAtKill: string[] = [];
    let kills = 0;
    while (!activeAtKill.length && kills < 5) {
      w1 = await WorkerProcess.start({ ...env, WORKER_METRICS_PORT: '0' });
      const floor = (await api.rt.db.hold.count({ where: { id: { in: holdIds }, status: 'EXPIRED' } })) + 10;
      let started = false;
      const midStream = await waitFor('the worker mid-stream, holding a job', async () => {
        if (!started) started = (await api.rt.db.hold.count({ where: { id: { in: holdIds }, status: 'EXPIRED' } })) >= floor;
        return started && (await queue.getActive()).length > 0;
      }, { timeoutMs: 30_000, intervalMs: 5 }).catch(() => false); // not within 30 s: another worker tries
      if (midStream) await w1.signal('SIGKILL');
      kills++;
      activeAtKill = (await queue.getActive()).map((j) => j.id!);
    }
    const killedAt = Date.now();
    expect(activeAtKill.length).toBeGreaterThan(0);
    const expiredAtKill = await api.rt.db.hold.count({ where: { id: { in: holdIds }, status: 'EXPIRED' } });
    expect(expiredAtKill).toBeGreaterThanOrEqual(10);
    expect(expiredAtKill).toBeLessThan(HOLDS);

    w2 = await WorkerProcess.start({ ...env, WORKER_METRICS_PORT: '0' });
    const expired = await waitFor('every hold expired and every job it held run again', async () => {
      const n = await api.rt.db.hold.count({ where: { id: { in: holdIds }, status: 'EXPIRED' } });
      const pending = await Promise.all(activeAtKill.map(async (id) => (await queue.getJob(id))?.getState()));
      return n === HOLDS && pending.every((s) => s === 'completed') && n;
    }, { timeoutMs: killedAt + 60_000 - Date.now(), intervalMs: 250 });
    const recoveredMs = Date.now() - killedAt;
    expect(expired).toBe(HOLDS);
    const rerun = await Promise.all(activeAtKill.map((id) => queue.getJob(id)));
    for (const job of rerun) {
      expect(await job!.getState()).toBe('completed');
      expect(job!.stalledCounter).toBeGreaterThanOrEqual(1);
    }
    // Once in effect: every hold expired once (the conditional update), never counted twice, its seat free again.
    // Holds whose update committed just before the kill may go uncounted: at most one transaction's
    // holds (EXPIRE_HOLDS_PER_TRANSACTION) in each job the worker held (a job names the holds persisted together).
    const counted = await new ReconcileStore(api.rt.redis).readStat('holds_expired');
    expect(counted).toBeLessThanOrEqual(HOLDS);
    expect(counted).toBeGreaterThanOrEqual(HOLDS - activeAtKill.length * EXPIRE_HOLDS_PER_TRANSACTION);
    const k = eventKeys(event.id);
    const leases = await api.rt.redis.exists(...seats.slice(0, HOLDS).map((s) => k.seat(s.id)));
    expect(leases).toBe(0);
    const again = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[0]!.id] } });
    expect(again.status).toBe(201);
    expect(w2.log).toMatch(/stalled|worker started/);
    recordMeasurements('worker-kill-9', {
      holds: HOLDS, workerKills: kills, jobsActiveAtKill: activeAtKill.length, expiredBeforeKill: expiredAtKill,
      msUntilAllExpiredAndRerunDone: recoveredMs, stalledJobsRerun: rerun.length, expiredCountedByWorkers: counted,
    });
    const stop = await w2.signal('SIGTERM');
    expect(stop.code).toBe(0);
    w2 = null;
  } finally {
    await w1?.signal('SIGKILL');
    await w2?.signal('SIGKILL');
    await queue.close();
    await dropTestEvent(api, event.id);
  }
}, 150_000);

test('when a worker gets SIGTERM while its Redis is down, then it still exits 0 in bounded time (its jobs run again elsewhere)', async () => {
  const own = await RedisProcess.start();
  try {
    const w = await WorkerProcess.start({
      REDIS_URL: own.url, DATABASE_URL: api.config.databaseUrl, WORKER_METRICS_PORT: '0',
    });
    await own.kill();
    await sleep(500); // the worker has been without Redis a while when told to stop
    const t0 = Date.now();
    const exit = await w.signal('SIGTERM');
    const ms = Date.now() - t0;
    expect(exit.code).toBe(0);
    expect(ms).toBeLessThan(20_000);
    expect(w.log).toContain('could not drain');
    recordMeasurements('worker-sigterm-redis-down', { exitCode: exit.code, msToExit: ms });
  } finally {
    await own.stop();
  }
}, 60_000);
