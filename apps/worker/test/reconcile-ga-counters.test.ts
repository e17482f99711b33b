// Issue 15, point 8: a general-admission hold taken again counts its tickets once, and
// reconciliation repairs a ticket type's counters even while the sale keeps moving them.
import { reconcile, type ReconcileReport } from '@holdfast/domain';
import { eventKeys, ReconcileStore } from '@holdfast/hold-store';
import { expectInvariants, isolatedDatabaseUrl, useTestApi, confirmVia, holdTickets, waitUntilExpired, sleep } from '@holdfast/test-kit';

// Its own database and Redis: reconciliation looks at every event it can see.
const { api, newEvent } = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('gacounters'), HOLD_RATE_LIMIT_PER_MINUTE: '100000' }, { privateRedis: true });
let rs: ReconcileStore;
beforeAll(() => {
  rs = new ReconcileStore(api.rt.redis);
});

async function gaEvent(capacity: number, holdTtlSeconds = 300) {
  const { event } = await newEvent({ holdTtlSeconds, ticketTypes: [{ name: 'GA', priceCents: 1000, capacity }] });
  return { eventId: event.id as string, tt: event.ticketTypes[0].id as string };
}

const available = async (eventId: string) =>
  (await api.call('GET', `/v1/events/${eventId}`)).body.event.ticketTypes[0].available as number;

/** Redis's counters and the quantities of the holds it counts. */
async function counters(eventId: string, tt: string) {
  const k = eventKeys(eventId);
  const [cap, sold, held] = await api.rt.redis.hmget(k.ticketType(tt), 'cap', 'sold', 'held');
  const byHolds = (await api.rt.redis.hvals(k.ticketTypeHolds(tt))).reduce((t, q) => t + Number(q), 0);
  return { cap: Number(cap), sold: Number(sold), held: Number(held), byHolds };
}

test('when a general-admission hold whose entry is still live is taken again, then its tickets are counted once', async () => {
  const { eventId, tt } = await gaEvent(10);
  const hold = await holdTickets(api, eventId, 'retaker', tt, 3);
  await api.rt.ctx.persister.flush([eventId]);
  expect(await available(eventId)).toBe(7);

  // What reconciliation's restore does when a confirm re-took the hold between its read and its retake.
  const r = await api.rt.ctx.store.retakeHold({
    eventId, holdId: hold.id, customerId: 'retaker', leaseMs: 120_000, seatIds: [], ticketTypeId: tt, quantity: 3, maxPerCustomer: 10,
  });
  expect(r.kind).toBe('ok');
  expect(await counters(eventId, tt)).toEqual({ cap: 10, sold: 0, held: 3, byHolds: 3 });
  expect(await available(eventId)).toBe(7);
  // Every ticket not held can be sold: 7 more, then none.
  for (let i = 0; i < 7; i++) await holdTickets(api, eventId, `buyer-${i}`, tt, 1);
  const over = await api.call('POST', `/v1/events/${eventId}/holds`, { token: api.token('customer', 'late'), body: { ticketTypeId: tt, quantity: 1 } });
  expect(over.status).toBe(409);
  await api.rt.ctx.persister.flush([eventId]);
  await expectInvariants(api.rt.db, eventId);
});

test('when a ticket type’s counters drift while holds keep coming, then one reconciliation run repairs them (nothing left undersold)', async () => {
  const capacity = 400;
  const { eventId, tt } = await gaEvent(capacity);
  await holdTickets(api, eventId, 'first', tt, 2);
  await api.rt.ctx.persister.flush([eventId]);
  // A lost decrement: Redis counts 5 tickets held that no hold has.
  await api.rt.redis.hincrby(eventKeys(eventId).ticketType(tt), 'held', 5);
  expect(await available(eventId)).toBe(capacity - 7);

  let running = true;
  let created = 1;
  const traffic = (async () => {
    for (let i = 0; running && i < 300; i++) {
      const res = await api.call('POST', `/v1/events/${eventId}/holds`, {
        token: api.token('customer', `busy-${i}`), body: { ticketTypeId: tt, quantity: 1 },
      });
      expect(res.status).toBe(201);
      created++;
    }
  })();
  let report: ReconcileReport;
  try {
    await sleep(50); // the sale is moving before reconciliation reads
    report = await reconcile(api.rt.ctx, rs);
  } finally {
    running = false;
    await traffic;
  }
  expect(report.errors).toEqual([]);
  expect(report.entries.filter((e) => e.eventId === eventId && e.kind === 'ga_counter')).toHaveLength(1);
  const c = await counters(eventId, tt);
  expect(c).toEqual({ cap: capacity, sold: 0, held: c.byHolds, byHolds: created + 1 });
  expect(await available(eventId)).toBe(capacity - created - 1);
  await api.rt.ctx.persister.flush([eventId]);
  await expectInvariants(api.rt.db, eventId);
});

test('when reconciliation runs between a confirm’s commit in PostgreSQL and its end in Redis, then the sale is counted once', async () => {
  const capacity = 10;
  const { eventId, tt } = await gaEvent(capacity);
  const k = eventKeys(eventId);
  const hold = await holdTickets(api, eventId, 'payer', tt, 2);
  await api.rt.ctx.persister.flush([eventId]);
  expect((await confirmVia(api, hold.id)).status).toBe(201);
  // Put Redis back where it was the instant the confirm committed in PostgreSQL, before its
  // end-hold ran: the hold's 2 tickets still held, not yet sold.
  await api.rt.redis.multi()
    .hincrby(k.ticketType(tt), 'sold', -2).hincrby(k.ticketType(tt), 'held', 2)
    .hset(k.ticketTypeHolds(tt), hold.id, 2).zadd(k.ticketTypeExpiry(tt), Date.now() + 60_000, hold.id)
    .hset(k.hold(hold.id), 'status', 'active').exec();
  const report = await reconcile(api.rt.ctx, rs);
  expect(report.errors).toEqual([]);
  // The confirm's end in Redis now lands, as it would have.
  await api.rt.ctx.store.endHold({ eventId, holdId: hold.id, customerId: 'payer', mode: 'confirmed', seatIds: [], ticketTypeId: tt, quantity: 2 });
  expect(await counters(eventId, tt)).toEqual({ cap: capacity, sold: 2, held: 0, byHolds: 0 });
  expect(await available(eventId)).toBe(capacity - 2);
  await expectInvariants(api.rt.db, eventId);
});

test('when an expired general-admission hold is paid late, then it is sold once and every other ticket stays sellable', async () => {
  const { eventId, tt } = await gaEvent(5, 1);
  const hold = await holdTickets(api, eventId, 'late-payer', tt, 2);
  await api.rt.ctx.persister.flush([eventId]);
  await waitUntilExpired(hold);
  await reconcile(api.rt.ctx, rs); // reconciliation between the expiry and the payment changes nothing wrong
  const paid = await confirmVia(api, hold.id);
  expect(paid.status).toBe(201);
  expect(await counters(eventId, tt)).toEqual({ cap: 5, sold: 2, held: 0, byHolds: 0 });
  expect(await available(eventId)).toBe(3);
  for (let i = 0; i < 3; i++) await holdTickets(api, eventId, `next-${i}`, tt, 1);
  const over = await api.call('POST', `/v1/events/${eventId}/holds`, { token: api.token('customer', 'one-too-many'), body: { ticketTypeId: tt, quantity: 1 } });
  expect(over.status).toBe(409);
  await api.rt.ctx.persister.flush([eventId]);
  await expectInvariants(api.rt.db, eventId);
});
