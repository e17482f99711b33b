import net from 'node:net';
import { lastReconcileReport, newHoldId, reconcile, type ReconcileReport, type RepairKind } from '@holdfast/domain';
import { eventKeys, ReconcileStore } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, seatGrid, useTestApi, isolatedDatabaseUrl, waitFor } from '@holdfast/test-kit';
import { startWorker, type WorkerHandle } from '../src';

// Its own database and Redis: reconciliation looks at every event it can see.
const { api, redis } = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('reconcile') }, { privateRedis: true });
let rs: ReconcileStore;
beforeAll(() => {
  rs = new ReconcileStore(api.rt.redis);
});

const count = (report: ReconcileReport, eventId: string, kind: RepairKind) =>
  report.entries.filter((e) => e.eventId === eventId && e.kind === kind).length;
const run = () => reconcile(api.rt.ctx, rs);

async function holdSeat(eventId: string, seatId: string, customer = api.token('customer')) {
  const res = await api.call('POST', `/v1/events/${eventId}/holds`, { token: customer, body: { seatIds: [seatId] } });
  expect(res.status).toBe(201);
  await api.rt.ctx.persister.flush();
  return res.body.hold as { id: string; expiresAt: string };
}

test('when Redis disagrees with PostgreSQL about sold seats, then reconciliation makes the sold set match and drops leases on sold seats', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 4) });
  const k = eventKeys(event.id);
  try {
    await api.call('GET', `/v1/events/${event.id}`);
    await holdSeat(event.id, seats[3]!.id); // primes the event
    // Seat 0 sold in PostgreSQL but Redis never heard; seat 1 in the sold set but available in PostgreSQL;
    // seat 2 sold in PostgreSQL with a stale lease and held entry left in Redis.
    await api.rt.db.seat.updateMany({ where: { id: { in: [seats[0]!.id, seats[2]!.id] } }, data: { status: 'SOLD' } });
    await api.rt.redis.sadd(k.sold, seats[1]!.id, seats[2]!.id);
    await api.rt.redis.set(k.seat(seats[2]!.id), newHoldId(event.id), 'PX', 600_000);
    await api.rt.redis.zadd(k.held, Date.now() + 600_000, seats[2]!.id);
    await api.rt.redis.zadd(k.held, Date.now() + 600_000, seats[0]!.id);

    const report = await run();
    expect(count(report, event.id, 'sold_set_missing')).toBe(1);
    expect(count(report, event.id, 'sold_set_extra')).toBe(1);
    expect(count(report, event.id, 'sold_seat_key')).toBe(2);
    expect((await api.rt.redis.smembers(k.sold)).sort()).toEqual([seats[0]!.id, seats[2]!.id].sort());
    expect(await api.rt.redis.exists(k.seat(seats[2]!.id))).toBe(0);
    expect(await api.rt.redis.zscore(k.held, seats[2]!.id)).toBeNull();
    expect(await api.rt.redis.zscore(k.held, seats[0]!.id)).toBeNull();

    const sold = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[0]!.id] } });
    expect(sold.status).toBe(409);
    const freed = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[1]!.id] } });
    expect(freed.status).toBe(201);
    // A second run finds nothing more to repair here.
    const again = await run();
    expect(again.entries.filter((e) => e.eventId === event.id)).toEqual([]);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when a ticket type’s counters drift, then reconciliation rewrites cap, sold and held from PostgreSQL and the live holds', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 20 }] });
  const tt = event.ticketTypes[0].id as string;
  const k = eventKeys(event.id);
  try {
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { ticketTypeId: tt, quantity: 3 } });
    expect(res.status).toBe(201);
    await api.rt.ctx.persister.flush();
    await api.rt.redis.hset(k.ticketType(tt), 'cap', 25, 'sold', 7, 'held', 9);
    expect((await api.call('GET', `/v1/events/${event.id}`)).body.event.ticketTypes[0].available).toBe(9);
    const report = await run();
    expect(count(report, event.id, 'ga_counter')).toBe(1);
    expect(await api.rt.redis.hmget(k.ticketType(tt), 'cap', 'sold', 'held')).toEqual(['20', '0', '3']);
    expect((await api.call('GET', `/v1/events/${event.id}`)).body.event.ticketTypes[0].available).toBe(17);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when a seat lease or hold record has no TTL, then reconciliation gives it one (the lease: its hold’s remaining time)', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 300, seats: seatGrid(['A'], 1, 3) });
  const k = eventKeys(event.id);
  try {
    const hold = await holdSeat(event.id, seats[0]!.id);
    await api.rt.redis.persist(k.seat(seats[0]!.id));
    await api.rt.redis.persist(k.hold(hold.id));
    await api.rt.redis.set(k.seat(seats[1]!.id), newHoldId(event.id));
    const report = await run();
    expect(count(report, event.id, 'key_without_ttl')).toBe(3);
    const ttl = await api.rt.redis.pttl(k.seat(seats[0]!.id));
    const remaining = Date.parse(hold.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(remaining - 5000);
    expect(ttl).toBeLessThanOrEqual(remaining + 1000);
    expect(await api.rt.redis.pttl(k.hold(hold.id))).toBeGreaterThan(0);
    expect(await api.rt.redis.exists(k.seat(seats[1]!.id))).toBe(0);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an active hold’s leases vanished and its seat is still free, then reconciliation restores it for its remaining time', async () => {
  const { event, seats } = await createTestEvent(api, {
    holdTtlSeconds: 300, seats: seatGrid(['A'], 1, 2), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 5 }],
  });
  const tt = event.ticketTypes[0].id as string;
  const k = eventKeys(event.id);
  try {
    const hold = await holdSeat(event.id, seats[0]!.id);
    const ga = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { ticketTypeId: tt, quantity: 2 } });
    await api.rt.ctx.persister.flush();
    // Redis loses the holds' leases (losing the whole event is repaired by priming, which restores
    // live holds itself: fault-redis-prime-leases.test.ts).
    const gaId = ga.body.hold.id as string;
    await api.rt.redis.multi().del(k.seat(seats[0]!.id)).zrem(k.held, seats[0]!.id)
      .hdel(k.ticketTypeHolds(tt), gaId).zrem(k.ticketTypeExpiry(tt), gaId).hincrby(k.ticketType(tt), 'held', -2).exec();
    const report = await run();
    expect(count(report, event.id, 'hold_restored')).toBe(2);
    expect(await api.rt.redis.get(k.seat(seats[0]!.id))).toBe(hold.id);
    const ttl = await api.rt.redis.pttl(k.seat(seats[0]!.id));
    expect(ttl).toBeGreaterThan(Date.parse(hold.expiresAt) - Date.now() - 5000);
    const other = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[0]!.id] } });
    expect(other.status).toBe(409);
    const ev = await api.call('GET', `/v1/events/${event.id}`);
    expect(ev.body.event.ticketTypes[0].available).toBe(3);
    expect((await api.rt.db.hold.findUnique({ where: { id: ga.body.hold.id } }))!.status).toBe('ACTIVE');
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an active hold’s leases vanished and another buyer now holds its seat, then reconciliation ends it (audited), leaving one holder', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 300, seats: seatGrid(['A'], 1, 2) });
  const k = eventKeys(event.id);
  try {
    const lost = await holdSeat(event.id, seats[0]!.id);
    await api.rt.redis.del(k.seat(seats[0]!.id));
    await api.rt.redis.zrem(k.held, seats[0]!.id);
    const winner = await holdSeat(event.id, seats[0]!.id);
    const report = await run();
    expect(count(report, event.id, 'hold_ended')).toBe(1);
    const row = await api.rt.db.hold.findUnique({ where: { id: lost.id } });
    expect(row!.status).toBe('EXPIRED');
    expect(await api.rt.redis.get(k.seat(seats[0]!.id))).toBe(winner.id);
    const audit = await api.rt.db.auditEntry.findMany({ where: { holdId: lost.id } });
    expect(audit.map((a) => a.action)).toEqual(['hold.ended_lost']);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when a hold answered 503 because Redis froze is given back, then reconciliation ends its row in PostgreSQL instead of taking its seat again', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 300, seats: seatGrid(['A'], 1, 2) });
  const k = eventKeys(event.id);
  try {
    await holdSeat(event.id, seats[1]!.id); // primes the event, loads the hold script
    const buyer = api.token('customer', 'frozen-buyer');
    redis.pause();
    let status: number;
    try {
      status = (await api.call('POST', `/v1/events/${event.id}/holds`, { token: buyer, body: { seatIds: [seats[0]!.id] } })).status;
    } finally {
      redis.resume();
    }
    expect(status).toBe(503);
    // The hold script ran once Redis answered again, and was given back after it: the seat is free,
    // while the outbox still brings the hold's row to PostgreSQL, active.
    await waitFor('the give-back', async () => (await api.rt.redis.exists(k.seat(seats[0]!.id))) === 0 && (await api.rt.redis.xlen(k.outbox)) > 0, { timeoutMs: 5000 });
    await api.rt.ctx.persister.flush([event.id]);
    const row = await api.rt.db.hold.findFirst({ where: { eventId: event.id, customerId: 'frozen-buyer' } });
    expect(row?.status).toBe('ACTIVE');

    const report = await run();
    expect(count(report, event.id, 'hold_ended')).toBe(1);
    expect(count(report, event.id, 'hold_restored')).toBe(0);
    expect((await api.rt.db.hold.findUnique({ where: { id: row!.id } }))!.status).toBe('EXPIRED');
    expect((await api.rt.db.auditEntry.findMany({ where: { holdId: row!.id } })).map((a) => a.action)).toEqual(['hold.given_back']);
    expect(await api.rt.redis.exists(k.seat(seats[0]!.id))).toBe(0);
    // The buyer's retry gets the seat.
    const retry = await api.call('POST', `/v1/events/${event.id}/holds`, { token: buyer, body: { seatIds: [seats[0]!.id] } });
    expect(retry.status).toBe(201);
    await api.rt.ctx.persister.flush();
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when a hold was released in PostgreSQL but Redis missed the end, then reconciliation removes its lease', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 300, seats: seatGrid(['A'], 1, 2) });
  const k = eventKeys(event.id);
  try {
    const hold = await holdSeat(event.id, seats[0]!.id);
    // As when the release's Redis step failed (Redis unreachable after the commit).
    await api.rt.db.hold.update({ where: { id: hold.id }, data: { status: 'RELEASED', releasedBy: 'customer', endedAt: new Date() } });
    const blocked = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[0]!.id] } });
    expect(blocked.status).toBe(409);
    const report = await run();
    expect(count(report, event.id, 'stale_lease')).toBe(1);
    expect(await api.rt.redis.exists(k.seat(seats[0]!.id))).toBe(0);
    const taken = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[0]!.id] } });
    expect(taken.status).toBe(201);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an admin cancels an order while reconciliation walks the sold seats, then the lease a waiting customer\'s offer took on its seat stays', async () => {
  const { event, seats } = await createTestEvent(api, { maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 1, 'floor') });
  const k = eventKeys(event.id);
  const seatId = seats[0]!.id;
  try {
    const hold = await holdSeat(event.id, seatId);
    const order = await api.call('POST', `/v1/holds/${hold.id}/confirm`, { token: api.token('service', 'integrator'), body: { paymentReference: `ref-${hold.id}` } });
    expect(order.status).toBe(201);
    const waiter = api.token('customer', `waiter-${event.id}`);
    expect((await api.call('POST', `/v1/events/${event.id}/waitlist`, { token: waiter, body: { tier: 'floor', quantity: 1 } })).status).toBe(201);
    // The cancel lands after reconciliation read the sold seats (Redis's, then PostgreSQL's) and before it reads their leases.
    let armed = false;
    let cancelled = false;
    const between = new (class extends ReconcileStore {
      override async soldSeats(eventId: string) {
        const sold = await super.soldSeats(eventId);
        armed ||= eventId === event.id;
        return sold;
      }

      override async seatLeases(eventId: string, seatIds: string[]) {
        if (armed && eventId === event.id && !cancelled) {
          cancelled = true;
          const res = await api.call('POST', `/v1/admin/orders/${order.body.order.id}/cancel`, { token: api.token('admin'), body: { reason: 'moved' } });
          expect(res.status).toBe(200);
        }
        return super.seatLeases(eventId, seatIds);
      }
    })(api.rt.redis);
    const report = await reconcile(api.rt.ctx, between);
    expect(cancelled).toBe(true);
    expect(count(report, event.id, 'sold_seat_key')).toBe(0);
    const offer = (await api.call('GET', `/v1/events/${event.id}/waitlist/me`, { token: waiter })).body.entries[0].offer;
    expect(await api.rt.redis.get(k.seat(seatId))).toBe(offer.holdId);
    expect(await api.rt.redis.zscore(k.held, seatId)).not.toBeNull();
    expect(await api.rt.redis.sismember(k.sold, seatId)).toBe(0);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when the worker\'s metrics port is taken, then the worker runs without its metrics (logged) instead of crashing', async () => {
  const taken = net.createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  const port = (taken.address() as net.AddressInfo).port;
  try {
    const before = (await lastReconcileReport(rs))?.finishedAt ?? '';
    const worker = await startWorker(api.config, { sweepEveryMs: 60_000, reconcileEveryMs: 3_600_000, metricsPort: port });
    try {
      expect(worker.metricsUrl).toBeNull();
      // It works: a reconciliation it is asked for runs.
      expect((await api.call('POST', '/v1/admin/reconcile', { token: api.token('admin'), body: {} })).status).toBe(202);
      await waitFor('a new reconciliation report', async () => ((await lastReconcileReport(rs))?.finishedAt ?? '') !== before, { timeoutMs: 10_000, intervalMs: 100 });
    } finally {
      await worker.close();
    }
  } finally {
    await new Promise((r) => taken.close(r));
  }
});

describe('admin endpoints', () => {
  let worker: WorkerHandle;
  beforeAll(async () => {
    worker = await startWorker(api.config, { sweepEveryMs: 60_000, reconcileEveryMs: 3_600_000, metricsPort: 0 });
  });
  afterAll(async () => {
    await worker.close();
  });

  test('when an admin asks for a reconciliation, then the worker runs it, counts its repairs and the report is readable', async () => {
    // The worker's first scheduled runs (a sweep and a reconciliation, at start) end before the drift
    // is made: else the scheduled run may repair it first and the requested one find nothing (seen on a
    // loaded machine, when the worker started slowly).
    await waitFor('the first scheduled runs done', async () => {
      const jobs = await api.rt.queues.maintenance.getJobCounts('active', 'waiting', 'prioritized', 'completed');
      return jobs.completed! >= 2 && jobs.active! + jobs.waiting! + jobs.prioritized! === 0;
    }, { timeoutMs: 15_000, intervalMs: 50 });
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
    try {
      await holdSeat(event.id, seats[1]!.id);
      await api.rt.db.seat.updateMany({ where: { id: seats[0]!.id }, data: { status: 'SOLD' } });
      const before = (await lastReconcileReport(rs))?.finishedAt ?? '';
      const admin = api.token('admin');
      const res = await api.call('POST', '/v1/admin/reconcile', { token: admin });
      expect(res.status).toBe(202);
      expect(typeof res.body.jobId).toBe('string');
      // Wait for the requested run's report.
      const last = await waitFor('a report of a run that saw the drift', async () => {
        const answer = await api.call('GET', '/v1/admin/reconcile/last', { token: admin });
        const r = answer.body?.report as ReconcileReport | null | undefined;
        return r && r.finishedAt !== before && r.entries.some((e) => e.eventId === event.id && e.kind === 'sold_set_missing') && answer;
      }, { timeoutMs: 10_000, intervalMs: 100 });
      expect(last.status).toBe(200);
      const report = last.body!.report as ReconcileReport;
      expect(report.finishedAt).not.toBe(before);
      expect(report.repairs.sold_set_missing).toBeGreaterThanOrEqual(1);
      expect(report.entries.some((e) => e.eventId === event.id && e.kind === 'sold_set_missing')).toBe(true);
      expect(typeof report.durationMs).toBe('number');
      const text = await (await fetch(worker.metricsUrl!)).text();
      expect(text).toMatch(/holdfast_reconcile_repairs_total\{kind="sold_set_missing"\} [1-9]/);
      expect(text).toMatch(/holdfast_jobs_total\{queue="holdfast-maintenance",name="reconcile",result="completed"\} [1-9]/);
      const metrics = await api.call('GET', '/metrics');
      expect(metrics.body).toMatch(/holdfast_queue_jobs\{queue="holdfast-expiry",state="delayed"\} \d+/);
      expect(metrics.body).toMatch(/holdfast_queue_jobs\{queue="holdfast-maintenance",state="failed"\} \d+/);
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when a non-admin or a bad body calls the reconcile endpoints, then 401, 403 or 400 and nothing is queued', async () => {
    const before = await api.rt.queues.maintenance.getJobCounts('waiting', 'active');
    expect((await api.call('POST', '/v1/admin/reconcile')).status).toBe(401);
    expect((await api.call('POST', '/v1/admin/reconcile', { token: api.token('customer') })).status).toBe(403);
    expect((await api.call('GET', '/v1/admin/reconcile/last', { token: api.token('service') })).status).toBe(403);
    const bad = await api.call('POST', '/v1/admin/reconcile', { token: api.token('admin'), body: { now: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(bad.body.error.details)).toContain('now');
    const query = await api.call('GET', '/v1/admin/reconcile/last?x=1', { token: api.token('admin') });
    expect(query.status).toBe(400);
    expect(await api.rt.queues.maintenance.getJobCounts('waiting', 'active')).toEqual(before);
  });
});

test('when the free set best available walks disagrees with the seat keys, or Redis lost the seat index, then reconciliation repairs it and counts each drift', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 6) });
  const k = eventKeys(event.id);
  const counted = (report: ReconcileReport, kind: RepairKind) =>
    report.entries.filter((e) => e.eventId === event.id && e.kind === kind).reduce((t, e) => t + (e.count ?? 1), 0);
  try {
    const first = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { tier: 'standard', quantity: 1 } });
    expect(first.status).toBe(201);
    expect(first.body.hold.items[0].seatId).toBe(seats[0]!.id); // primed and indexed on the way
    await api.rt.ctx.persister.flush();
    // Drift: the held seat back in the free set; two free seats missing from it.
    await api.rt.redis.zadd(k.free, 0, seats[0]!.id);
    await api.rt.redis.zrem(k.free, seats[4]!.id, seats[5]!.id);

    let report = await run();
    expect(counted(report, 'free_set_extra')).toBe(1);
    expect(counted(report, 'free_set_missing')).toBe(2);
    expect(counted(report, 'seat_index_rebuilt')).toBe(0);
    const free = () => api.rt.redis.zrange(k.free, 0, -1);
    expect(await free()).toEqual(seats.slice(1).map((s) => s.id));

    // A second run finds nothing to repair.
    report = await run();
    expect(counted(report, 'free_set_extra') + counted(report, 'free_set_missing')).toBe(0);

    // The index is lost (the rest of the event's keys kept): rebuilt and counted once.
    await api.rt.redis.del(k.seatIndex, k.free);
    report = await run();
    expect(counted(report, 'seat_index_rebuilt')).toBe(1);
    expect(await free()).toEqual(seats.slice(1).map((s) => s.id));
    const next = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { tier: 'standard', quantity: 2 } });
    expect(next.body.hold.items.map((i: { seatId: string }) => i.seatId)).toEqual([seats[1]!.id, seats[2]!.id]);
  } finally {
    await dropTestEvent(api, event.id);
  }
});
