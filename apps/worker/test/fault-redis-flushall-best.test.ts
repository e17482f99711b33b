// Fault: Redis (a private redis-server) loses every key in the middle of a
// best-available flash sale. Priming rebuilds the free-seat index from
// PostgreSQL, reconciliation repairs what the flush left, and paying every hold
// afterwards never sells a seat twice: each payment is an order or refund_required.
import { lastReconcileReport } from '@holdfast/domain';
import { eventKeys, ReconcileStore } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, seatGrid, useTestApi, deliverEvent, paymentIntentEvent, expectInvariants, isolatedDatabaseUrl, recordMeasurements, sleep, waitFor } from '@holdfast/test-kit';
import { startWorker, type WorkerHandle } from '../src';

let worker: WorkerHandle;
// Declared before useTestApi's, so it runs first: the worker closes before the API and its Redis.
afterAll(async () => { await worker?.close(); });
const { api } = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('bestflush'), HOLD_RATE_LIMIT_PER_MINUTE: '100000' }, { privateRedis: true });
beforeAll(async () => {
  worker = await startWorker(api.config, { sweepEveryMs: 1000, reconcileEveryMs: 1000, metricsPort: null });
});

test('when Redis is flushed in the middle of a best-available sale and every hold is then paid, then no seat is sold twice, every payment is an order or refund_required, and no answer is a 5xx', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 300, maxTicketsPerCustomer: 100, seats: seatGrid(['F'], 20, 30) });
  try {
    const holds: { id: string; totalCents: number; at: number }[] = [];
    const statuses: Record<string, number> = {};
    let running = true;
    const loops = Array.from({ length: 20 }, async (_, i) => {
      let n = 0;
      while (running) {
        const res = await api.call('POST', `/v1/events/${event.id}/holds`, {
          token: api.token('customer', `bestflush-${i}-${n++}`), body: { tier: 'standard', quantity: 1 + (n % 2) },
        });
        const key = res.status < 300 ? String(res.status) : `${res.status} ${res.body?.error?.code}`;
        statuses[key] = (statuses[key] ?? 0) + 1;
        if (res.status === 201) holds.push({ id: res.body.hold.id, totalCents: res.body.hold.totalCents, at: Date.now() });
        else await sleep(20); // a refused buyer pauses before trying again
      }
    });
    // Mid-sale: about a quarter of the seats held.
    await waitFor('100 holds', () => holds.length >= 100, { timeoutMs: 30_000, intervalMs: 20 });
    const flushedAt = Date.now();
    const heldBeforeFlush = holds.length;
    await api.rt.redis.flushall();
    await sleep(2500); // the sale goes on after the flush
    running = false;
    await Promise.all(loops);
    await api.rt.ctx.persister.flush();

    // Reconciliation after the flush has rebuilt the index and restored or ended the lost holds.
    const rs = new ReconcileStore(api.rt.redis);
    await waitFor('a reconciliation run after the flush', async () => {
      const report = await lastReconcileReport(rs);
      return report && Date.parse(report.startedAt) > Date.now() - 900 && Date.parse(report.startedAt) > flushedAt + 2500;
    }, { timeoutMs: 20_000, intervalMs: 200 });

    // Pay every hold ever created, at once.
    const paid = await Promise.all(holds.map((h) =>
      deliverEvent(api, paymentIntentEvent({ holdId: h.id, amount: h.totalCents, currency: 'usd' }))));
    expect(paid.every((r) => r.status === 200)).toBe(true);

    await expectInvariants(api.rt.db, event.id);
    const orders = await api.rt.db.order.count({ where: { eventId: event.id } });
    const refunds = await api.rt.db.payment.count({ where: { eventId: event.id, status: 'REFUND_REQUIRED' } });
    expect(orders + refunds).toBe(holds.length);
    const fiveHundreds = Object.entries(statuses).filter(([k]) => k.startsWith('5'));
    expect(fiveHundreds).toEqual([]);
    for (const key of Object.keys(statuses)) expect(['201', '409 SOLD_OUT']).toContain(key);
    const sold = await api.rt.db.seat.count({ where: { eventId: event.id, status: 'SOLD' } });
    // The free set holds no sold seat once every hold is paid.
    const free = await api.rt.redis.zrange(eventKeys(event.id).free, 0, -1);
    const soldIds = new Set((await api.rt.db.seat.findMany({ where: { eventId: event.id, status: 'SOLD' }, select: { id: true } })).map((s) => s.id));
    expect(free.filter((id) => soldIds.has(id))).toEqual([]);
    const report = await lastReconcileReport(rs);
    recordMeasurements('redis-flushall-best-available', {
      seats: seats.length, holdsCreated: holds.length, heldBeforeFlush, statuses, orders, refundRequired: refunds, seatsSold: sold,
      seatsSoldTwice: 0, lastReconcileRepairs: report?.repairs,
    });
  } finally {
    await dropTestEvent(api, event.id);
  }
});
