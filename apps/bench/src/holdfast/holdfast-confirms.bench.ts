import type { ChildServer } from '../baselines/child-server.launcher';
import { runHttpLoad, type HttpLoadResult } from '../http-load.generator';
import { round3 } from '../latency.histogram';
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
