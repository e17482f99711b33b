// Reading events: the Event object and seat map as the contract shapes them, and
// keyset paging that lists every event once, in creation order.
import { HOLD_ID_PATTERN } from '@holdfast/contracts';
import { createTestEvent, dropTestEvent, useTestApi, holdPost } from '@holdfast/test-kit';

const { api } = useTestApi();

test('when an event is created, then it reads back with the contract\'s fields, defaults and seat labels', async () => {
  const res = await api.call('POST', '/v1/admin/events', {
    token: api.token('admin'),
    body: {
      name: 'Shape check', startsAt: '2027-03-04T19:30:00+01:00',
      seats: [{ section: 'Stalls', row: 'K', number: 12, tier: 'premium', priceCents: 12000 }],
      ticketTypes: [{ name: 'Standing', priceCents: 5000, capacity: 500 }],
    },
  });
  expect(res.status).toBe(201);
  const id = res.body.event.id;
  try {
    expect(res.body.event).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Shape check', startsAt: '2027-03-04T18:30:00.000Z', currency: 'USD',
      holdTtlSeconds: 600, maxTicketsPerCustomer: 10, seatCount: 1,
      maxHoldExtensions: 1, maxHoldSeconds: 1800, waitlistOfferSeconds: 1800, salesStatus: 'on_sale', salesStartAt: null, salesEndAt: null, waitingRoom: null,
      ticketTypes: [{ id: expect.any(String), name: 'Standing', priceCents: 5000, capacity: 500, available: 500 }],
    });
    const get = await api.call('GET', `/v1/events/${id}`);
    expect(get.body).toEqual(res.body);
    const seats = await api.call('GET', `/v1/events/${id}/seats`);
    expect(seats.body).toEqual({
      seats: [{ id: expect.any(String), label: 'Stalls-K-12', section: 'Stalls', row: 'K', number: 12, tier: 'premium', priceCents: 12000, status: 'available' }],
    });
    const held = await holdPost(api, id, `shape-${process.pid}`, { ticketTypeId: get.body.event.ticketTypes[0].id, quantity: 3 });
    expect(held.body.hold).toEqual({
      id: expect.stringMatching(HOLD_ID_PATTERN), eventId: id, customerId: `shape-${process.pid}`, status: 'active',
      createdAt: expect.any(String), expiresAt: expect.any(String),
      items: [{ ticketTypeId: get.body.event.ticketTypes[0].id, name: 'Standing', priceCents: 5000, quantity: 3 }],
      totalCents: 15000, currency: 'USD', orderId: null, releasedBy: null, extensions: 0,
    });
    expect(Date.parse(held.body.hold.expiresAt) - Date.parse(held.body.hold.createdAt)).toBe(600_000);
    expect((await api.call('GET', `/v1/events/${id}`)).body.event.ticketTypes[0].available).toBe(497);
  } finally {
    await dropTestEvent(api, id);
  }
});

test('when an event is created, then Redis has it at once: ready, its tickets counted, the first hold without a load', async () => {
  const loads: string[] = [];
  const store = api.rt.ctx.store;
  const prime = store.primeEvent.bind(store);
  const res = await api.call('POST', '/v1/admin/events', {
    token: api.token('admin'),
    body: { name: 'Primed at creation', startsAt: '2027-03-04T19:30:00Z', ticketTypes: [{ name: 'GA', priceCents: 2500, capacity: 40 }] },
  });
  expect(res.status).toBe(201);
  const id: string = res.body.event.id;
  try {
    expect(await store.isPrimed(id)).toBe(true);
    expect(await store.readAvailability(id, [res.body.event.ticketTypes[0].id])).toEqual(new Map([[res.body.event.ticketTypes[0].id, 40]]));
    // From here on, any load of the event from PostgreSQL is seen.
    store.primeEvent = (input) => {
      loads.push(input.eventId);
      return prime(input);
    };
    const held = await holdPost(api, id, `primed-${process.pid}`, { ticketTypeId: res.body.event.ticketTypes[0].id, quantity: 2 });
    expect(held.status).toBe(201);
    expect(loads).toEqual([]);
    expect((await api.call('GET', `/v1/events/${id}`)).body.event.ticketTypes[0].available).toBe(38);
  } finally {
    store.primeEvent = prime;
    await dropTestEvent(api, id);
  }
});

test('when events are listed a page at a time, then each appears once, in creation order, and the last page has nextCursor null', async () => {
  const mine: string[] = [];
  try {
    for (let i = 0; i < 3; i++) mine.push((await createTestEvent(api, { name: `page-${i}` })).event.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10_000; page++) {
      const res: { status: number; body: { events: { id: string }[]; nextCursor: string | null } } =
        await api.call('GET', `/v1/events?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.events.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.events.map((e) => e.id));
      cursor = res.body.nextCursor;
      if (!cursor) break;
    }
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => mine.includes(id))).toEqual(mine);
  } finally {
    for (const id of mine) await dropTestEvent(api, id);
  }
});

test('when a list cursor is forged or mangled, then 400 VALIDATION_FAILED naming cursor, never a 500', async () => {
  const forged = [
    '2026-01-01T00:00:00.000Z|abc', // a well-formed time with an id that is not a UUID
    'nonsense|7b0c3d7e-6b1f-4c55-9a53-0d7e9b5d2f11',
    '2026-01-01T00:00:00.000Z',
  ].map((c) => Buffer.from(c).toString('base64url'));
  for (const cursor of [...forged, '!!!']) {
    const res = await api.call('GET', `/v1/events?cursor=${encodeURIComponent(cursor)}`);
    expect({ cursor, status: res.status, code: res.body.error?.code }).toEqual({ cursor, status: 400, code: 'VALIDATION_FAILED' });
    expect(res.body.error.details.fields).toEqual([{ path: 'cursor', message: expect.any(String) }]);
  }
});

test('when an event sets waitlistOfferSeconds, then it reads back, a patch changes it, and values outside 1..172800 are 400 naming the field', async () => {
  const admin = api.token('admin');
  const res = await api.call('POST', '/v1/admin/events', {
    token: admin,
    body: { name: 'Offer time', startsAt: '2027-03-04T19:30:00Z', waitlistOfferSeconds: 172_800, ticketTypes: [{ name: 'GA', priceCents: 100, capacity: 1 }] },
  });
  expect(res.status).toBe(201);
  const id: string = res.body.event.id;
  try {
    expect(res.body.event.waitlistOfferSeconds).toBe(172_800);
    const patched = await api.call('PATCH', `/v1/admin/events/${id}`, { token: admin, body: { waitlistOfferSeconds: 60 } });
    expect({ status: patched.status, seconds: patched.body.event.waitlistOfferSeconds }).toEqual({ status: 200, seconds: 60 });
    for (const bad of [0, 172_801, 1.5]) {
      const refused = await api.call('PATCH', `/v1/admin/events/${id}`, { token: admin, body: { waitlistOfferSeconds: bad } });
      expect({ status: refused.status, code: refused.body.error.code, path: refused.body.error.details.fields[0].path })
        .toEqual({ status: 400, code: 'VALIDATION_FAILED', path: 'waitlistOfferSeconds' });
    }
    const created = await api.call('POST', '/v1/admin/events', { token: admin, body: { name: 'Too long', startsAt: '2027-03-04T19:30:00Z', waitlistOfferSeconds: 172_801 } });
    expect(created.status).toBe(400);
    expect((await api.call('GET', `/v1/events/${id}`)).body.event.waitlistOfferSeconds).toBe(60);
  } finally {
    await dropTestEvent(api, id);
  }
});
