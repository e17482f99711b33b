// Issue 28, point 9: a hold restored by priming after Redis lost its data keeps
// its record too, so it can be extended (and read, released) as before.
import { eventKeys } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, seatGrid, useTestApi, confirmVia, holdSeats, expectInvariants, waitFor } from '@holdfast/test-kit';

// A Redis of its own (the test flushes it). No worker: reconciliation must not be what restores the record.
const { api } = useTestApi({}, { privateRedis: true });

async function persisted(holdId: string) {
  await waitFor('the hold in PostgreSQL', async () => (await api.rt.db.hold.count({ where: { id: holdId } })) === 1, { timeoutMs: 5000, intervalMs: 50 });
}

function extend(holdId: string, customerId: string) {
  return api.call('POST', `/v1/holds/${holdId}/extend`, { token: api.token('customer', customerId) });
}

test('when Redis is flushed and another buyer\'s hold primes the event again, then a restored hold can still be extended', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 300, maxHoldExtensions: 1, seats: seatGrid(['P'], 1, 3) });
  try {
    const hold = await holdSeats(api, event.id, 'p9-buyer-a', [seats[0]!.id]);
    await persisted(hold.id);
    await api.rt.redis.flushall();

    // Another buyer's hold primes the event (the lease of buyer A's hold comes back).
    expect((await api.call('POST', `/v1/events/${event.id}/holds`, {
      token: api.token('customer', 'p9-buyer-b'), body: { seatIds: [seats[1]!.id] },
    })).status).toBe(201);
    expect(await api.rt.redis.get(eventKeys(event.id).seat(seats[0]!.id))).toBe(hold.id);

    const res = await extend(hold.id, 'p9-buyer-a');
    expect(res.status).toBe(200);
    expect(res.body.hold.extensions).toBe(1);
    expect(Date.parse(res.body.hold.expiresAt)).toBeGreaterThan(Date.parse(hold.expiresAt));
    // The lease moved with it, on Redis's clock.
    expect(await api.rt.redis.pexpiretime(eventKeys(event.id).seat(seats[0]!.id))).toBe(Date.parse(res.body.hold.expiresAt));
    expect((await api.call('GET', `/v1/holds/${hold.id}`, { token: api.token('customer', 'p9-buyer-a') })).body.hold.status).toBe('active');

    expect((await confirmVia(api, hold.id)).status).toBe(201);
    await expectInvariants(api.rt.db, event.id);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when Redis is flushed and the extension is the event\'s first request, then it primes the event and extends the hold', async () => {
  const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 300, maxHoldExtensions: 1, seats: seatGrid(['Q'], 1, 2) });
  try {
    const hold = await holdSeats(api, event.id, 'p9-buyer-c', [seats[0]!.id]);
    await persisted(hold.id);
    await api.rt.redis.flushall();

    const res = await extend(hold.id, 'p9-buyer-c');
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.hold.expiresAt)).toBeGreaterThan(Date.parse(hold.expiresAt));
    expect(await api.rt.redis.get(eventKeys(event.id).seat(seats[0]!.id))).toBe(hold.id);
    // The seat stays the hold's: another buyer is refused it.
    const other = await api.call('POST', `/v1/events/${event.id}/holds`, {
      token: api.token('customer', 'p9-buyer-d'), body: { seatIds: [seats[0]!.id] },
    });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('SEATS_UNAVAILABLE');

    expect((await confirmVia(api, hold.id)).status).toBe(201);
    await expectInvariants(api.rt.db, event.id);
  } finally {
    await dropTestEvent(api, event.id);
  }
});
