// Issue 28, point 4: a confirm that does not commit gives its claim back (and a release or
// expiry it held off is applied then).
import pg from 'pg';
import { eventKeys } from '@holdfast/hold-store';
import { confirmVia, expectInvariants, holdSeats, isolatedDatabaseUrl, seatGrid, useTestApi, waitFor, type TestApi } from '@holdfast/test-kit';

// Its own database (the year's order-number row is locked here) and its own Redis. Statements
// keep the default 1.5 s budget, so a confirm waiting on a locked row answers 503.
const suite = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('claims') }, { privateRedis: true });
const { newEvent } = suite;

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
