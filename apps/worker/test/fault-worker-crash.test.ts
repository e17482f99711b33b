import { Queue } from 'bullmq';
import { EXPIRY_QUEUE, workerConnection } from '@holdfast/jobs';
import { eventKeys, ReconcileStore } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, seatGrid, startApi, type TestApi, freePort, recordMeasurements, RedisProcess, WorkerProcess, isolatedDatabaseUrl } from '@holdfast/test-kit';

const HOLDS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let redis: RedisProcess;
let api: TestApi;
beforeAll(async () => {
  redis = await RedisProcess.start();
  api = await startApi({ DATABASE_URL: isolatedDatabaseUrl('crash'), REDIS_URL: redis.url, HOLD_RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => {
  WorkerProcess.killAll();
  await api.close();
  await redis.stop();
});

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
      w1 = await WorkerProcess.start({ ...env, WORKER_METRICS_PORT: String(await freePort()) });
      const deadline = Date.now() + 30_000;
      const floor = (await api.rt.db.hold.count({ where: { id: { in: holdIds }, status: 'EXPIRED' } })) + 10;
      let started = false;
      while (Date.now() < deadline) {
        if (!started) started = (await api.rt.db.hold.count({ where: { id: { in: holdIds }, status: 'EXPIRED' } })) >= floor;
        if (started && (await queue.getActive()).length) {
          await w1.signal('SIGKILL');
          break;
        }
        await sleep(5);
      }
      kills++;
      activeAtKill = (await queue.getActive()).map((j) => j.id!);
    }
    const killedAt = Date.now();
    expect(activeAtKill.length).toBeGreaterThan(0);
    const expiredAtKill = await api.rt.db.hold.count({ where: { id: { in: holdIds }, status: 'EXPIRED' } });
    expect(expiredAtKill).toBeGreaterThanOrEqual(10);
    expect(expiredAtKill).toBeLessThan(HOLDS);

    w2 = await WorkerProcess.start({ ...env, WORKER_METRICS_PORT: String(await freePort()) });
    let expired = 0;
    while (Date.now() < killedAt + 60_000) {
      expired = await api.rt.db.hold.count({ where: { id: { in: holdIds }, status: 'EXPIRED' } });
      const pending = await Promise.all(activeAtKill.map(async (id) => (await queue.getJob(id))?.getState()));
      if (expired === HOLDS && pending.every((s) => s === 'completed')) break;
      await sleep(250);
    }
    const recoveredMs = Date.now() - killedAt;
    expect(expired).toBe(HOLDS);
    const rerun = await Promise.all(activeAtKill.map((id) => queue.getJob(id)));
    for (const job of rerun) {
      expect(await job!.getState()).toBe('completed');
      expect(job!.stalledCounter).toBeGreaterThanOrEqual(1);
    }
    // Once in effect: every hold expired once (the conditional update), never counted twice, its seat free again.
    const counted = await new ReconcileStore(api.rt.redis).readStat('holds_expired');
    expect(counted).toBeLessThanOrEqual(HOLDS);
    expect(counted).toBeGreaterThanOrEqual(HOLDS - activeAtKill.length);
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
      REDIS_URL: own.url, DATABASE_URL: api.config.databaseUrl, WORKER_METRICS_PORT: String(await freePort()),
    });
    await own.kill();
    await sleep(500);
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
