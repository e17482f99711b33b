/**
 * `npx tsx apps/bench/src/expiry-drain.cli.ts [--holds N] [--job-sizes 20,200] [--rounds R]`
 *
 * How fast holdfast's worker catches up with a wave of lapsed holds: N holds of one
 * general-admission tier are taken through the real hold path (createHold) and
 * persisted by the domain's own drainer; their expiry jobs (EXPIRE_HOLDS_JOB, the
 * job the API schedules, K holds each) all fall due at the same moment; then the
 * real worker process (`apps/worker/src/main.ts`, started once, as users run it,
 * its sweep every 10 s included) expires them. Timed from that moment until no hold
 * of the event is ACTIVE in PostgreSQL and the expiry queue is empty; the worker
 * process's CPU over the same span (/proc). After each drain it checks the tier's
 * tickets are all back in Redis (every lease freed) and every hold row is EXPIRED.
 *
 * Needs BENCH_DATABASE_URL / BENCH_API_DATABASE_URL and BENCH_API_REDIS_URL (a
 * database and a Redis db of its own). Compare two commits by running it in each
 * checkout, alternating.
 */
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { createHold } from '@holdfast/domain';
import { EXPIRE_HOLDS_JOB, EXPIRY_QUEUE, redisOptionsFromUrl } from '@holdfast/jobs';

import { round3 } from './latency.histogram';
import { processCpuMs } from './process-cpu.probe';
import { WorkerProcess } from '@holdfast/test-kit';
import { openHoldfastFixture, type HoldfastFixture } from './holdfast/holdfast.fixture';

interface DrainRun {
  holds: number;
  jobSize: number;
  drainSec: number;
  expiredPerSec: number;
  workerCpuMsPerHold: number | null;
  activeLeft: number;
  ticketsBackInRedis: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function drainOnce(fixture: HoldfastFixture, queue: Queue, workerPid: number, holds: number, jobSize: number): Promise<DrainRun> {
  // Long enough to take and persist every hold before the first is due (taking runs at thousands a second).
  const ttlSeconds = Math.max(5, Math.ceil(holds / 500) + 4);
  const event = await fixture.createEvent({ name: `bench expiry drain ${jobSize}`, seats: 0, ticketCapacity: holds, maxTicketsPerCustomer: 1, holdTtlSeconds: ttlSeconds });
  try {
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      for (let i = next++; i < holds; i = next++) {
        await createHold(fixture.ctx, {
          eventId: event.eventId, customerId: `drain-${process.pid}-${i}`,
          selector: { kind: 'tickets', ticketTypeId: event.ticketTypeId!, quantity: 1 },
        });
      }
    }));
    await fixture.ctx.persister.flush([event.eventId]);
    await fixture.outboxDrained(event.eventId);
    const rows = await fixture.db.$queryRaw<{ id: string; expiresAt: Date }[]>`
      SELECT id, expires_at AS "expiresAt" FROM holds WHERE event_id = ${event.eventId}::uuid AND status = 'ACTIVE' ORDER BY expires_at, id`;
    if (rows.length !== holds) throw new Error(`expected ${holds} active holds in PostgreSQL, found ${rows.length}`);
    const lastDue = Math.max(...rows.map((r) => r.expiresAt.getTime()));
    const dueAt = lastDue + 300;
    if (dueAt - Date.now() < 500) throw new Error('holds were due before their jobs were scheduled; raise the hold time');
    const jobs = [];
    for (let i = 0; i < rows.length; i += jobSize) {
      const group = rows.slice(i, i + jobSize);
      jobs.push({
        name: EXPIRE_HOLDS_JOB,
        data: { holdIds: group.map((r) => r.id) },
        opts: { jobId: `drain_${group[0]!.id}_${group.length}`, delay: dueAt - Date.now(), attempts: 10, backoff: { type: 'exponential', delay: 1000 } },
      });
    }
    await queue.addBulk(jobs);
    await sleep(Math.max(0, dueAt - Date.now()));
    const cpu0 = await processCpuMs(workerPid);
    const t0 = performance.now();
    for (;;) {
      const [left] = await fixture.db.$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM holds WHERE event_id = ${event.eventId}::uuid AND status = 'ACTIVE'`;
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      if (Number(left?.n ?? 1) === 0 && Object.values(counts).every((n) => n === 0)) break;
      if (performance.now() - t0 > 600_000) throw new Error(`drain did not finish in 10 minutes: ${left?.n} active, ${JSON.stringify(counts)}`);
      await sleep(20);
    }
    const drainSec = (performance.now() - t0) / 1000;
    const cpu1 = await processCpuMs(workerPid);
    const [after] = await fixture.db.$queryRaw<{ active: bigint; expired: bigint }[]>`
      SELECT count(*) FILTER (WHERE status = 'ACTIVE') AS active, count(*) FILTER (WHERE status = 'EXPIRED') AS expired
      FROM holds WHERE event_id = ${event.eventId}::uuid`;
    // Every lease freed: the tier's tickets all back in Redis.
    const available = (await fixture.ctx.store.readAvailability(event.eventId, [event.ticketTypeId!]))?.get(event.ticketTypeId!) ?? -1;
    return {
      holds, jobSize, drainSec: round3(drainSec), expiredPerSec: round3(Number(after?.expired ?? 0) / drainSec),
      workerCpuMsPerHold: cpu0 === null || cpu1 === null ? null : round3((cpu1 - cpu0) / holds),
      activeLeft: Number(after?.active ?? 0), ticketsBackInRedis: available === holds,
    };
  } finally {
    await fixture.dropEvent(event.eventId);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { holds: { type: 'string', default: '3000' }, 'job-sizes': { type: 'string', default: '20,200' }, rounds: { type: 'string', default: '1' } } });
  const holds = Number(values.holds);
  const sizes = values['job-sizes']!.split(',').map(Number);
  const fixture = await openHoldfastFixture();
  const queue = new Queue(EXPIRY_QUEUE, { connection: redisOptionsFromUrl(fixture.redisUrl) });
  const worker = await fixture.startWorker();
  const runs: DrainRun[] = [];
  try {
    for (let round = 1; round <= Number(values.rounds); round += 1) {
      for (const size of sizes) {
        const r = await drainOnce(fixture, queue, worker.proc.pid!, holds, size);
        runs.push(r);
        process.stdout.write(`${JSON.stringify(r)}\n`);
        await queue.clean(0, 100_000, 'completed');
      }
    }
  } finally {
    await worker.signal('SIGTERM');
    await queue.close();
    await fixture.close();
  }
}

main().catch((err: Error) => {
  WorkerProcess.killAll(); // one that failed to start still runs
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
