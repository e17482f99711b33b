// Issue 28, point 11: a hold expires on Redis's clock (the one its expiresAt was
// set on and its leases run out on), not on the clock of the worker or API
// process that asks; and the expiry's end-hold ends leases only once they ran out.
import { expireHold } from '@holdfast/domain';
import { eventKeys } from '@holdfast/hold-store';
import {
  confirmVia, createTestEvent, dropTestEvent, expectInvariants, holdPost, isolatedDatabaseUrl, seatGrid, skewProcessClock, sleep, useTestApi, waitFor,
} from '@holdfast/test-kit';
import { startWorker, type WorkerHandle } from '../src';

let worker: WorkerHandle;
// Declared before useTestApi's, so it runs first: the worker closes before the API and its Redis.
afterAll(async () => { await worker?.close(); });
// A Redis of its own: no other suite's expiry jobs reach this worker; a database of its own: its sweep sees no other suite's holds.
const { api } = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('clock') }, { privateRedis: true });
beforeAll(async () => {
  worker = await startWorker(api.config, { sweepEveryMs: 500, reconcileEveryMs: 3_600_000, metricsPort: 0 });
});

let restoreClock: (() => void) | null = null;
afterEach(() => { restoreClock?.(); restoreClock = null; });

const within = { timeoutMs: 10_000, intervalMs: 50 };
const holdRow = (id: string) => api.rt.db.hold.findUnique({ where: { id } });

test('when the worker\'s and the API\'s clock run 2 minutes ahead of Redis\'s, then a hold with a minute left is neither expired nor refused an extension', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 60, maxHoldExtensions: 1, seats: seatGrid(['K'], 1, 2) });
  try {
    const held = await holdPost(api, event.id, 'k11-a', { seatIds: [seats[0]!.id] });
    expect(held.status).toBe(201);
    const holdId = held.body.hold.id as string;
    await waitFor('the hold in PostgreSQL', () => holdRow(holdId), within);

    // This process (the API and the worker) now believes the hold ran out a minute ago.
    restoreClock = skewProcessClock(120_000);
    await sleep(2000); // four sweeps, and the expiry job's early firing
    expect((await holdRow(holdId))?.status).toBe('ACTIVE');
    expect(await api.rt.redis.get(eventKeys(event.id).seat(seats[0]!.id))).toBe(holdId);
    const other = await holdPost(api, event.id, 'k11-b', { seatIds: [seats[0]!.id] });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('SEATS_UNAVAILABLE');

    const extended = await api.call('POST', `/v1/holds/${holdId}/extend`, { token: api.token('customer', 'k11-a') });
    expect(extended.status).toBe(200);
    expect(Date.parse(extended.body.hold.expiresAt)).toBeGreaterThan(Date.parse(held.body.hold.expiresAt));

    restoreClock();
    restoreClock = null;
    expect((await confirmVia(api, holdId)).status).toBe(201);
    await expectInvariants(api.rt.db, event.id);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an expiry reaches Redis before the hold\'s time on Redis\'s clock, then its leases stay until they run out, and only then is the seat free', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 3, seats: seatGrid(['L'], 1, 2) });
  try {
    const held = await holdPost(api, event.id, 'l11-a', { seatIds: [seats[0]!.id] });
    expect(held.status).toBe(201);
    const holdId = held.body.hold.id as string;
    await waitFor('the hold in PostgreSQL', () => holdRow(holdId), within);

    // A caller whose clock is a minute ahead expires it: PostgreSQL takes its word, Redis's clock says not yet.
    expect(await expireHold(api.rt.ctx, holdId, new Date(Date.now() + 60_000))).toEqual({ kind: 'expired' });
    expect((await holdRow(holdId))?.status).toBe('EXPIRED');
    expect(await api.rt.redis.get(eventKeys(event.id).seat(seats[0]!.id))).toBe(holdId);
    const early = await holdPost(api, event.id, 'l11-b', { seatIds: [seats[0]!.id] });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('SEATS_UNAVAILABLE');

    // At the hold's time on Redis's clock the lease runs out and the seat is free.
    const later = await waitFor('the seat free once the lease ran out', async () => {
      const r = await holdPost(api, event.id, `l11-c-${Date.now()}`, { seatIds: [seats[0]!.id] });
      return r.status === 201 ? r : null;
    }, { timeoutMs: 8000, intervalMs: 200 });
    expect(Date.parse(later.body.hold.createdAt)).toBeGreaterThanOrEqual(Date.parse(held.body.hold.expiresAt));
    expect((await confirmVia(api, later.body.hold.id)).status).toBe(201);
    await expectInvariants(api.rt.db, event.id);
  } finally {
    await dropTestEvent(api, event.id);
  }
});
