// Issue 28 (confirms and their claims, the customer's limit, the order number's clock), through
// the real API, PostgreSQL and Redis: a batch whose answer comes late (a proxy holds it back),
// rows locked by another session, a backlog that outlasts a confirm's claim, PostgreSQL's clock
// for the order number, and the per-customer limit fenced in the confirm function. Each test
// ends with the invariant checker.
import pg from 'pg';
import { confirmBatch, type ConfirmBatchItem } from '@holdfast/db';
import { eventKeys } from '@holdfast/hold-store';
import {
  expectInvariants, PgProxy, rid, seatGrid, sleep, useTestApi, waitFor, waitUntilExpired, confirmVia, holdSeats, holdTickets, type TestApi,
} from '@holdfast/test-kit';

type Reply = Awaited<ReturnType<TestApi['call']>>;
type NewEvent = ReturnType<typeof useTestApi>['newEvent'];

/** For waitFor on the batcher's counters: they live in memory, so they are read often. */
const BATCHER = { timeoutMs: 15_000, intervalMs: 5 };

/** A session of the test's own, inside a transaction: what it locks stays locked until COMMIT. */
async function lockSession(api: TestApi): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: api.config.databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  return client;
}

/** A hold in an event of its own whose row is written, for a test session to lock. */
async function blockerHold(api: TestApi, newEvent: NewEvent) {
  const { event, seats } = await newEvent({ seats: seatGrid(['Z'], 1, 1) });
  const hold = await holdSeats(api, event.id, rid('blocker'), [seats[0]!.id]);
  await api.rt.ctx.persister.flush([event.id]);
  return hold;
}

/**
 * Makes the confirms of `holdIds` go in one batch: a blocker's confirm runs first while a test
 * session holds its row, the confirms queue behind it, and the lock is let go once they all
 * wait. `beforeRelease` runs once they are queued. Returns the confirms' answers (promises).
 */
async function inOneBatch(api: TestApi, newEvent: NewEvent, holdIds: string[], beforeRelease: () => void | Promise<void> = () => {}) {
  const batcher = api.rt.ctx.confirms;
  const blocker = await blockerHold(api, newEvent);
  const lock = await lockSession(api);
  try {
    expect((await lock.query('SELECT 1 FROM holds WHERE id = $1 FOR UPDATE', [blocker.id])).rowCount).toBe(1);
    const batches = batcher.stats.batches;
    const blocked = confirmVia(api, blocker.id);
    await waitFor('the blocker\'s batch to run', () => batcher.stats.batches === batches + 1 && batcher.queued === 0, BATCHER);
    const answers = holdIds.map((id) => confirmVia(api, id, `ref-${id}`));
    await waitFor(`all ${holdIds.length} confirms to be queued`, () => batcher.queued >= holdIds.length, BATCHER);
    await beforeRelease();
    await lock.query('COMMIT');
    return { answers, blocker: blocked };
  } finally {
    await lock.end();
  }
}

async function seatHolds(api: TestApi, newEvent: NewEvent, n: number, body: Record<string, unknown> = {}) {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, n), ...body });
  const holds = [];
  for (const [i, s] of seats.entries()) holds.push(await holdSeats(api, event.id, `buyer-${i}-${rid('c')}`, [s.id]));
  await api.rt.ctx.persister.flush([event.id]);
  return { event, seats, holds };
}

async function soldInRedis(api: TestApi, eventId: string, seatIds: string[]): Promise<boolean[]> {
  return Promise.all(seatIds.map(async (id) => (await api.rt.redis.sismember(eventKeys(eventId).sold, id)) === 1));
}

describe('a batch whose answer comes after the query timeout', () => {
  let proxy: PgProxy;
  beforeAll(async () => { proxy = await PgProxy.start(process.env.DATABASE_URL!); });
  const { api, newEvent } = useTestApi(() => ({ DATABASE_URL: proxy.urlFor(process.env.DATABASE_URL!) }));
  afterAll(async () => { await proxy?.close(); });

  test('when a batch of five commits but its answer reaches the API after DATABASE_QUERY_TIMEOUT_MS, then each confirm answers 201 with the order that committed, and Redis has the seats sold', async () => {
    const { event, seats, holds } = await seatHolds(api, newEvent, 5);
    const before = api.rt.ctx.confirms.stats.recovered;
    const { answers, blocker } = await inOneBatch(api, newEvent, holds.map((h) => h.id), () => {
      // The batch's statement reaches PostgreSQL and commits; its answer is held 2.5 s (timeout 1.5 s).
      proxy.delayRepliesTo(holds[2]!.id, 2500, 1);
    });
    const replies: Reply[] = await Promise.all(answers);
    await blocker;
    expect(replies.map((r) => [r.status, r.body.error?.code])).toEqual(Array(5).fill([201, undefined]));
    expect(api.rt.ctx.confirms.stats.recovered).toBeGreaterThan(before);
    for (const [i, h] of holds.entries()) {
      const row = await api.rt.db.order.findUnique({ where: { holdId: h.id } });
      expect(replies[i]!.body.order.id).toBe(row!.id);
      expect(replies[i]!.body.order.paymentReference).toBe(`ref-${h.id}`);
    }
    // finishConfirm ran for each: the seats read sold in Redis, not claimed for 60 s.
    expect(await soldInRedis(api, event.id, seats.map((s) => s.id))).toEqual(Array(5).fill(true));
    await expectInvariants(api.rt.db, event.id);
  }, 60_000);
});

describe('rows locked by another session', () => {
  const { api, newEvent } = useTestApi();

  test('when two of five confirms in one batch have their hold rows locked by another session, then the other three answer 201 at once and the two commit on their retry once the lock goes', async () => {
    const { event, holds } = await seatHolds(api, newEvent, 5);
    const locker = await lockSession(api);
    try {
      await locker.query('SELECT 1 FROM holds WHERE id = ANY($1) FOR UPDATE', [[holds[1]!.id, holds[3]!.id]]);
      const { answers, blocker } = await inOneBatch(api, newEvent, holds.map((h) => h.id));
      const free = await Promise.all([answers[0]!, answers[2]!, answers[4]!]);
      expect(free.map((r) => [r.status, r.body.error?.code])).toEqual(Array(3).fill([201, undefined]));
      await locker.query('COMMIT');
      const locked = await Promise.all([answers[1]!, answers[3]!]);
      expect(locked.map((r) => [r.status, r.body.error?.code])).toEqual(Array(2).fill([201, undefined]));
      await blocker;
    } finally {
      await locker.end();
    }
    expect(await api.rt.db.order.count({ where: { eventId: event.id } })).toBe(5);
    await expectInvariants(api.rt.db, event.id);
  }, 60_000);

  test('when the year\'s order-number row is locked by another session, then confirms wait and retry instead of answering 503, and commit once it goes', async () => {
    const { event, holds } = await seatHolds(api, newEvent, 3);
    const year = (await api.rt.db.$queryRaw<{ y: number }[]>`SELECT extract(year FROM now() AT TIME ZONE 'UTC')::int AS y`)[0]!.y;
    await api.rt.db.$executeRaw`INSERT INTO order_sequences (year, last_value) VALUES (${year}, 0) ON CONFLICT (year) DO NOTHING`;
    const locker = await lockSession(api);
    let replies: Reply[];
    try {
      await locker.query('SELECT 1 FROM order_sequences WHERE year = $1 FOR UPDATE', [year]);
      const answers = holds.map((h) => confirmVia(api, h.id));
      await sleep(800);
      await locker.query('COMMIT');
      replies = await Promise.all(answers);
    } finally {
      await locker.end();
    }
    expect(replies.map((r) => [r.status, r.body.error?.code])).toEqual(Array(3).fill([201, undefined]));
    expect(replies.every((r) => r.body.order.number.startsWith(`HF-${year}-`))).toBe(true);
    await expectInvariants(api.rt.db, event.id);
  }, 60_000);
});

describe('a backlog that outlasts a confirm\'s claim', () => {
  // A 4 s claim, of which 1.5 s may be spent waiting (the rest is the margin for the statement
  // and COMMIT); one confirm per batch, so a queue of blocked confirms is a long wait.
  const { api, newEvent } = useTestApi({ CONFIRM_CLAIM_LEASE_MS: '4000', CONFIRM_BATCH_MAX: '1' });

  test('when a confirm waits in the backlog until its claim lapses and another buyer takes the seat, then it never commits on the lapsed claim: the other buyer\'s paid hold is confirmed', async () => {
    const { event, seats } = await newEvent({ holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 1) });
    const seat = seats[0]!.id;
    const first = await holdSeats(api, event.id, 'first-buyer', [seat]);
    await api.rt.ctx.persister.flush([event.id]);
    // The first buyer's hold lasts 1 s (then only its confirm's claim keeps the seat); later holds 10 minutes.
    const patched = await api.call('PATCH', `/v1/admin/events/${event.id}`, { token: api.token('admin'), body: { holdTtlSeconds: 600 } });
    expect(patched.status).toBe(200);
    // Ten confirms whose hold rows another session keeps locked: each batch of them waits its lock budget.
    const { event: other, seats: otherSeats } = await newEvent({ seats: seatGrid(['Z'], 1, 10) });
    const blockers = [];
    for (const [i, s] of otherSeats.entries()) blockers.push(await holdSeats(api, other.id, `blocked-${i}`, [s.id]));
    await api.rt.ctx.persister.flush([other.id]);
    const locker = await lockSession(api);
    await locker.query('SELECT 1 FROM holds WHERE id = ANY($1) FOR UPDATE', [blockers.map((b) => b.id)]);
    let firstReply: Reply;
    let second: Reply | null = null;
    try {
      const blocked = blockers.map((b) => confirmVia(api, b.id));
      await waitFor('the blocked confirms to be queued', () => api.rt.ctx.confirms.queued >= 9, BATCHER);
      let done = false;

      const firstAnswer = confirmVia(api, first.id).then((r) => { done = true; return r; });
      // The other buyer takes the seat as soon as Redis lets it go (the first buyer's claim lapsed).
      for (let tries = 0; !done && tries < 20;) {
        if ((await api.rt.redis.exists(eventKeys(event.id).seat(seat))) === 0) {
          tries++;
          second = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer', 'second-buyer'), body: { seatIds: [seat] } });
          if (second.status === 201) break;
        }
        await sleep(20);
      }
      firstReply = await firstAnswer;
      await locker.query('COMMIT');
      await Promise.all(blocked);
    } finally {
      await locker.end();
    }
    // The first buyer's claim lapsed (4 s) while its confirm waited behind the blocked ones (about 5 s).
    expect(second?.status).toBe(201);
    if (second?.status === 201) {
      // The seat went to the second buyer after the first claim lapsed: the first confirm must not sell it.
      expect([firstReply.status, firstReply.body.error?.code]).toEqual([409, 'HOLD_EXPIRED']);
      const paid = await confirmVia(api, second.body.hold.id);
      expect([paid.status, paid.body.error?.code]).toEqual([201, undefined]);
    } else {
      expect([firstReply.status, firstReply.body.error?.code]).toEqual([201, undefined]);
    }
    expect(await api.rt.db.order.count({ where: { eventId: event.id } })).toBe(1);
    await expectInvariants(api.rt.db, event.id);
    await expectInvariants(api.rt.db, other.id);
  }, 90_000);
});

describe('the order number\'s clock', () => {
  // A test seam: holdfast.now, set on the API's PostgreSQL sessions, stands in for PostgreSQL's clock.
  const year = 2100 + Math.floor(Math.random() * 800);
  const dbNow = `${year}-12-31T23:59:59.500Z`;
  const url = () => {
    const u = new URL(process.env.DATABASE_URL!);
    u.searchParams.set('options', `-c holdfast.now=${dbNow}`);
    return u.toString();
  };
  const { api, newEvent } = useTestApi(() => ({ DATABASE_URL: url() }));
  afterAll(async () => {
    const cleanup = new pg.Client({ connectionString: process.env.DATABASE_URL! });
    await cleanup.connect();
    await cleanup.query('DELETE FROM order_sequences WHERE year = $1', [year]);
    await cleanup.end();
  });

  test('when PostgreSQL\'s clock says another year than the API host\'s, then the order number\'s year and the order\'s createdAt are PostgreSQL\'s', async () => {
    const { event, holds } = await seatHolds(api, newEvent, 2);
    const replies = await Promise.all(holds.map((h) => confirmVia(api, h.id)));
    expect(replies.map((r) => r.status)).toEqual([201, 201]);
    expect(replies.map((r) => r.body.order.number).sort()).toEqual([`HF-${year}-000001`, `HF-${year}-000002`]);
    expect(replies.map((r) => r.body.order.createdAt)).toEqual([dbNow, dbNow]);
    await expectInvariants(api.rt.db, event.id);
  }, 60_000);
});

describe('the customer\'s limit in PostgreSQL', () => {
  const { api, newEvent } = useTestApi();

  async function ownedBy(eventId: string, customerId: string): Promise<number> {
    const rows = await api.rt.db.$queryRaw<{ n: number }[]>`
      SELECT COALESCE(sum(CASE WHEN i.seat_id IS NOT NULL THEN 1 ELSE i.quantity END), 0)::int AS n
      FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.event_id = ${eventId}::uuid AND o.customer_id = ${customerId}`;
    return rows[0]!.n;
  }

  test('when a buyer holds 2 seats (limit 2), lets them lapse, holds 2 more and pays both, then the late payment is refused and the buyer owns 2', async () => {
    const { event, seats } = await newEvent({ holdTtlSeconds: 1, maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 4) });
    const late = await holdSeats(api, event.id, 'limited', [seats[0]!.id, seats[1]!.id]);
    await waitUntilExpired(late);
    const fresh = await holdSeats(api, event.id, 'limited', [seats[2]!.id, seats[3]!.id]);
    expect((await confirmVia(api, fresh.id)).status).toBe(201);
    const paidLate = await confirmVia(api, late.id);
    // PostgreSQL's fence answers LIMIT_EXCEEDED; once Redis applies the limit to the re-take, the
    // late claim is refused there first (HOLD_EXPIRED). Either way nothing more is sold.
    expect([[422, 'LIMIT_EXCEEDED'], [409, 'HOLD_EXPIRED']]).toContainEqual([paidLate.status, paidLate.body.error?.code]);
    if (paidLate.status === 422) expect(paidLate.body.error.details).toMatchObject({ limit: 2, inUse: 2 });
    expect(await ownedBy(event.id, 'limited')).toBe(2);
    await expectInvariants(api.rt.db, event.id);
  }, 30_000);

  test('when a buyer does the same with general-admission tickets, then the late payment is refused and the buyer owns 2', async () => {
    const { event } = await newEvent({ holdTtlSeconds: 1, maxTicketsPerCustomer: 2, ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10 }] });
    const tt = event.ticketTypes[0].id;
    const late = await holdTickets(api, event.id, 'limited-ga', tt, 2);
    await waitUntilExpired(late);
    const fresh = await holdTickets(api, event.id, 'limited-ga', tt, 2);
    expect((await confirmVia(api, fresh.id)).status).toBe(201);
    const paidLate = await confirmVia(api, late.id);
    expect([[422, 'LIMIT_EXCEEDED'], [409, 'HOLD_EXPIRED']]).toContainEqual([paidLate.status, paidLate.body.error?.code]);
    expect(await ownedBy(event.id, 'limited-ga')).toBe(2);
    await expectInvariants(api.rt.db, event.id);
  }, 30_000);

  test('when confirms that would take a customer past the limit reach PostgreSQL as held (a set of five, and the one-by-one loop), then only those are refused with limit, the others commit', async () => {
    const { event, seats } = await newEvent({ maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 9), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10 }] });
    const tt = event.ticketTypes[0].id;
    // Holds written to PostgreSQL, each within the limit on its own; Redis is passed by (held: true).
    const a1 = await holdSeats(api, event.id, 'cust-a', [seats[0]!.id, seats[1]!.id]);
    await api.call('DELETE', `/v1/holds/${a1.id}`, { token: api.token('customer', 'cust-a') }).then(() => undefined);
    const others = [];
    for (let i = 2; i < 5; i++) others.push(await holdSeats(api, event.id, `cust-${i}`, [seats[i]!.id]));
    const a2 = await holdSeats(api, event.id, 'cust-a', [seats[5]!.id, seats[6]!.id]);
    const gaB1 = await holdTickets(api, event.id, 'cust-b', tt, 1);
    const gaB2 = await holdTickets(api, event.id, 'cust-b', tt, 1);
    await api.rt.ctx.persister.flush([event.id]);
    // a1 was released in Redis; written back as ACTIVE in PostgreSQL it stands for a lapsed hold re-taken.
    await api.rt.db.$executeRaw`UPDATE holds SET status = 'ACTIVE', ended_at = NULL WHERE id = ${a1.id}`;
    const item = (holdId: string): ConfirmBatchItem => ({
      holdId, year: null, held: true, claimUntil: null, provider: 'service', providerEventId: null, reference: rid('ref'),
      amountCents: null, currency: null, auditActor: null, record: null,
    });
    // The set: a2 (2 seats) then a1 (2 more) for cust-a, three other buyers.
    const set = await confirmBatch(api.rt.db, [item(a2.id), ...others.map((h) => item(h.id)), item(a1.id)]);
    expect(set.map((r) => r.kind)).toEqual(['created', 'created', 'created', 'created', 'limit']);
    expect(set[4]!.detail).toEqual({ limit: 2, owned: 2, requested: 2 });
    // The loop (fewer than four): cust-b's 1 + 1 tickets fit, a1 again does not.
    const loop = await confirmBatch(api.rt.db, [item(gaB1.id), item(gaB2.id), item(a1.id)]);
    expect(loop.map((r) => r.kind)).toEqual(['created', 'created', 'limit']);
    expect(await ownedBy(event.id, 'cust-a')).toBe(2);
    expect(await ownedBy(event.id, 'cust-b')).toBe(2);
    await expectInvariants(api.rt.db, event.id);
  }, 30_000);
});
