import { lastReconcileReport } from '@holdfast/domain';
import { eventKeys, ReconcileStore } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, seatGrid, useTestApi, expectInvariants, deliverEvent, paymentIntentEvent, recordMeasurements, isolatedDatabaseUrl, sleep, waitFor } from '@holdfast/test-kit';
import { startWorker, type WorkerHandle } from '../src';

let worker: WorkerHandle;
// Declared before useTestApi's, so it runs first: the worker closes before the API and its Redis.
afterAll(async () => { await worker?.close(); });
const { api } = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('flushall'), HOLD_RATE_LIMIT_PER_MINUTE: '100000' }, { privateRedis: true });
beforeAll(async () => {
  worker = await startWorker(api.config, { sweepEveryMs: 1000, reconcileEveryMs: 1000, metricsPort: null });
});

/** Live (ACTIVE, not due) holds per seat, and whether Redis's lease of each seat names that hold. */
async function seatOwnership(eventId: string) {
  const rows = await api.rt.db.hold.findMany({ where: { eventId, status: 'ACTIVE', expiresAt: { gt: new Date() } } });
  const bySeat = new Map<string, string[]>();
  for (const r of rows) {
    for (const item of r.items as { seatId?: string }[]) {
      if (item.seatId) bySeat.set(item.seatId, [...(bySeat.get(item.seatId) ?? []), r.id]);
    }
  }
  const k = eventKeys(eventId);
  const doubled = [...bySeat].filter(([, ids]) => ids.length > 1);
  const mismatched: string[] = [];
  for (const [seatId, ids] of bySeat) {
    if (ids.length === 1 && (await api.rt.redis.get(k.seat(seatId))) !== ids[0]) mismatched.push(seatId);
  }
  return { live: rows.length, doubled, mismatched };
}

test('when Redis is flushed with holds and paid webhooks in flight, then no seat is sold twice and reconciliation leaves every seat with at most one live hold, matching its lease', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 300, maxTicketsPerCustomer: 100, seats: seatGrid(['F'], 2, 15) });
  try {
    const created: { id: string; seatId: string; at: number }[] = [];
    const statuses: Record<string, number> = {};
    const webhooks: Record<string, number> = {};
    let running = true;
    let flushedAt = 0;
    const loops = Array.from({ length: 6 }, async (_, i) => {
      let n = 0;
      while (running) {
        const seat = seats[Math.floor(Math.random() * seats.length)]!;
        const res = await api.call('POST', `/v1/events/${event.id}/holds`, {
          token: api.token('customer', `flush-${i}-${n++}`), body: { seatIds: [seat.id] },
        });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 201) {
          created.push({ id: res.body.hold.id, seatId: seat.id, at: Date.now() });
          // Every other buyer pays at once: Stripe's webhook arrives while the flush may hit.
          if (n % 3 === 0) {
            const paid = await deliverEvent(api, paymentIntentEvent({ holdId: res.body.hold.id, amount: res.body.hold.totalCents, currency: 'usd' }));
            webhooks[paid.status] = (webhooks[paid.status] ?? 0) + 1;
          }
        }
        await sleep(10); // each buyer's pace
      }
    });
    await sleep(1500); // the sale runs a while before the flush
    flushedAt = Date.now();
    await api.rt.redis.flushall();
    await sleep(3000); // and goes on after it
    running = false;
    await Promise.all(loops);
    await api.rt.ctx.persister.flush();

    // Buyers re-took seats whose leases the flush erased: two live holds on one seat, until reconciliation ends one.
    const before = await seatOwnership(event.id);
    const after = await waitFor('every seat with at most one live hold, matching its lease', async () => {
      const o = await seatOwnership(event.id);
      return o.doubled.length === 0 && o.mismatched.length === 0 && o;
    }, { timeoutMs: 20_000, intervalMs: 250 });
    expect(after.doubled).toEqual([]);
    expect(after.mismatched).toEqual([]);
    expect(after.live).toBeGreaterThan(0);
    const settledMs = Date.now() - flushedAt;
    // No seat sold twice (the database fence), and Redis's sold set is exactly PostgreSQL's SOLD seats.
    await expectInvariants(api.rt.db, event.id);
    const soldPg = (await api.rt.db.seat.findMany({ where: { eventId: event.id, status: 'SOLD' }, select: { id: true } })).map((s) => s.id).sort();
    expect((await api.rt.redis.smembers(eventKeys(event.id).sold)).sort()).toEqual(soldPg);
    const orders = await api.rt.db.order.count({ where: { eventId: event.id } });
    const refunds = await api.rt.db.payment.count({ where: { eventId: event.id, status: 'REFUND_REQUIRED' } });
    const paidTotal = Object.values(webhooks).reduce((t, n) => t + n, 0);
    const report = await lastReconcileReport(new ReconcileStore(api.rt.redis));
    expect(Date.parse(report!.finishedAt)).toBeGreaterThan(flushedAt);
    const ended = await api.rt.db.auditEntry.count({ where: { eventId: event.id, action: 'hold.ended_lost' } });
    const persisted = await api.rt.db.hold.count({ where: { id: { in: created.map((c) => c.id) } } });
    expect(statuses['500'] ?? 0).toBe(0);
    expect(webhooks['200']).toBe(paidTotal);
    // Every payment became an order or a recorded refund: none lost.
    expect(orders + refunds).toBe(paidTotal);
    recordMeasurements('redis-flushall', {
      holdsCreated: created.length, statuses, holdsCreatedBeforeFlush: created.filter((c) => c.at < flushedAt).length,
      seatsDoubleHeldRightAfter: before.doubled.length, seatsWithLeaseMismatchRightAfter: before.mismatched.length,
      holdsEndedByReconciliation: ended, msFromFlushToConsistent: settledMs,
      holdsNeverPersisted: created.length - persisted, seatsSoldTwice: 0,
      webhooksPaid: paidTotal, orders, refundRequired: refunds, paymentsLost: paidTotal - orders - refunds,
    });
  } finally {
    await dropTestEvent(api, event.id);
  }
});
