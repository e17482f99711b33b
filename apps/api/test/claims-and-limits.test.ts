// Issue 28, points 4, 6, 7 and 12: a confirm that does not commit gives its claim back (and a
// release or expiry it held off is applied then); a late payment, a hold restored by reconciliation
// or priming and a purchase whose count drifted all count against the per-customer limit; an
// extend never shortens a claimed hold's count; reconciliation never re-takes a released hold.
import pg from 'pg';
import { expireHold, reconcile } from '@holdfast/domain';
import { eventKeys, ReconcileStore } from '@holdfast/hold-store';
import {
  confirmVia, expectInvariants, forgetEventInRedis, holdSeats, holdTickets, isolatedDatabaseUrl, seatGrid, sleep, sleepUntil,
  startApi, useTestApi, waitFor, waitUntilExpired, type TestApi,
} from '@holdfast/test-kit';

// Its own database (the year's order-number row is locked here, and reconciliation reads every
// event) and its own Redis. Statements keep the default 1.5 s budget, so a confirm waiting on a
// locked row answers 503.
const suite = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('claims') }, { privateRedis: true });
const { newEvent } = suite;
let rs: ReconcileStore;
beforeAll(() => {
  rs = new ReconcileStore(suite.api.rt.redis);
});

/** Holds the year's order-number row locked (as a busy confirm would) until the returned release runs. */
async function lockOrderNumbers(): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: suite.api.config.databaseUrl });
  await client.connect();
  const year = new Date().getUTCFullYear();
  await client.query('INSERT INTO order_sequences (year, last_value) VALUES ($1, 0) ON CONFLICT (year) DO NOTHING', [year]);
  await client.query('BEGIN');
  await client.query('SELECT last_value FROM order_sequences WHERE year = $1 FOR UPDATE', [year]);
  return async () => {
    await client.query('ROLLBACK');
    await client.end();
  };
}

/** Sessions of this database waiting on a row lock. */
async function lockWaiters(api: TestApi): Promise<number> {
  const rows = await api.rt.db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
  return rows[0]!.n;
}

const hold = (api: TestApi, eventId: string, customer: string, body: unknown) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token: api.token('customer', customer), body });

/** Seats (not tickets) a customer owns in an event's orders. */
async function owned(api: TestApi, eventId: string, customerId: string): Promise<number> {
  const rows = await api.rt.db.$queryRaw<{ n: number }[]>`
    SELECT COALESCE(sum(i.quantity), 0)::int AS n FROM orders o JOIN order_items i ON i.order_id = o.id
    WHERE o.event_id = ${eventId}::uuid AND o.customer_id = ${customerId}`;
  return rows[0]!.n;
}

test('when a confirm answers 503 while a release of its hold waits, then the claim is given back, the release is applied in Redis and the seats can be held again at once', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 2, 'standard', 1000) });
  const api = suite.api;
  const held = await holdSeats(api, event.id, 'buyer-a', [seats[0]!.id, seats[1]!.id]);
  await api.rt.ctx.persister.flush([event.id]);
  const k = eventKeys(event.id);

  const unlock = await lockOrderNumbers();
  let confirm: Awaited<ReturnType<typeof confirmVia>>;
  let release: Awaited<ReturnType<TestApi['call']>>;
  try {
    const confirming = confirmVia(api, held.id, 'pay-a');
    // The confirm has claimed the hold and its batch waits on the order-number row, the hold's row locked.
    await waitFor('the confirm to claim the hold', async () => (await api.rt.redis.exists(k.claim(held.id))) === 1);
    await waitFor('the confirm to wait on the order numbers', async () => (await lockWaiters(api)) >= 1);
    const releasing = api.call('DELETE', `/v1/holds/${held.id}`, { token: api.token('customer', 'buyer-a') });
    [confirm, release] = await Promise.all([confirming, releasing]);
  } finally {
    await unlock();
  }
  expect(confirm.status).toBeGreaterThanOrEqual(400);
  expect(confirm.status).not.toBe(201);
  expect(release.status).toBe(200);
  expect(release.body.hold.status).toBe('released');

  // At once, not 60 s later: the seats are free in Redis and back in the best-available index.
  const best = await hold(api, event.id, 'buyer-b', { tier: 'standard', quantity: 2 });
  expect(best.status).toBe(201);
  expect(await api.rt.redis.exists(k.claim(held.id))).toBe(0);
  expect((await confirmVia(api, best.body.hold.id, 'pay-b')).status).toBe(201);
  await expectInvariants(api.rt.db, event.id);
});

test('when a late payment answers 503 while the expiry job of its hold waits, then the expiry is applied in Redis once the claim is given back and the tickets are sellable at once', async () => {
  const { event } = await newEvent({ holdTtlSeconds: 1, seats: [], ticketTypes: [{ name: 'GA', priceCents: 500, capacity: 2 }] });
  const api = suite.api;
  const tt = event.ticketTypes[0].id as string;
  const k = eventKeys(event.id);
  const held = await holdTickets(api, event.id, 'buyer-a', tt, 2);
  await api.rt.ctx.persister.flush([event.id]);
  await waitUntilExpired(held);

  const unlock = await lockOrderNumbers();
  let confirm: Awaited<ReturnType<typeof confirmVia>>;
  let expired: Awaited<ReturnType<typeof expireHold>>;
  try {
    // The late payment claims the lapsed tickets again, then its batch waits on the order-number row.
    const confirming = confirmVia(api, held.id, 'pay-late');
    await waitFor('the confirm to claim the hold', async () => (await api.rt.redis.exists(k.claim(held.id))) === 1);
    await waitFor('the confirm to wait on the order numbers', async () => (await lockWaiters(api)) >= 1);
    // What the worker's expiry job runs for the hold.
    const expiring = expireHold(api.rt.ctx, held.id);
    [confirm, expired] = await Promise.all([confirming, expiring]);
  } finally {
    await unlock();
  }
  expect(confirm.status).toBeGreaterThanOrEqual(400);
  expect(confirm.status).not.toBe(201);
  expect(expired.kind).toBe('expired');

  const next = await hold(api, event.id, 'buyer-b', { ticketTypeId: tt, quantity: 2 });
  expect(next.status).toBe(201);
  expect((await confirmVia(api, next.body.hold.id, 'pay-b')).status).toBe(201);
  await expectInvariants(api.rt.db, event.id);
});

test('when a lapsed hold is paid late after the buyer held up to the limit again, then the late payment is refused, for seats and for tickets, and nobody owns more than the limit', async () => {
  const { event, seats } = await newEvent({
    holdTtlSeconds: 1, maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 4, 'standard', 1000),
    ticketTypes: [{ name: 'GA', priceCents: 500, capacity: 10 }],
  });
  const api = suite.api;
  const tt = event.ticketTypes[0].id as string;

  // Seats: hold 2, let it lapse, hold 2 more, pay both (the late one last).
  const lapsed = await holdSeats(api, event.id, 'buyer-s', [seats[0]!.id, seats[1]!.id]);
  await waitUntilExpired(lapsed);
  const again = await holdSeats(api, event.id, 'buyer-s', [seats[2]!.id, seats[3]!.id]);
  expect((await confirmVia(api, again.id)).status).toBe(201);
  const late = await confirmVia(api, lapsed.id);
  expect(late.status).toBe(409);
  expect(late.body.error.code).toBe('HOLD_EXPIRED');
  // The seats it would have re-taken are free for others.
  expect((await hold(api, event.id, 'other', { seatIds: [seats[0]!.id, seats[1]!.id] })).status).toBe(201);

  // Tickets: the same, the late one paid first.
  const lapsedGa = await holdTickets(api, event.id, 'buyer-t', tt, 2);
  await waitUntilExpired(lapsedGa);
  const againGa = await holdTickets(api, event.id, 'buyer-t', tt, 2);
  const lateGa = await confirmVia(api, lapsedGa.id);
  expect(lateGa.status).toBe(409);
  expect(lateGa.body.error.code).toBe('HOLD_EXPIRED');
  expect((await confirmVia(api, againGa.id)).status).toBe(201);

  expect(await owned(api, event.id, 'buyer-s')).toBe(2);
  expect(await owned(api, event.id, 'buyer-t')).toBe(2);
  await expectInvariants(api.rt.db, event.id);
});

const limitOf2 = { maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 4, 'standard', 1000) };

test('when reconciliation restores a hold whose leases Redis lost, then it counts against its customer again', async () => {
  const api = suite.api;
  const a = await newEvent(limitOf2);
  const ka = eventKeys(a.event.id);
  const lost = await holdSeats(api, a.event.id, 'buyer-r', [a.seats[0]!.id, a.seats[1]!.id]);
  await api.rt.ctx.persister.flush([a.event.id]);
  await api.rt.redis.del(ka.seat(a.seats[0]!.id), ka.seat(a.seats[1]!.id), ka.customer('buyer-r'));
  const report = await reconcile(api.rt.ctx, rs);
  expect(report.entries.filter((e) => e.eventId === a.event.id && e.kind === 'hold_restored')).toHaveLength(1);
  const overR = await hold(api, a.event.id, 'buyer-r', { seatIds: [a.seats[2]!.id] });
  expect(overR.status).toBe(422);
  expect(overR.body.error.code).toBe('LIMIT_EXCEEDED');
  expect((await confirmVia(api, lost.id)).status).toBe(201);
  await expectInvariants(api.rt.db, a.event.id);
});

test('when priming restores a hold after Redis lost the event, then it counts against its customer', async () => {
  const api = suite.api;
  const b = await newEvent(limitOf2);
  await holdSeats(api, b.event.id, 'buyer-p', [b.seats[0]!.id, b.seats[1]!.id]);
  await api.rt.ctx.persister.flush([b.event.id]);
  await forgetEventInRedis(api, b.event.id);
  const overP = await hold(api, b.event.id, 'buyer-p', { seatIds: [b.seats[2]!.id] });
  expect(overP.status).toBe(422);
  expect(overP.body.error.code).toBe('LIMIT_EXCEEDED');
  await expectInvariants(api.rt.db, b.event.id);
});

test('when a customer\'s bought count in Redis lost an order, then reconciliation restores it from PostgreSQL and the limit holds', async () => {
  const api = suite.api;
  const c = await newEvent(limitOf2);
  const kc = eventKeys(c.event.id);
  const paid = await holdSeats(api, c.event.id, 'buyer-b', [c.seats[0]!.id, c.seats[1]!.id]);
  expect((await confirmVia(api, paid.id)).status).toBe(201);
  await api.rt.redis.hdel(kc.bought, 'buyer-b');
  const report2 = await reconcile(api.rt.ctx, rs);
  expect(report2.entries.filter((e) => e.eventId === c.event.id && e.kind === 'bought_count')).toHaveLength(1);
  expect(await api.rt.redis.hget(kc.bought, 'buyer-b')).toBe('2');
  const overB = await hold(api, c.event.id, 'buyer-b', { seatIds: [c.seats[2]!.id] });
  expect(overB.status).toBe(422);
  // A second run finds the counts right.
  const report3 = await reconcile(api.rt.ctx, rs);
  expect(report3.entries.filter((e) => e.kind === 'bought_count')).toEqual([]);
  await expectInvariants(api.rt.db, c.event.id);
});

test('when a hold is extended while a queued confirm claims it, then the customer is still counted for it until the claim ends', async () => {
  const api = suite.api;
  // A second API whose confirms may wait on a lock for seconds: the claimed hold's confirm queues behind one.
  const slow = await startApi({ DATABASE_URL: api.config.databaseUrl, REDIS_URL: api.config.redisUrl, DATABASE_QUERY_TIMEOUT_MS: '30000' });
  try {
    const { event, seats } = await newEvent({ holdTtlSeconds: 2, maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 6, 'standard', 1000) });
    const k = eventKeys(event.id);
    const blocker = await holdSeats(api, event.id, 'someone', [seats[5]!.id]);
    const claimed = await holdSeats(api, event.id, 'buyer-x', [seats[0]!.id, seats[1]!.id]);
    await api.rt.ctx.persister.flush([event.id]);
    const unlock = await lockOrderNumbers();
    let confirms: Promise<Awaited<ReturnType<typeof confirmVia>>[]>;
    let over: Awaited<ReturnType<TestApi['call']>>;
    try {
      const first = confirmVia(slow, blocker.id);
      await waitFor('the first batch to wait on the order numbers', async () => (await lockWaiters(api)) >= 1);
      const second = confirmVia(slow, claimed.id);
      confirms = Promise.all([first, second]);
      await waitFor('the second confirm to claim its hold', async () => (await api.rt.redis.exists(k.claim(claimed.id))) === 1);
      const extended = await api.call('POST', `/v1/holds/${claimed.id}/extend`, { token: api.token('customer', 'buyer-x') });
      expect(extended.status).toBe(200);
      // Past the extended time, the claim still holds both seats for the buyer's confirm.
      await sleepUntil(extended.body.hold.expiresAt, 400);
      over = await hold(api, event.id, 'buyer-x', { seatIds: [seats[2]!.id, seats[3]!.id] });
    } finally {
      await unlock();
    }
    expect((await confirms).map((r) => r.status)).toEqual([201, 201]);
    expect(over.status).toBe(422);
    expect(await owned(api, event.id, 'buyer-x')).toBe(2);
    await expectInvariants(api.rt.db, event.id);
  } finally {
    await slow.close();
  }
});

test('when a hold is released while reconciliation restores its lost leases, then its seats are not taken again', async () => {
  const api = suite.api;
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 2, 'standard', 1000) });
  const k = eventKeys(event.id);
  const lost = await holdSeats(api, event.id, 'buyer-y', [seats[0]!.id, seats[1]!.id]);
  await api.rt.ctx.persister.flush([event.id]);
  await api.rt.redis.del(k.seat(seats[0]!.id), k.seat(seats[1]!.id));
  const store = api.rt.ctx.store;
  const retake = store.retakeHold.bind(store);
  let releasing: Promise<Awaited<ReturnType<TestApi['call']>>> | undefined;
  store.retakeHold = async (input) => {
    // The buyer's release arrives just before the retake runs.
    if (input.holdId === lost.id && !releasing) {
      releasing = api.call('DELETE', `/v1/holds/${lost.id}`, { token: api.token('customer', 'buyer-y') });
      await sleep(300);
    }
    return retake(input);
  };
  try {
    await reconcile(api.rt.ctx, rs);
  } finally {
    store.retakeHold = retake;
  }
  expect(releasing).toBeDefined();
  const released = await releasing!;
  expect(released.status).toBe(200);
  expect(released.body.hold.status).toBe('released');
  // The released hold owns nothing: another buyer holds both seats.
  expect((await hold(api, event.id, 'buyer-z', { seatIds: [seats[0]!.id, seats[1]!.id] })).status).toBe(201);
  await expectInvariants(api.rt.db, event.id);
});
