import { createTestEvent, dropTestEvent, seatGrid, useTestApi } from '@holdfast/test-kit';

const { api } = useTestApi();

test('when a customer holds a seat, then it reads held and the hold is readable', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 3), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 5 }] });
  try {
    const token = api.token('customer', 'c1');
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { seatIds: [seats[0]!.id] } });
    expect(res.status).toBe(201);
    const get = await api.call('GET', `/v1/holds/${res.body.hold.id}`, { token });
    expect(get.status).toBe(200);
    expect(get.body.hold.status).toBe('active');
    const map = await api.call('GET', `/v1/events/${event.id}/seats`);
    expect(map.body.seats.find((s: { id: string }) => s.id === seats[0]!.id).status).toBe('held');
    const ga = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { ticketTypeId: event.ticketTypes[0].id, quantity: 2 } });
    expect(ga.status).toBe(201);
    const ev = await api.call('GET', `/v1/events/${event.id}`);
    expect(ev.body.event.ticketTypes[0].available).toBe(3);
    const best = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { tier: 'standard', quantity: 2 } });
    expect(best.status).toBe(201);
    const rel = await api.call('DELETE', `/v1/holds/${res.body.hold.id}`, { token });
    expect(rel.body.hold.status).toBe('released');
  } finally {
    await dropTestEvent(api, event.id);
  }
});
