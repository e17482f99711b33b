// Group commit (issue 12): confirms that arrive while a batch runs go together in one
// transaction. These tests make batches form for certain: a test connection locks a
// "blocker" hold's row, its confirm's batch waits on that lock, the confirms under test
// queue behind it, and the lock is let go once they all wait; the next batch holds them all.
import pg from 'pg';
import { loadConfig } from '@holdfast/config';
import { insertHoldsIfMissing, type ConfirmBatchItem } from '@holdfast/db';
import {
  applyStripePayment, claimHoldLease, ConfirmBatcher, confirmBatchSettings, confirmHold, finishConfirm, orderFromRow, type ConfirmBatchStats,
} from '@holdfast/domain';
import { eventKeys } from '@holdfast/hold-store';
import { expectInvariants, seatGrid, useTestApi, type TestApi, confirmVia, deliverEvent, holdSeats, holdTickets, paymentIntentEvent, paymentsOfHold, rid, waitFor, waitUntilExpired } from '@holdfast/test-kit';

// Declared before useTestApi's own afterAll (which closes the API), so it runs first.
const years: number[] = [];
afterAll(async () => {
  for (const year of years) await suite.api.rt.db.$executeRaw`DELETE FROM order_sequences WHERE year = ${year}`;
});
// A statement timeout of 6 s gives a batch's lock waits a 2 s budget (a third of it): the time the
// blocker's batch waits while the confirms under test are sent and queued, on a loaded machine too.
const suite = useTestApi({ DATABASE_QUERY_TIMEOUT_MS: '6000' });
const { newEvent } = suite;

/** For waitFor on the batcher's counters: they live in memory, so they are read often. */
const BATCHER = { timeoutMs: 15_000, intervalMs: 5 };

/**
 * A fresh year for order numbers, with no sequence row and no orders (removed again after the test), never
 * one another test of this file took: two tests on one year would number from the same row and collide.
 */
async function freshYear(api: TestApi): Promise<number> {
  for (;;) {
    const year = 5000 + Math.floor(Math.random() * 4000);
    if (years.includes(year)) continue;
    const taken = await api.rt.db.$queryRaw<unknown[]>`
      SELECT 1 FROM order_sequences WHERE year = ${year} UNION ALL SELECT 1 FROM orders WHERE number LIKE ${`HF-${year}-%`} LIMIT 1`;
    if (taken.length > 0) continue;
    years.push(year);
    return year;
  }
}

/** A hold in an event of its own whose row is written, to be locked by the test. */
async function blockerHold(api: TestApi, newEv: typeof newEvent) {
  const { event, seats } = await newEv({ seats: seatGrid(['Z'], 1, 1) });
  const hold = await holdSeats(api, event.id, rid('blocker'), [seats[0]!.id]);
  await api.rt.ctx.persister.flush([event.id]);
  return hold;
}

/**
 * Runs `first` (a confirm of `blocker`) while the blocker's row is locked, so its batch
 * waits; then starts `rest`, waits until every one of them is queued for the next batch,
 * and lets the lock go. Returns the answers and the batch statistics of the run.
 */
async function gathered<T>(api: TestApi, blockerId: string, first: () => Promise<unknown>, rest: (() => Promise<T>)[]) {
  const batcher = api.rt.ctx.confirms;
  const lock = new pg.Client({ connectionString: api.config.databaseUrl });
  await lock.connect();
  try {
    await lock.query('BEGIN');
    const locked = await lock.query('SELECT 1 FROM holds WHERE id = $1 FOR UPDATE', [blockerId]);
    expect(locked.rowCount).toBe(1);
    const before: ConfirmBatchStats = { ...batcher.stats };
    const firstDone = first();
    await waitFor('the blocker\'s batch to run', () => batcher.stats.batches === before.batches + 1 && batcher.queued === 0, BATCHER);
    const answers = rest.map((f) => f());
    await waitFor(`all ${rest.length} confirms to be queued`, () => batcher.queued === rest.length, BATCHER);
    await lock.query('COMMIT');
    await firstDone;
    const results = await Promise.all(answers);
    return { results, batches: batcher.stats.batches - before.batches, largest: batcher.stats.largest };
  } finally {
    await lock.end();
  }
}

test('when confirms arrive while a batch runs, then they go together in one batch: the first order of a new year and the rest numbered 000001.. without gaps, in commit order', async () => {
  const api = suite.api;
  const blocker = await blockerHold(api, newEvent);
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 12) });
  const holds = await Promise.all(seats.map((s, i) => holdSeats(api, event.id, `buyer-${i}`, [s.id])));
  const blockerYear = await freshYear(api);
  const year = await freshYear(api);
  const run = await gathered(
    api, blocker.id,
    () => confirmHold(api.rt.ctx, { holdId: blocker.id, payment: { provider: 'service', reference: rid('ref') } }, { orderYear: blockerYear }),
    holds.map((h) => () => confirmHold(api.rt.ctx, { holdId: h.id, payment: { provider: 'service', reference: rid('ref') } }, { orderYear: year })),
  );
  // Two batches: the blocker's alone, then all twelve in one.
  expect(run.batches).toBe(2);
  expect(run.largest).toBeGreaterThanOrEqual(12);
  expect(run.results.every((r) => r.created)).toBe(true);
  const numbers = run.results.map((r) => r.order.number).sort();
  expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => `HF-${year}-${String(i + 1).padStart(6, '0')}`));
  // The batch metric saw a batch of more than one.
  const metrics = await api.call('GET', '/metrics');
  const grouped = /holdfast_confirm_batch_size_count (\d+)/.exec(String(metrics.body));
  const single = /holdfast_confirm_batch_size_bucket\{le="1"\} (\d+)/.exec(String(metrics.body));
  expect(Number(grouped?.[1])).toBeGreaterThan(Number(single?.[1]));
  await expectInvariants(api.rt.db, event.id);
});

test('when batches follow each other in one year, then numbers are gap-free and follow commit order', async () => {
  const api = suite.api;
  const blocker = await blockerHold(api, newEvent);
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 9) });
  const holds = await Promise.all(seats.map((s, i) => holdSeats(api, event.id, `buyer-${i}`, [s.id])));
  const year = await freshYear(api);
  const confirm = (holdId: string) => () =>
    confirmHold(api.rt.ctx, { holdId, payment: { provider: 'service', reference: rid('ref') } }, { orderYear: year });
  const run = await gathered(api, blocker.id, confirm(blocker.id), holds.map((h) => confirm(h.id)))
    .then(async (r) => ({ ...r, blockerOrder: await api.rt.db.order.findUnique({ where: { holdId: blocker.id } }) }));
  expect(run.blockerOrder!.number).toBe(`HF-${year}-000001`);
  const rows = await api.rt.db.$queryRaw<{ number: string; xid: string }[]>`
    SELECT number, xmin::text AS xid FROM orders WHERE number LIKE ${`HF-${year}-%`} ORDER BY number`;
  expect(rows.map((r) => r.number)).toEqual(Array.from({ length: 10 }, (_, i) => `HF-${year}-${String(i + 1).padStart(6, '0')}`));
  // The blocker's batch committed first and has the first number; the nine after it share one transaction.
  expect(new Set(rows.slice(1).map((r) => r.xid)).size).toBe(1);
  expect(rows[0]!.xid).not.toBe(rows[1]!.xid);
  expect(run.results).toHaveLength(9);
  await expectInvariants(api.rt.db, event.id);
});

test('when duplicates of the same confirms and webhooks share a batch, then each hold gets one order, each Stripe event one payment', async () => {
  const api = suite.api;
  const blocker = await blockerHold(api, newEvent);
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 7) });
  const holds = await Promise.all(seats.map((s, i) => holdSeats(api, event.id, `buyer-${i}`, [s.id])));
  const byService = holds.slice(0, 4);
  const byStripe = holds.slice(4);
  const stripeEvents = byStripe.map((h) => paymentIntentEvent({ holdId: h.id, amount: h.totalCents, currency: 'usd' }));
  const calls: (() => ReturnType<TestApi["call"]>)[] = [
    ...byService.flatMap((h) => [0, 1, 2].map(() => () => confirmVia(api, h.id, `ref-${h.id}`))),
    ...stripeEvents.flatMap((e) => [0, 1, 2].map(() => () => deliverEvent(api, e))),
  ];
  const run = await gathered(api, blocker.id, () => confirmVia(api, blocker.id), calls);
  expect(run.largest).toBeGreaterThanOrEqual(calls.length);
  const service = run.results.slice(0, 12);
  for (let i = 0; i < byService.length; i++) {
    const answers = service.slice(i * 3, i * 3 + 3);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.order.id)).size).toBe(1);
  }
  expect(run.results.slice(12).map((r) => r.status)).toEqual(Array(9).fill(200));
  for (const [i, h] of byStripe.entries()) {
    const payments = await paymentsOfHold(api, h.id);
    expect(payments.map((p) => [p.providerEventId, p.status])).toEqual([[stripeEvents[i]!.id, 'APPLIED']]);
  }
  const orders = await api.rt.db.order.findMany({ where: { eventId: event.id } });
  expect(orders.map((o) => o.holdId).sort()).toEqual(holds.map((h) => h.id).sort());
  await expectInvariants(api.rt.db, event.id);
});

test('when one batch holds a fence breach, a late payment, a released hold and a lost lease, then each is answered as alone and the others commit', async () => {
  const api = suite.api;
  const blocker = await blockerHold(api, newEvent);
  const { event, seats } = await newEvent({ holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 6) });
  const { event: gaEvent } = await newEvent({ ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 3 }] });
  const tt = gaEvent.ticketTypes[0];
  // GA: Redis forgets the first hold of 2; a second buyer holds 2 more. PostgreSQL has room for one of them.
  const gaFirst = await holdTickets(api, gaEvent.id, 'ga-1', tt.id, 2);
  const k = eventKeys(gaEvent.id);
  await api.rt.redis.del(k.ready, k.ticketType(tt.id), k.ticketTypeHolds(tt.id), k.ticketTypeExpiry(tt.id));
  const gaSecond = await holdTickets(api, gaEvent.id, 'ga-2', tt.id, 2);
  // A late payment: expired, its seat still free. A released hold. A lost lease: expired, its seat re-held.
  const late = await holdSeats(api, event.id, 'late', [seats[0]!.id]);
  const released = await holdSeats(api, event.id, 'released', [seats[1]!.id]);
  const lost = await holdSeats(api, event.id, 'lost', [seats[2]!.id]);
  const fine = await Promise.all([3, 4, 5].map((i) => holdSeats(api, event.id, `fine-${i}`, [seats[i]!.id])));
  expect((await api.call('DELETE', `/v1/holds/${released.id}`, { token: api.token('customer', 'released') })).status).toBe(200);
  await waitUntilExpired(lost);
  await holdSeats(api, event.id, 'taker', [seats[2]!.id]);
  // The fine holds expired too (1 s): their seats are still free, so they are late payments as well.
  const releasedEvent = paymentIntentEvent({ holdId: released.id, amount: released.totalCents, currency: 'usd' });
  const calls = [
    () => confirmVia(api, gaFirst.id), () => confirmVia(api, gaSecond.id), () => confirmVia(api, late.id),
    () => deliverEvent(api, releasedEvent), () => confirmVia(api, lost.id), ...fine.map((h) => () => confirmVia(api, h.id)),
  ];
  const run = await gathered(api, blocker.id, () => confirmVia(api, blocker.id), calls);
  expect(run.largest).toBeGreaterThanOrEqual(calls.length);
  const [a, b, lateRes, releasedRes, lostRes, ...fineRes] = run.results;
  expect([a!.status, b!.status].sort()).toEqual([201, 409]);
  expect((a!.status === 409 ? a! : b!).body.error.code).toBe('HOLD_EXPIRED');
  expect((await api.rt.db.ticketType.findUnique({ where: { id: tt.id } }))!.sold).toBe(2);
  expect(lateRes!.status).toBe(201);
  expect(releasedRes!.status).toBe(200);
  expect((await paymentsOfHold(api, released.id)).map((p) => p.status)).toEqual(['REFUND_REQUIRED']);
  expect([lostRes!.status, lostRes!.body.error?.code]).toEqual([409, 'HOLD_EXPIRED']);
  expect(fineRes.map((r) => r.status)).toEqual([201, 201, 201]);
  const refused = await api.rt.db.hold.findUnique({ where: { id: (a!.status === 409 ? gaFirst : gaSecond).id } });
  expect(refused!.status).toBe('EXPIRED');
  await expectInvariants(api.rt.db, event.id);
  await expectInvariants(api.rt.db, gaEvent.id);
});

test('when a hold\'s row stays locked past the lock timeout, then its confirm steps aside, the others of its batch commit, and it goes through once the lock is gone', async () => {
  const api = suite.api;
  const blocker = await blockerHold(api, newEvent);
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 3) });
  const holds = await Promise.all(seats.map((s, i) => holdSeats(api, event.id, `buyer-${i}`, [s.id])));
  await api.rt.ctx.persister.flush([event.id]);
  const [stuck, ...others] = holds;
  const lock = new pg.Client({ connectionString: api.config.databaseUrl });
  await lock.connect();
  try {
    await lock.query('BEGIN');
    await lock.query('SELECT 1 FROM holds WHERE id = $1 FOR UPDATE', [stuck!.id]);
    const answeredAt: Record<string, number> = {};
    const timed = (id: string) => () => confirmVia(api, id).then((r) => {
      answeredAt[id] = Date.now();
      if (id === others[others.length - 1]!.id) void lock.query('COMMIT');
      return r;
    });
    const run = await gathered(api, blocker.id, () => confirmVia(api, blocker.id), [stuck!, ...others].map((h) => timed(h.id)));
    expect(run.results.map((r) => r.status)).toEqual([201, 201, 201]);
    // The others were answered first (their batch committed without the stuck one), the stuck one after its retry.
    for (const h of others) expect(answeredAt[h.id]!).toBeLessThan(answeredAt[stuck!.id]!);
    expect(await api.rt.db.order.count({ where: { eventId: event.id } })).toBe(3);
    await expectInvariants(api.rt.db, event.id);
  } finally {
    await lock.end();
  }
});

test('when the outbox drain and a confirm batch insert the same new holds at once, then neither waits on the other in a cycle', async () => {
  const api = suite.api;
  const { event } = await newEvent({ seats: seatGrid(['D'], 1, 1) });
  const connect = async () => {
    const c = new pg.Client({ connectionString: api.config.databaseUrl });
    await c.connect();
    return c;
  };
  const [blocker, batch, watcher] = await Promise.all([connect(), connect(), connect()]);
  const waiting = (pid: number) => waitFor(`connection ${pid} to wait for a lock`, async () =>
    (await watcher.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [pid])).rowCount === 1, BATCHER);
  const batchPid = (await batch.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  try {
    // Each round: two new holds A < B that PostgreSQL does not have yet. A third transaction
    // inserts A and holds it; the batch (B, then A in its order) and the drain (A, then B) both
    // come to wait for A; the third lets go. Inserting in two orders, one of them held B while
    // waiting for A and the other held A while waiting for B: a deadlock, about every other round.
    for (let round = 0; round < 6; round++) {
      const [a, b] = [rid('hld'), rid('hld')].sort() as [string, string];
      const now = new Date();
      const row = (id: string) => ({
        id, eventId: event.id, customerId: `dl-${round}`, createdAt: now, expiresAt: new Date(now.getTime() + 600_000),
        items: [{ seatId: null, ticketTypeId: null, label: 'x', priceCents: 100, quantity: 1 }], totalCents: 100, currency: 'USD',
      });
      const record = (id: string) => ({ ...row(id), createdAt: now.toISOString(), expiresAt: row(id).expiresAt.toISOString() });
      const confirmOf = (id: string) => ({
        holdId: id, year: 2026, held: false, claimUntil: null, provider: 'service', providerEventId: null, reference: `dl-${id}`,
        amountCents: null, currency: null, auditActor: null, record: record(id),
      });
      await blocker.query('BEGIN');
      await blocker.query(`INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
        VALUES ($1, $2, 'blocker', 'ACTIVE', now(), now(), '[]', 0, 'USD')`, [a, event.id]);
      const batchDone = batch.query('SELECT idx, kind FROM holdfast_confirm_batch($1::jsonb)', [JSON.stringify([confirmOf(b), confirmOf(a)])])
        .then((r) => r.rows.map((x: { kind: string }) => x.kind), (err: Error) => err);
      await waiting(batchPid);
      const drainDone = insertHoldsIfMissing(api.rt.db, [row(a), row(b)]).catch((err: Error) => err);
      await waitFor('the drain to wait for a lock', async () =>
        (await watcher.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1 AND query LIKE '%INSERT INTO holds%unnest%'", [batchPid])).rowCount === 1, BATCHER);
      await blocker.query('ROLLBACK');
      const [kinds, drained] = await Promise.all([batchDone, drainDone]);
      expect({ round, kinds, drained: drained instanceof Error ? drained.message : 'ok' })
        .toEqual({ round, kinds: ['expired', 'expired'], drained: 'ok' });
      const rows = await api.rt.db.$queryRaw<{ id: string; status: string }[]>`SELECT id, status::text AS status FROM holds WHERE id IN (${a}, ${b}) ORDER BY id`;
      expect(rows).toEqual([{ id: a, status: 'EXPIRED' }, { id: b, status: 'EXPIRED' }]);
    }
  } finally {
    await Promise.all([blocker.end(), batch.end(), watcher.end()]);
  }
});

test('when two batches are in flight on one GA ticket type that Redis oversold, then the second commits while the first waits, and the fence, the seats and the numbers hold across both', async () => {
  const api = suite.api;
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 4), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 14 }] });
  const tt = event.ticketTypes[0];
  const year = await freshYear(api);
  // The first batch's confirm: a GA hold whose row is written, then locked by the test.
  const blocker = await holdTickets(api, event.id, 'ga-blocker', tt.id, 1);
  await api.rt.ctx.persister.flush([event.id]);
  // Redis sells all 14 tickets; PostgreSQL then has room for 7 of them: only its fence decides.
  const ga = [];
  for (let i = 0; i < 13; i++) ga.push(await holdTickets(api, event.id, `ga-${i}`, tt.id, 1));
  await api.rt.db.$executeRaw`UPDATE ticket_types SET capacity = 7 WHERE id = ${tt.id}::uuid`;
  const seated = await Promise.all(seats.map((s, i) => holdSeats(api, event.id, `seat-${i}`, [s.id])));
  const batcher = new ConfirmBatcher(api.rt.db, confirmBatchSettings({ inFlight: 2, maxBatch: 8 }));
  const ctx = { ...api.rt.ctx, confirms: batcher };
  const confirmOf = (holdId: string) =>
    confirmHold(ctx, { holdId, payment: { provider: 'service', reference: rid('ref') } }, { orderYear: year });
  const lock = new pg.Client({ connectionString: api.config.databaseUrl });
  await lock.connect();
  try {
    await lock.query('BEGIN');
    expect((await lock.query('SELECT 1 FROM holds WHERE id = $1 FOR UPDATE', [blocker.id])).rowCount).toBe(1);
    let blockerSettled = false;
    const first = confirmOf(blocker.id).then((r) => r, (e: unknown) => e).finally(() => { blockerSettled = true; });
    await waitFor('the first batch to run', () => batcher.runningBatches === 1 && batcher.stats.batches === 1, BATCHER);
    const rest = await Promise.allSettled([...ga, ...seated].map((h) => confirmOf(h.id)));
    // Every other confirm was answered in batches that ran beside the first, still waiting (on a
    // loaded machine its lock budget may run out: it then steps aside and waits again, unanswered).
    expect(blockerSettled).toBe(false);
    expect(batcher.stats.batches).toBeGreaterThanOrEqual(2);
    await lock.query('COMMIT');
    const blockerResult = await first;
    const gaResults = [blockerResult, ...rest.slice(0, ga.length).map((r) => (r.status === 'fulfilled' ? r.value : r.reason))];
    const created = gaResults.filter((r) => (r as { created?: boolean }).created === true);
    const refused = gaResults.filter((r) => (r as { code?: string }).code === 'HOLD_EXPIRED');
    expect([created.length, refused.length]).toEqual([7, 7]);
    expect(rest.slice(ga.length).map((r) => r.status === 'fulfilled' && r.value.created)).toEqual(seats.map(() => true));
    expect((await api.rt.db.ticketType.findUnique({ where: { id: tt.id } }))!.sold).toBe(7);
    const orders = await api.rt.db.order.findMany({ where: { eventId: event.id }, select: { number: true } });
    expect(orders.map((o) => o.number).sort()).toEqual(Array.from({ length: 11 }, (_, i) => `HF-${year}-${String(i + 1).padStart(6, '0')}`));
    await expectInvariants(api.rt.db, event.id);
  } finally {
    await lock.query('ROLLBACK').catch(() => undefined);
    await lock.end();
    batcher.stop();
  }
});

test('when a Stripe payment arrives through the webhook use-case in a batch of a new year, then it gets its order and a number of that year', async () => {
  const api = suite.api;
  const blocker = await blockerHold(api, newEvent);
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 3) });
  const holds = await Promise.all(seats.map((s, i) => holdSeats(api, event.id, `buyer-${i}`, [s.id])));
  const year = await freshYear(api);
  const run = await gathered(api, blocker.id, () => confirmVia(api, blocker.id), holds.map((h) => () => applyStripePayment(api.rt.ctx, {
    providerEventId: rid('evt'), holdId: h.id, reference: rid('pi'), amountCents: h.totalCents, currency: 'usd',
  }, { orderYear: year })));
  const numbers = run.results.map((r) => (r.kind === 'confirmed' ? r.order.number : r.kind)).sort();
  expect(numbers).toEqual([1, 2, 3].map((n) => `HF-${year}-00000${n}`));
  await expectInvariants(api.rt.db, event.id);
});

describe('when the confirm backlog is full', () => {
  const { api: small, newEvent: newSmallEvent } = useTestApi({ CONFIRM_MAX_WAITING: '2' });

  test('then a confirm and a Stripe delivery are refused at once with 503 OVERLOADED and Retry-After, and succeed when retried later', async () => {
    const blocker = await blockerHold(small, newSmallEvent);
    const { event, seats } = await newSmallEvent({ seats: seatGrid(['A'], 1, 4) });
    const holds = await Promise.all(seats.map((s, i) => holdSeats(small, event.id, `buyer-${i}`, [s.id])));
    const batcher = small.rt.ctx.confirms;
    const lock = new pg.Client({ connectionString: small.config.databaseUrl });
    await lock.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('SELECT 1 FROM holds WHERE id = $1 FOR UPDATE', [blocker.id]);
      const blocked = confirmVia(small, blocker.id);
      await waitFor('the blocker\'s batch to run', () => batcher.runningBatches === 1 && batcher.waiting === 0, BATCHER);
      const waiting = [confirmVia(small, holds[0]!.id), confirmVia(small, holds[1]!.id)];
      await waitFor('two confirms to wait', () => batcher.queued === 2, BATCHER);
      const refused = await confirmVia(small, holds[2]!.id);
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('OVERLOADED');
      expect(refused.body.error.details).toEqual({ retryAfterSeconds: 1 });
      expect(refused.headers.get('retry-after')).toBe('1');
      const stripe = paymentIntentEvent({ holdId: holds[3]!.id, amount: holds[3]!.totalCents, currency: 'usd' });
      const delivery = await deliverEvent(small, stripe);
      expect([delivery.status, delivery.body.error?.code]).toEqual([503, 'OVERLOADED']);
      // Nothing was written for either.
      expect(await small.rt.db.order.count({ where: { holdId: { in: [holds[2]!.id, holds[3]!.id] } } })).toBe(0);
      expect(await small.rt.db.payment.count({ where: { providerEventId: stripe.id } })).toBe(0);
      await lock.query('COMMIT');
      expect((await blocked).status).toBe(201);
      expect((await Promise.all(waiting)).map((r) => r.status)).toEqual([201, 201]);
      // Retried after the backlog drained: both go through.
      expect((await confirmVia(small, holds[2]!.id)).status).toBe(201);
      expect((await deliverEvent(small, stripe)).status).toBe(200);
      expect((await paymentsOfHold(small, holds[3]!.id)).map((p) => p.status)).toEqual(['APPLIED']);
      await expectInvariants(small.rt.db, event.id);
    } finally {
      await lock.end();
    }
  });
});

test('when confirms run with no other confirm about, then each goes at once in a batch of its own', async () => {
  const api = suite.api;
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 3) });
  const batcher = api.rt.ctx.confirms;
  for (const [i, s] of seats.entries()) {
    const hold = await holdSeats(api, event.id, `solo-${i}`, [s.id]);
    const before = { ...batcher.stats };
    expect((await confirmVia(api, hold.id)).status).toBe(201);
    expect([batcher.stats.batches - before.batches, batcher.stats.confirms - before.confirms]).toEqual([1, 1]);
  }
  await expectInvariants(api.rt.db, event.id);
});

test('when a confirm reaches an idle batcher while confirms admitted with it still take their claims, then it waits for them and they go in one batch', async () => {
  const api = suite.api;
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 3) });
  const batcher = api.rt.ctx.confirms;
  const holds = [];
  for (const [i, s] of seats.entries()) holds.push(await holdSeats(api, event.id, `sibling-${i}`, [s.id]));
  const claims = [];
  for (const h of holds) claims.push(await claimHoldLease(api.rt.ctx, h.id));
  const items = claims.map((claim, i): ConfirmBatchItem => ({
    holdId: claim.hold.id, year: null, held: claim.held, claimUntil: claim.until, provider: 'service', providerEventId: null,
    reference: `sibling-pay-${i}`, amountCents: null, currency: null, auditActor: null, record: claim.record,
  }));
  const before = { ...batcher.stats };
  // All three admitted (as confirms are when their request comes in), the first one's claim done.
  const tickets = items.map(() => batcher.admit());
  const first = batcher.run(items[0]!, tickets[0]!);
  expect([batcher.queued, batcher.stats.batches - before.batches]).toEqual([1, 0]);
  // The other two's claims done: the three go together.
  const rest = [batcher.run(items[1]!, tickets[1]!), batcher.run(items[2]!, tickets[2]!)];
  const results = await Promise.all([first, ...rest]);
  for (const t of tickets) batcher.leave(t);
  expect(results.map((r) => r.kind)).toEqual(['created', 'created', 'created']);
  expect([batcher.stats.batches - before.batches, batcher.stats.confirms - before.confirms, batcher.stats.largest >= 3]).toEqual([1, 3, true]);
  for (const [i, claim] of claims.entries()) {
    await finishConfirm(api.rt.ctx, claim, { kind: 'created', order: orderFromRow(results[i]!.order!), row: claim.hold });
  }
  await expectInvariants(api.rt.db, event.id);
});

test('when a confirm reaches an idle batcher and a confirm admitted with it gives up before its claim is done, then it goes without waiting for it', async () => {
  const api = suite.api;
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1) });
  const batcher = api.rt.ctx.confirms;
  const hold = await holdSeats(api, event.id, 'sibling-alone', [seats[0]!.id]);
  const claim = await claimHoldLease(api.rt.ctx, hold.id);
  const item: ConfirmBatchItem = {
    holdId: claim.hold.id, year: null, held: claim.held, claimUntil: claim.until, provider: 'service', providerEventId: null,
    reference: 'sibling-alone-pay', amountCents: null, currency: null, auditActor: null, record: claim.record,
  };
  const before = { ...batcher.stats };
  const [mine, theirs] = [batcher.admit(), batcher.admit()];
  const answer = batcher.run(item, mine);
  expect(batcher.queued).toBe(1);
  // The other confirm's claim failed (its hold was not found, say): it leaves, and this one goes now.
  batcher.leave(theirs);
  expect([batcher.queued, batcher.stats.batches - before.batches]).toEqual([0, 1]);
  expect((await answer).kind).toBe('created');
  batcher.leave(mine);
  await finishConfirm(api.rt.ctx, claim, { kind: 'created', order: orderFromRow((await answer).order!), row: claim.hold });
  await expectInvariants(api.rt.db, event.id);
});

test('when a confirm batch setting is not valid, then the configuration is refused with one line naming it; unset, the defaults hold', () => {
  for (const [name, value] of [
    ['CONFIRM_BATCH_MAX', '0'], ['CONFIRM_BATCH_WAIT_MS', '-1'], ['CONFIRM_BATCH_IN_FLIGHT', '0'], ['CONFIRM_MAX_WAITING', 'many'],
  ] as const) {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name} `));
  }
  expect(loadConfig({})).toMatchObject({ confirmBatchMax: 32, confirmBatchWaitMs: 0, confirmBatchInFlight: 1, confirmMaxWaiting: 2000 });
  expect(loadConfig({ CONFIRM_BATCH_IN_FLIGHT: '2' }).confirmBatchInFlight).toBe(2);
  const ctx = suite.api.rt.ctx;
  expect(ctx.confirms.settings).toMatchObject({
    maxBatch: suite.api.config.confirmBatchMax, maxWaiting: suite.api.config.confirmMaxWaiting, inFlight: suite.api.config.confirmBatchInFlight,
  });
});
