import { confirmHold, createHold } from '@holdfast/domain';
import { Client } from 'pg';

import type { ChildServer } from '../baselines/child-server.launcher';
import { runHttpLoad, type HttpLoadResult } from '../http-load.generator';
import { LatencyHistogram, round3, type LatencySummary } from '../latency.histogram';
import { processCpuMs } from '../process-cpu.probe';
import { batchesBetween, readBatchMetric, type BatchCount } from './holdfast-confirm-batch.bench';
import type { HoldfastFixture } from './holdfast.fixture';
import { SeatCursor } from './holdfast-holds.bench';

interface ConfirmLoadOptions {
  concurrency: number;
  /** Holds taken first (one seat each), then confirmed. */
  holds: number;
  maxDurationMs: number;
}

export interface ConfirmRun {
  buyers: number;
  holdsTaken: number;
  confirms: HttpLoadResult;
  /** CPU milliseconds the API process spent per confirm request. */
  apiCpuMsPerConfirm: number | null;
  ordersCommitted: number;
  distinctOrderNumbers: number;
  /** Group-commit batches the API made for these confirms (its /metrics), with their mean size. */
  batches?: (BatchCount & { meanSize: number; meanStatementMs: number }) | null;
  /** Sessions of the database waiting on a lock while the confirms ran. */
  lockWaits?: LockWaits | null;
}

/** pg_stat_activity sampled every ~100 ms (LOCK_WAIT_SAMPLE_MS): sessions of the database waiting on a lock (the year's order-number row, mostly). */
export interface LockWaits {
  samples: number;
  mean: number;
  max: number;
}

/**
 * Between two samples of the lock waits. Every 10 ms the sampler's own queries took 15-25 % of
 * pgbench's batch-shaped confirms/s on this two-core machine (3,171-4,352 against 4,212-4,595,
 * four alternating pairs), and as much of whatever it ran beside; every 100 ms it is within the
 * runs' spread (the commit that set it has the pairs).
 */
const LOCK_WAIT_SAMPLE_MS = 100;

/**
 * Samples, on a connection of its own, how many sessions of the database wait
 * on a lock, until the returned stop is called.
 */
export async function sampleLockWaits(databaseUrl: string): Promise<() => Promise<LockWaits | null>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const counts: number[] = [];
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      const result = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
      counts.push(result.rows[0]?.n ?? 0);
      await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_SAMPLE_MS));
    }
  })();
  return async () => {
    sampling = false;
    await loop.catch(() => undefined);
    await client.end();
    if (counts.length === 0) return null;
    return { samples: counts.length, mean: round3(counts.reduce((a, b) => a + b, 0) / counts.length), max: Math.max(...counts) };
  };
}

/**
 * `holds` buyers each hold one seat of a fresh event through the API, then
 * `concurrency` clients confirm those holds (distinct holds, service token)
 * through `POST /v1/holds/{id}/confirm`. Only the confirms are measured.
 */
export async function measureConfirms(api: ChildServer, fixture: HoldfastFixture, options: ConfirmLoadOptions, label: string): Promise<ConfirmRun> {
  const event = await fixture.createEvent({ name: `bench confirms ${label}`, seats: options.holds });
  try {
    const cursor = new SeatCursor(event, fixture, `confirm-${label}`);
    const holdIds: string[] = [];
    // Holds are taken with the same load generator (not measured here).
    const makeHold = cursor.take(options.holds);
    await runHttpLoad({
      baseUrl: api.baseUrl,
      concurrency: options.concurrency,
      maxRequests: options.holds,
      maxDurationMs: 10 * 60_000,
      makeRequest: makeHold,
      onResponse: (_index, status, body) => {
        if (status === 201) holdIds.push((JSON.parse(body.toString()) as { hold: { id: string } }).hold.id);
      },
    });
    const serviceToken = fixture.serviceToken();
    const batchesBefore = await readBatchMetric(api);
    const cpuBefore = await processCpuMs(api.pid);
    const stopSampling = await sampleLockWaits(fixture.databaseUrl);
    const confirms = await runHttpLoad({
      baseUrl: api.baseUrl,
      concurrency: options.concurrency,
      maxRequests: holdIds.length,
      maxDurationMs: options.maxDurationMs,
      makeRequest: (index) => ({
        method: 'POST',
        path: `/v1/holds/${holdIds[index]}/confirm`,
        headers: { authorization: `Bearer ${serviceToken}` },
        body: JSON.stringify({ paymentReference: `bench-${label}-${index}` }),
      }),
      isOk: (status) => status === 201,
    });
    const lockWaits = await stopSampling();
    const cpuAfter = await processCpuMs(api.pid);
    const batchesAfter = await readBatchMetric(api);
    const rows = await fixture.db.$queryRaw<{ orders: bigint; numbers: bigint }[]>`
      SELECT count(*) AS orders, count(DISTINCT number) AS numbers FROM orders WHERE event_id = ${event.eventId}::uuid`;
    return {
      buyers: options.holds,
      holdsTaken: holdIds.length,
      confirms,
      apiCpuMsPerConfirm: cpuBefore !== null && cpuAfter !== null && confirms.requests > 0 ? round3((cpuAfter - cpuBefore) / confirms.requests) : null,
      ordersCommitted: Number(rows[0]?.orders ?? 0),
      distinctOrderNumbers: Number(rows[0]?.numbers ?? 0),
      batches: batchesBetween(batchesBefore, batchesAfter),
      lockWaits,
    };
  } finally {
    await fixture.dropEvent(event.eventId);
  }
}

/**
 * Whether this API has the confirm endpoint: an unknown hold answers
 * 404 HOLD_NOT_FOUND there, and a generic 404 where the route does not exist.
 */
export async function hasConfirmEndpoint(api: ChildServer, fixture: HoldfastFixture): Promise<boolean> {
  let code = '';
  await runHttpLoad({
    baseUrl: api.baseUrl,
    concurrency: 1,
    maxRequests: 1,
    maxDurationMs: 10_000,
    makeRequest: () => ({
      method: 'POST',
      path: '/v1/holds/00000000-0000-4000-8000-000000000000/confirm',
      headers: { authorization: `Bearer ${fixture.serviceToken()}` },
      body: JSON.stringify({ paymentReference: 'bench-probe' }),
    }),
    onResponse: (_index, _status, body) => {
      try {
        code = (JSON.parse(body.toString()) as { error?: { code?: string } }).error?.code ?? '';
      } catch {
        code = '';
      }
    },
  });
  return code === 'HOLD_NOT_FOUND';
}

/** Confirms through the use-case itself, in the bench process: no HTTP, no auth, no API process. */
export interface InProcessConfirmRun {
  concurrency: number;
  confirms: number;
  okPerSec: number;
  latency: LatencySummary;
  lockWaits: LockWaits | null;
}

/**
 * `holds` holds of one seat each (createHold, not measured), then `concurrency`
 * callers confirm them through confirmHold (a service payment) with the
 * fixture's own domain context: its confirm batcher, one PostgreSQL pool.
 */
export async function measureInProcessConfirms(fixture: HoldfastFixture, options: { concurrency: number; holds: number }): Promise<InProcessConfirmRun> {
  const event = await fixture.createEvent({ name: 'bench confirms in process', seats: options.holds });
  try {
    const holdIds: string[] = [];
    let nextSeat = 0;
    await Promise.all(Array.from({ length: options.concurrency }, async () => {
      while (nextSeat < event.seatIds.length) {
        const seatId = event.seatIds[nextSeat]!;
        const hold = await createHold(fixture.ctx, {
          eventId: event.eventId, customerId: `bench-inproc-${nextSeat++}`, selector: { kind: 'seats', seatIds: [seatId] },
        });
        holdIds.push(hold.id);
      }
    }));
    await fixture.ctx.persister.flush([event.eventId]);
    const histogram = new LatencyHistogram();
    let next = 0;
    const stopSampling = await sampleLockWaits(fixture.databaseUrl);
    const t0 = performance.now();
    await Promise.all(Array.from({ length: options.concurrency }, async () => {
      while (next < holdIds.length) {
        const index = next++;
        const t = performance.now();
        const result = await confirmHold(fixture.ctx, { holdId: holdIds[index]!, payment: { provider: 'service', reference: `bench-inproc-${index}` } });
        if (!result.created) throw new Error('a bench hold was confirmed twice');
        histogram.record(performance.now() - t);
      }
    }));
    const seconds = (performance.now() - t0) / 1000;
    const lockWaits = await stopSampling();
    return { concurrency: options.concurrency, confirms: holdIds.length, okPerSec: round3(holdIds.length / seconds), latency: histogram.summary(), lockWaits };
  } finally {
    await fixture.dropEvent(event.eventId);
  }
}
