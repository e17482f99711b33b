// Issue 15, point 5: after Redis loses its data, priming restores the leases of the holds that
// PostgreSQL still has ACTIVE (remaining time, customer limits) before the event sells again.
import { eventKeys } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, seatGrid, useTestApi, confirmVia, holdSeats, holdTickets, expectInvariants, waitFor } from '@holdfast/test-kit';

// A Redis of its own (the test flushes it). No worker: reconciliation must not be what restores the leases.
const { api } = useTestApi({}, { privateRedis: true });

async function persisted(holdIds: string[]) {
  await waitFor('the holds in PostgreSQL', async () => (await api.rt.db.hold.count({ where: { id: { in: holdIds } } })) === holdIds.length, { timeoutMs: 5000, intervalMs: 50 });
}

test('when Redis is flushed while holds are live, then the next request primes their leases back: their seats, tickets and limits stay theirs', async () => {
  const { event, seats } = await createTestEvent(api, {
    holdTtlSeconds: 300, maxTicketsPerCustomer: 2, seats: seatGrid(['P'], 1, 3), ticketTypes: [{ name: 'GA', priceCents: 700, capacity: 2 }],
  });
  const tt = event.ticketTypes[0].id as string;
  try {
    const seatHold = await holdSeats(api, event.id, 'buyer-a', [seats[0]!.id]);
    const gaHold = await holdTickets(api, event.id, 'buyer-a', tt, 1);
    await persisted([seatHold.id, gaHold.id]);
    await api.rt.redis.flushall();

    const b = api.token('customer', 'buyer-b');
    const seatTaken = await api.call('POST', `/v1/events/${event.id}/holds`, { token: b, body: { seatIds: [seats[0]!.id] } });
    expect(seatTaken.status).toBe(409);
    expect(seatTaken.body.error.code).toBe('SEATS_UNAVAILABLE');
    const ga = await api.call('POST', `/v1/events/${event.id}/holds`, { token: b, body: { ticketTypeId: tt, quantity: 2 } });
    expect(ga.status).toBe(409);
    expect(ga.body.error.code).toBe('SOLD_OUT');
    const overLimit = await api.call('POST', `/v1/events/${event.id}/holds`, {
      token: api.token('customer', 'buyer-a'), body: { seatIds: [seats[1]!.id] },
    });
    expect(overLimit.status).toBe(422);
    expect(overLimit.body.error.code).toBe('LIMIT_EXCEEDED');

    // The restored lease runs out when the hold does, on Redis's clock.
    const ttl = await api.rt.redis.pttl(eventKeys(event.id).seat(seats[0]!.id));
    expect(ttl).toBeGreaterThan(250_000);
    expect(ttl).toBeLessThanOrEqual(300_000);

    expect((await confirmVia(api, seatHold.id)).status).toBe(201);
    expect((await confirmVia(api, gaHold.id)).status).toBe(201);
    await expectInvariants(api.rt.db, event.id);
  } finally {
    await dropTestEvent(api, event.id);
  }
});
