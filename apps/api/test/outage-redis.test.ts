// Redis goes away under the API and comes back empty: hold requests answer 503
// fast while it is away, and afterwards the event is primed again from PostgreSQL.
// The test runs its own redis-server on a spare loopback port; the shared one is never touched.
import { createTestEvent, dropTestEvent, seatGrid, useTestApi, holdPost, waitFor } from '@holdfast/test-kit';

const { api, redis } = useTestApi({}, { privateRedis: true });

test('when Redis dies and comes back empty, then holds answer 503 within 2 seconds meanwhile and work again after, primed from PostgreSQL', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 4), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 5 }] });
  try {
    const tt = event.ticketTypes[0].id;
    const before = await holdPost(api, event.id, 'outage-a', { seatIds: [seats[0]!.id] });
    expect(before.status).toBe(201);
    await api.rt.ctx.persister.flush();

    await redis.kill();
    for (const body of [{ seatIds: [seats[1]!.id] }, { ticketTypeId: tt, quantity: 1 }, { tier: 'standard', quantity: 1 }]) {
      const started = Date.now();
      const res = await holdPost(api, event.id, 'outage-b', body);
      expect(Date.now() - started).toBeLessThan(2000);
      expect({ status: res.status, error: res.body.error }).toEqual({
        status: 503, error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String), details: { dependency: 'Redis' } },
      });
    }
    const seatMap = await api.call('GET', `/v1/events/${event.id}/seats`);
    expect(seatMap.status).toBe(503);
    const ready = await api.call('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.error.details.down).toEqual(['Redis']);
    // The hold's durable row still answers.
    const get = await api.call('GET', `/v1/holds/${before.body.hold.id}`, { token: api.token('customer', 'outage-a') });
    expect(get.status).toBe(200);

    await redis.start();
    const after = await waitFor('a hold answered other than 503', async () => {
      const res = await holdPost(api, event.id, 'outage-b', { seatIds: [seats[1]!.id] });
      return res.status !== 503 && res;
    }, { timeoutMs: 10_000, intervalMs: 100 });
    expect(after.status).toBe(201);
    expect((await api.call('GET', '/readyz')).status).toBe(200);
    // PostgreSQL's numbers are back in Redis: 5 tickets, nothing sold.
    expect((await api.call('GET', `/v1/events/${event.id}`)).body.event.ticketTypes[0].available).toBe(5);
    expect((await holdPost(api, event.id, 'outage-c', { ticketTypeId: tt, quantity: 5 })).status).toBe(201);
    await api.rt.ctx.persister.flush();
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when Redis is down as an event is created, then the event is created all the same and its first hold loads it into Redis', async () => {
  await redis.kill();
  let id = '';
  try {
    const res = await api.call('POST', '/v1/admin/events', {
      token: api.token('admin'),
      body: { name: 'Created in an outage', startsAt: '2027-01-01T19:00:00Z', ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 3 }] },
    });
    expect(res.status).toBe(201);
    id = res.body.event.id;
    expect(res.body.event.ticketTypes[0].available).toBe(3);
    await redis.start();
    const held = await waitFor('a hold answered other than 503', async () => {
      const r = await holdPost(api, id, 'outage-new', { ticketTypeId: res.body.event.ticketTypes[0].id, quantity: 3 });
      return r.status !== 503 && r;
    }, { timeoutMs: 10_000, intervalMs: 100 });
    expect(held.status).toBe(201);
    expect(await api.rt.ctx.store.isPrimed(id)).toBe(true);
    expect((await holdPost(api, id, 'outage-other', { ticketTypeId: res.body.event.ticketTypes[0].id, quantity: 1 })).body.error.code).toBe('SOLD_OUT');
    await api.rt.ctx.persister.flush();
  } finally {
    await redis.start();
    if (id) await dropTestEvent(api, id);
  }
});
