// An event with 100,000 seats is created with one bulk INSERT of its seats, not
// 100,000 round trips: every SQL statement sent to PostgreSQL is counted on the way.
import { createEvent } from '@holdfast/domain';
import { dropTestEvent, useTestApi, type SeatSpec, holdPost } from '@holdfast/test-kit';
import { statementsDuring } from './sql-statements';

const { api } = useTestApi();

test('when an event with 100,000 seats is created, then its seats go in with one INSERT and all of them are there', async () => {
  const seats: SeatSpec[] = [];
  for (let s = 0; s < 10; s++)
    for (let r = 1; r <= 100; r++)
      for (let n = 1; n <= 100; n++) seats.push({ section: `S${s}`, row: String(r), number: n, tier: r <= 10 ? 'front' : 'main', priceCents: r <= 10 ? 9000 : 4000 });
  expect(seats).toHaveLength(100_000);

  const { result: event, statements } = await statementsDuring(() =>
    createEvent(api.rt.ctx, {
      name: `bulk-${process.pid}`, startsAt: new Date('2027-06-01T18:00:00Z'), currency: 'USD',
      holdTtlSeconds: 600, maxTicketsPerCustomer: 10, seats, ticketTypes: [{ name: 'Standing', priceCents: 3000, capacity: 5000 }],
    }),
  );
  try {
    expect(event.seatCount).toBe(100_000);
    const seatInserts = statements.filter((t) => /insert\s+into\s+("?public"?\.)?"?seats"?/i.test(t));
    expect(seatInserts).toHaveLength(1);
    // The creation itself is a handful of statements (transaction, event, seats, ticket types, commit);
    const commit = statements.indexOf('COMMIT');
    expect(commit).toBeGreaterThan(0);
    expect(commit + 1).toBeLessThan(12);
    // then its load into Redis (sale state, live holds, the seat catalog for the free-seat index,
    // the waiting lines) and the answer read each table a time or two, however many seats the event has.
    expect(statements.length).toBeLessThan(34);

    const [counts] = await api.rt.db.$queryRaw<{ n: bigint; labels: bigint; front: bigint; available: bigint }[]>`
      SELECT count(*)::bigint AS n, count(DISTINCT label)::bigint AS labels,
             count(*) FILTER (WHERE tier = 'front' AND price_cents = 9000)::bigint AS front,
             count(*) FILTER (WHERE status = 'AVAILABLE')::bigint AS available
      FROM seats WHERE event_id = ${event.id}::uuid`;
    expect(counts).toEqual({ n: 100_000n, labels: 100_000n, front: 10_000n, available: 100_000n });
    const [sample] = await api.rt.db.$queryRaw<{ label: string; section: string; row: string; number: number }[]>`
      SELECT label, section, "row", number FROM seats WHERE event_id = ${event.id}::uuid AND label = 'S7-42-99'`;
    expect(sample).toEqual({ label: 'S7-42-99', section: 'S7', row: '42', number: 99 });

    // And it sells: best available in the cheaper tier of 90,000 seats.
    const held = await holdPost(api, event.id, `bulk-buyer-${process.pid}`, { tier: 'main', quantity: 4 });
    expect(held.status).toBe(201);
    expect(held.body.hold.items.map((i: { label: string }) => i.label)).toEqual(['S0-11-1', 'S0-11-2', 'S0-11-3', 'S0-11-4']);
  } finally {
    await dropTestEvent(api, event.id);
  }
}, 180_000); // 100,000 seats: about 50 s on a loaded machine
