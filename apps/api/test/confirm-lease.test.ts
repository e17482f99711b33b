// Issue 15, point 4: a confirm takes the hold's lease first, on Redis's clock, so a seat is never
// handed to another buyer while a confirm that started in time can still commit.
import pg from 'pg';
import { expectInvariants, isolatedDatabaseUrl, seatGrid, useTestApi, confirmVia, holdSeats, holdTickets, sleepUntil } from '@holdfast/test-kit';

// These confirms wait on a lock for over a second on purpose: a statement budget above the
// request default (DATABASE_QUERY_TIMEOUT_MS, 1.5 s), or the wait itself would answer 503.
// The year's order-number row is locked here, so the suite has a database of its own: every
// other suite's confirms would wait on that row (and answer 503 past their 1.5 s).
const suite = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('lease'), DATABASE_QUERY_TIMEOUT_MS: '30000' });
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

test('when a confirm starts just before expiresAt and waits past it, then nobody else can hold the seat and the confirm commits', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 2, seats: seatGrid(['A'], 1, 1, 'standard', 1000) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-a', [seats[0]!.id]);
  const release = await lockOrderNumbers();
  let confirmA: ReturnType<typeof confirmVia>;
  let other: Awaited<ReturnType<typeof suite.api.call>>;
  try {
    await sleepUntil(hold.expiresAt, -400);
    confirmA = confirmVia(suite.api, hold.id, 'pay-a');
    // Well past expiresAt (Redis's clock would have dropped the seat key by now) while A still waits.
    await sleepUntil(hold.expiresAt, 1200);
    other = await suite.api.call('POST', `/v1/events/${event.id}/holds`, {
      token: suite.api.token('customer', 'buyer-b'), body: { seatIds: [seats[0]!.id] },
    });
  } finally {
    await release();
  }
  expect(other.status).toBe(409);
  const a = await confirmA!;
  expect(a.status).toBe(201);
  expect(a.body.order.paymentReference).toBe('pay-a');
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when a GA confirm starts just before expiresAt and waits past it, then its tickets are not sold twice in Redis', async () => {
  const { event } = await newEvent({ holdTtlSeconds: 2, seats: [], ticketTypes: [{ name: 'GA', priceCents: 500, capacity: 2 }] });
  const tt = event.ticketTypes[0].id as string;
  const hold = await holdTickets(suite.api, event.id, 'buyer-a', tt, 2);
  const release = await lockOrderNumbers();
  let confirmA: ReturnType<typeof confirmVia>;
  let other: Awaited<ReturnType<typeof suite.api.call>>;
  try {
    await sleepUntil(hold.expiresAt, -400);
    confirmA = confirmVia(suite.api, hold.id, 'pay-ga');
    await sleepUntil(hold.expiresAt, 1200);
    other = await suite.api.call('POST', `/v1/events/${event.id}/holds`, {
      token: suite.api.token('customer', 'buyer-b'), body: { ticketTypeId: tt, quantity: 1 },
    });
  } finally {
    await release();
  }
  expect(other.status).toBe(409);
  expect((await confirmA!).status).toBe(201);
  await expectInvariants(suite.api.rt.db, event.id);
});
