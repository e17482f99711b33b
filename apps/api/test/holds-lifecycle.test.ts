// A hold's life: taken, read before PostgreSQL has it, released by its owner or
// run out at expiresAt; best available's choice of seats; the per-customer rate limit.
import { confirmVia, createTestEvent, dropTestEvent, seatGrid, useTestApi, type SeatSpec, expectPersisted, forgetEventInRedis, holdPost, holdRowIds, seatIdsOf, seatOwners, seatStatuses, sleepUntil, tally, ticketsAvailable } from '@holdfast/test-kit';
import { randomUUID } from 'node:crypto';
import { eventKeys } from '@holdfast/hold-store';

const { api } = useTestApi();

const run = `${process.pid}-${Date.now().toString(36)}`;
const customer = (name: string) => `${name}-${run}`;

describe('expiry', () => {
  test('when a hold reaches expiresAt, then its seat and tickets are free for others and the hold reads expired', async () => {
    const { event, seats } = await createTestEvent(api, {
      holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 3), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 3 }],
    });
    try {
      const tt = event.ticketTypes[0].id;
      const seat = seats[1]!;
      const a = customer('early');
      const seatHold = await holdPost(api, event.id, a, { seatIds: [seat.id] });
      const gaHold = await holdPost(api, event.id, a, { ticketTypeId: tt, quantity: 3 });
      expect([seatHold.status, gaHold.status]).toEqual([201, 201]);
      expect(Date.parse(seatHold.body.hold.expiresAt) - Date.parse(seatHold.body.hold.createdAt)).toBe(1000);
      expect(await ticketsAvailable(api, event.id)).toBe(0);
      const b = customer('late');
      expect((await holdPost(api, event.id, b, { seatIds: [seat.id] })).body.error.code).toBe('SEATS_UNAVAILABLE');
      expect((await holdPost(api, event.id, b, { ticketTypeId: tt, quantity: 1 })).body.error.code).toBe('SOLD_OUT');

      await sleepUntil(gaHold.body.hold.expiresAt, 150);
      expect(await ticketsAvailable(api, event.id)).toBe(3);
      expect((await seatStatuses(api, event.id)).get(seat.id)).toBe('available');
      for (const id of [seatHold.body.hold.id, gaHold.body.hold.id]) {
        const get = await api.call('GET', `/v1/holds/${id}`, { token: api.token('customer', a) });
        expect(get.status).toBe(200);
        expect(get.body.hold.status).toBe('expired');
      }
      const seatAgain = await holdPost(api, event.id, b, { seatIds: [seat.id] });
      const gaAgain = await holdPost(api, event.id, b, { ticketTypeId: tt, quantity: 3 });
      expect([seatAgain.status, gaAgain.status]).toEqual([201, 201]);
      expect((await seatOwners(api, event.id, [seat.id])).get(seat.id)).toBe(seatAgain.body.hold.id);
      expect(await ticketsAvailable(api, event.id)).toBe(0);
      await expectPersisted(api, event.id, [seatHold, gaHold, seatAgain, gaAgain].map((r) => r.body.hold.id));
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when a customer\'s holds expire, then they no longer count against the per-customer limit', async () => {
    const { event } = await createTestEvent(api, {
      holdTtlSeconds: 1, maxTicketsPerCustomer: 2, ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10 }],
    });
    try {
      const tt = event.ticketTypes[0].id;
      const c = customer('limit');
      const first = await holdPost(api, event.id, c, { ticketTypeId: tt, quantity: 2 });
      expect(first.status).toBe(201);
      const over = await holdPost(api, event.id, c, { ticketTypeId: tt, quantity: 1 });
      expect(over.status).toBe(422);
      expect(over.body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 2, inUse: 2 } });
      await sleepUntil(first.body.hold.expiresAt, 150);
      expect((await holdPost(api, event.id, c, { ticketTypeId: tt, quantity: 2 })).status).toBe(201);
    } finally {
      await dropTestEvent(api, event.id);
    }
  });
});

describe('per-customer limit', () => {
  /** The customer's holds hash: its summary field ('#', "sum:earliest"), when there, must match its entries. */
  async function expectSummaryTrue(eventId: string, customerId: string): Promise<string | null> {
    const fields = await api.rt.redis.hgetall(eventKeys(eventId).customer(customerId));
    const { '#': summary, ...entries } = fields;
    if (summary === undefined) return null;
    const parsed = Object.values(entries).map((v) => v.split(':').map(Number) as [number, number]);
    const [sum, earliest] = summary.split(':').map(Number);
    expect(sum).toBe(parsed.reduce((n, [q]) => n + q, 0));
    expect(earliest).toBeLessThanOrEqual(Math.min(...parsed.map(([, exp]) => exp)));
    return summary;
  }

  test('when a customer\'s holds are taken, released, confirmed and run out in turn, then the limit counts exactly the tickets still in use', async () => {
    const { event, seats } = await createTestEvent(api, {
      holdTtlSeconds: 2, maxTicketsPerCustomer: 5, seats: seatGrid(['A'], 1, 4), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 20 }],
    });
    try {
      const tt = event.ticketTypes[0].id;
      const c = customer('counted');
      const over = async (quantity: number, inUse: number) => {
        const r = await holdPost(api, event.id, c, { ticketTypeId: tt, quantity });
        expect(r.status).toBe(422);
        expect(r.body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 5, inUse } });
      };
      const seatHold = await holdPost(api, event.id, c, { seatIds: [seats[0]!.id, seats[1]!.id] });
      const gaHold = await holdPost(api, event.id, c, { ticketTypeId: tt, quantity: 2 });
      expect([seatHold.status, gaHold.status]).toEqual([201, 201]);
      expect(await expectSummaryTrue(event.id, c)).toBe(`4:${Date.parse(seatHold.body.hold.expiresAt)}`);
      await over(2, 4);

      // Released: its seats no longer count (the summary is dropped, then rebuilt by the next hold).
      expect((await api.call('DELETE', `/v1/holds/${seatHold.body.hold.id}`, { token: api.token('customer', c) })).status).toBe(200);
      expect(await expectSummaryTrue(event.id, c)).toBeNull();
      const third = await holdPost(api, event.id, c, { ticketTypeId: tt, quantity: 3 });
      expect(third.status).toBe(201);
      expect(await expectSummaryTrue(event.id, c)).toBe(`5:${Date.parse(gaHold.body.hold.expiresAt)}`);
      await over(1, 5);

      // Confirmed: its tickets count as bought instead of held.
      expect((await confirmVia(api, gaHold.body.hold.id)).status).toBe(201);
      await expectSummaryTrue(event.id, c);
      await over(1, 5);

      // Run out: the third hold's tickets come back; the bought ones still count.
      await sleepUntil(third.body.hold.expiresAt, 150);
      const last = await holdPost(api, event.id, c, { ticketTypeId: tt, quantity: 3 });
      expect(last.status).toBe(201);
      expect(await expectSummaryTrue(event.id, c)).toBe(`3:${Date.parse(last.body.hold.expiresAt)}`);
      await over(1, 5);
      await expectPersisted(api, event.id, [seatHold, gaHold, third, last].map((r) => r.body.hold.id));
    } finally {
      await dropTestEvent(api, event.id);
    }
  });
});

describe('release', () => {
  test('when the owner releases a seat hold, then it reads released by the customer and the seat is free at once', async () => {
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 4) });
    try {
      const owner = customer('owner');
      const held = await holdPost(api, event.id, owner, { seatIds: [seats[0]!.id, seats[1]!.id] });
      expect(held.status).toBe(201);
      const rel = await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', owner) });
      expect(rel.status).toBe(200);
      expect(rel.body.hold).toMatchObject({ id: held.body.hold.id, status: 'released', releasedBy: 'customer', orderId: null });
      expect(rel.body.hold.items).toEqual(held.body.hold.items);
      const map = await seatStatuses(api, event.id);
      expect([map.get(seats[0]!.id), map.get(seats[1]!.id)]).toEqual(['available', 'available']);
      expect([...(await seatOwners(api, event.id, [seats[0]!.id, seats[1]!.id])).values()]).toEqual([null, null]);
      const other = await holdPost(api, event.id, customer('next'), { seatIds: [seats[1]!.id] });
      expect(other.status).toBe(201);
      const get = await api.call('GET', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', owner) });
      expect(get.body.hold).toMatchObject({ status: 'released', releasedBy: 'customer' });
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when the owner releases a ticket hold, then the tickets are available at once and count no more against the limit', async () => {
    const { event } = await createTestEvent(api, {
      maxTicketsPerCustomer: 4, ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 4 }],
    });
    try {
      const tt = event.ticketTypes[0].id;
      const owner = customer('ga-owner');
      const held = await holdPost(api, event.id, owner, { ticketTypeId: tt, quantity: 4 });
      expect(held.status).toBe(201);
      expect(await ticketsAvailable(api, event.id)).toBe(0);
      const rel = await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', owner) });
      expect(rel.status).toBe(200);
      expect(rel.body.hold).toMatchObject({ status: 'released', releasedBy: 'customer' });
      expect(await ticketsAvailable(api, event.id)).toBe(4);
      expect((await holdPost(api, event.id, owner, { ticketTypeId: tt, quantity: 4 })).status).toBe(201);
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when a stranger releases a hold, then it answers 404 HOLD_NOT_FOUND and the hold stays active', async () => {
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
    try {
      const owner = customer('mine');
      const held = await holdPost(api, event.id, owner, { seatIds: [seats[0]!.id] });
      const rel = await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', customer('stranger')) });
      expect(rel.status).toBe(404);
      expect(rel.body.error.code).toBe('HOLD_NOT_FOUND');
      const unknown = await api.call('DELETE', `/v1/holds/${held.body.hold.id.slice(0, -4)}beef`, { token: api.token('customer', owner) });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: { code: 'HOLD_NOT_FOUND', message: rel.body.error.message } });
      const peek = await api.call('GET', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', customer('stranger')) });
      expect(peek.status).toBe(404);
      expect(peek.body.error.code).toBe('HOLD_NOT_FOUND');
      const get = await api.call('GET', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', owner) });
      expect(get.body.hold.status).toBe('active');
      expect((await seatOwners(api, event.id, [seats[0]!.id])).get(seats[0]!.id)).toBe(held.body.hold.id);
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when the owner releases a hold twice, then the second answers 200 with the hold as it is', async () => {
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
    try {
      const owner = customer('twice');
      const held = await holdPost(api, event.id, owner, { seatIds: [seats[0]!.id] });
      const token = api.token('customer', owner);
      const first = await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token });
      // Someone else takes the seat in between: the second release must not free it.
      const taker = await holdPost(api, event.id, customer('taker'), { seatIds: [seats[0]!.id] });
      expect(taker.status).toBe(201);
      const second = await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token });
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect((await seatOwners(api, event.id, [seats[0]!.id])).get(seats[0]!.id)).toBe(taker.body.hold.id);
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when two releases of one hold race, then both answer 200 released and the seat is freed once', async () => {
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
    try {
      const owner = customer('race');
      const held = await holdPost(api, event.id, owner, { seatIds: [seats[0]!.id] });
      const token = api.token('customer', owner);
      const replies = await Promise.all(Array.from({ length: 8 }, () => api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token })));
      for (const r of replies) expect(r.body.hold).toMatchObject({ status: 'released', releasedBy: 'customer' });
      expect(tally(replies)).toEqual({ '200': 8 });
      expect((await seatStatuses(api, event.id)).get(seats[0]!.id)).toBe('available');
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when the owner releases a hold that has expired, then it answers 200 with status expired and frees nothing of others', async () => {
    const { event, seats } = await createTestEvent(api, { holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 2) });
    try {
      const owner = customer('too-late');
      const held = await holdPost(api, event.id, owner, { seatIds: [seats[0]!.id] });
      await sleepUntil(held.body.hold.expiresAt, 150);
      const taker = await holdPost(api, event.id, customer('after'), { seatIds: [seats[0]!.id] });
      expect(taker.status).toBe(201);
      const rel = await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', owner) });
      expect(rel.status).toBe(200);
      expect(rel.body.hold).toMatchObject({ id: held.body.hold.id, status: 'expired', releasedBy: null });
      expect((await seatOwners(api, event.id, [seats[0]!.id])).get(seats[0]!.id)).toBe(taker.body.hold.id);
      const again = await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', owner) });
      expect(again.status).toBe(200);
      expect(again.body.hold.status).toBe('expired');
    } finally {
      await dropTestEvent(api, event.id);
    }
  });
});

describe('reading a hold before PostgreSQL has it', () => {
  test('when the outbox has not been drained yet, then GET and DELETE of a new hold still work', async () => {
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 3) });
    // Hold back the background writer (only it; PostgreSQL and Redis stay real) to pin the moment.
    const notify = jest.spyOn(api.rt.ctx.persister, 'notify').mockImplementation(() => undefined);
    try {
      const owner = customer('fresh');
      const held = await holdPost(api, event.id, owner, { seatIds: [seats[0]!.id] });
      expect(held.status).toBe(201);
      const other = await holdPost(api, event.id, owner, { seatIds: [seats[1]!.id] });
      expect(await holdRowIds(api, event.id)).toEqual([]);
      for (const token of [api.token('customer', owner), api.token('service'), api.token('admin')]) {
        const get = await api.call('GET', `/v1/holds/${held.body.hold.id}`, { token });
        expect(get.status).toBe(200);
        expect(get.body.hold).toEqual(held.body.hold);
      }
      const stranger = await api.call('GET', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', customer('nosy')) });
      expect(stranger.status).toBe(404);
      expect(await holdRowIds(api, event.id)).toEqual([]);
      // Releasing writes the row itself, from the Redis record.
      const rel = await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', owner) });
      expect(rel.status).toBe(200);
      expect(rel.body.hold).toMatchObject({ status: 'released', createdAt: held.body.hold.createdAt, expiresAt: held.body.hold.expiresAt });
      expect(await holdRowIds(api, event.id)).toEqual([held.body.hold.id]);
      notify.mockRestore();
      await api.rt.ctx.persister.flush([event.id]);
      expect(await holdRowIds(api, event.id)).toEqual([held.body.hold.id, other.body.hold.id].sort());
      // Draining did not overwrite the released row.
      const get = await api.call('GET', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', owner) });
      expect(get.body.hold.status).toBe('released');
      // A hold read from its PostgreSQL row is the same object the 201 answered.
      const persisted = await api.call('GET', `/v1/holds/${other.body.hold.id}`, { token: api.token('customer', owner) });
      expect(persisted.body.hold).toEqual(other.body.hold);
    } finally {
      notify.mockRestore();
      await dropTestEvent(api, event.id);
    }
  });
});

describe('after Redis has forgotten an event', () => {
  test('when an event is used again, then sold seats, sold tickets and each customer\'s purchases are loaded from PostgreSQL', async () => {
    const { event, seats } = await createTestEvent(api, {
      maxTicketsPerCustomer: 5, seats: seatGrid(['A'], 1, 4, 'std', 3000), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10 }],
    });
    try {
      const tt = event.ticketTypes[0].id;
      const byLabel = new Map(seats.map((s) => [s.label, s.id]));
      const soldSeat = byLabel.get('A-1-1')!;
      const buyer = customer('bought-before');
      // What a confirmed order leaves in PostgreSQL: one seat and 3 tickets for this buyer.
      const orderId = randomUUID();
      const db = api.rt.db;
      await db.$executeRaw`INSERT INTO orders (id, number, event_id, customer_id, hold_id, total_cents, currency, payment_reference)
        VALUES (${orderId}::uuid, ${`HT-2026-${orderId.slice(0, 8)}`}, ${event.id}::uuid, ${buyer}, ${`hold-of-${orderId}`}, 6000, 'USD', 'pi_test')`;
      await db.$executeRaw`INSERT INTO order_items (id, order_id, seat_id, ticket_type_id, label, tier, price_cents, quantity, position) VALUES
        (${randomUUID()}::uuid, ${orderId}::uuid, ${soldSeat}::uuid, NULL, 'A-1-1', 'std', 3000, 1, 0),
        (${randomUUID()}::uuid, ${orderId}::uuid, NULL, ${tt}::uuid, 'GA', NULL, 1000, 3, 1)`;
      await db.$executeRaw`UPDATE seats SET status = 'SOLD', order_id = ${orderId}::uuid WHERE id = ${soldSeat}::uuid`;
      await db.$executeRaw`UPDATE ticket_types SET sold = 3 WHERE id = ${tt}::uuid`;
      await forgetEventInRedis(api, event.id);

      expect(await ticketsAvailable(api, event.id)).toBe(7);
      const map = await seatStatuses(api, event.id);
      expect(seats.map((s) => map.get(s.id))).toEqual(['sold', 'available', 'available', 'available']);
      const taken = await holdPost(api, event.id, customer('someone'), { seatIds: [soldSeat] });
      expect(taken.body.error).toMatchObject({ code: 'SEATS_UNAVAILABLE', details: { seatIds: [soldSeat] } });
      // The buyer has 4 of 5 already: 2 more would pass the limit, 1 does not.
      const over = await holdPost(api, event.id, buyer, { ticketTypeId: tt, quantity: 2 });
      expect(over.body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 5, inUse: 4 } });
      expect((await holdPost(api, event.id, buyer, { ticketTypeId: tt, quantity: 1 })).status).toBe(201);
      const best = await holdPost(api, event.id, customer('best'), { tier: 'std', quantity: 3 });
      expect(best.body.hold.items.map((i: { label: string }) => i.label)).toEqual(['A-1-2', 'A-1-3', 'A-1-4']);
      expect((await holdPost(api, event.id, customer('ga-rest'), { ticketTypeId: tt, quantity: 5 })).status).toBe(201);
      const soldOut = await holdPost(api, event.id, customer('ga-late'), { ticketTypeId: tt, quantity: 2 });
      expect(soldOut.body.error).toMatchObject({ code: 'SOLD_OUT', details: { available: 1 } });
    } finally {
      await dropTestEvent(api, event.id);
    }
  });
});

describe('best available', () => {
  const seat = (section: string, row: string, number: number, priceCents: number): SeatSpec =>
    ({ section, row, number, tier: 'main', priceCents });
  const labels = (hold: { items: { label: string }[] }) => hold.items.map((i) => i.label).sort();

  test('when a cheaper selection is not side by side, then the lowest total wins over adjacency', async () => {
    const { event } = await createTestEvent(api, {
      seats: [seat('A', '1', 1, 8000), seat('A', '1', 2, 8000), seat('B', '1', 1, 5000), seat('B', '1', 5, 5000), seat('B', '1', 3, 9000)],
    });
    try {
      const res = await holdPost(api, event.id, customer('cheap'), { tier: 'main', quantity: 2 });
      expect(res.status).toBe(201);
      expect(labels(res.body.hold)).toEqual(['B-1-1', 'B-1-5']);
      expect(res.body.hold.totalCents).toBe(10000);
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when several selections cost the same, then seats side by side in one row are preferred', async () => {
    const { event } = await createTestEvent(api, {
      seats: [
        seat('A', '1', 1, 5000), seat('A', '1', 3, 5000), seat('A', '1', 5, 5000), // same price, gaps between
        seat('A', '2', 1, 5000), seat('A', '3', 1, 5000), // same number, different rows
        seat('C', '9', 7, 5000), seat('C', '9', 8, 5000), seat('C', '9', 9, 5000),
      ],
    });
    try {
      const first = await holdPost(api, event.id, customer('pair1'), { tier: 'main', quantity: 3 });
      expect(first.status).toBe(201);
      expect(labels(first.body.hold)).toEqual(['C-9-7', 'C-9-8', 'C-9-9']);
      // No three in a row are left: the cheapest three, whatever their places.
      const second = await holdPost(api, event.id, customer('pair2'), { tier: 'main', quantity: 3 });
      expect(second.status).toBe(201);
      expect(second.body.hold.totalCents).toBe(15000);
      const third = await holdPost(api, event.id, customer('pair3'), { tier: 'main', quantity: 3 });
      expect(third.status).toBe(409);
      expect(third.body.error).toMatchObject({ code: 'SOLD_OUT', details: { available: 2 } });
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when a side-by-side pair mixes prices to the same lowest total, then it is preferred over a scattered pair', async () => {
    const { event } = await createTestEvent(api, {
      seats: [seat('B', '1', 1, 4000), seat('B', '1', 2, 6000), seat('A', '2', 9, 6000), seat('A', '2', 1, 9000)],
    });
    try {
      const res = await holdPost(api, event.id, customer('mixed'), { tier: 'main', quantity: 2 });
      expect(res.status).toBe(201);
      expect(labels(res.body.hold)).toEqual(['B-1-1', 'B-1-2']);
      expect(res.body.hold.totalCents).toBe(10000);
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when the best seats are held or the tier is unknown, then the next best are taken or the request is refused', async () => {
    const { event, seats } = await createTestEvent(api, {
      seats: [seat('A', '1', 1, 3000), seat('A', '1', 2, 3000), seat('A', '1', 3, 3000), seat('A', '1', 4, 7000)],
    });
    try {
      const byLabel = new Map(seats.map((s) => [s.label, s.id]));
      expect((await holdPost(api, event.id, customer('blocker'), { seatIds: [byLabel.get('A-1-2')!] })).status).toBe(201);
      const res = await holdPost(api, event.id, customer('after-block'), { tier: 'main', quantity: 2 });
      expect(res.status).toBe(201);
      expect(labels(res.body.hold)).toEqual(['A-1-1', 'A-1-3']);
      const sold = await holdPost(api, event.id, customer('after-block2'), { tier: 'main', quantity: 2 });
      expect(sold.body.error).toMatchObject({ code: 'SOLD_OUT', details: { available: 1 } });
      const unknown = await holdPost(api, event.id, customer('after-block3'), { tier: 'balcony', quantity: 1 });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.code).toBe('VALIDATION_FAILED');
    } finally {
      await dropTestEvent(api, event.id);
    }
  });
});

describe('rate limit', () => {
  const { api: limited } = useTestApi({ HOLD_RATE_LIMIT_PER_MINUTE: '3' });

  test('when a customer makes a 4th hold request within a minute, then it answers 429 RATE_LIMITED with Retry-After and holds nothing', async () => {
    const { event, seats } = await createTestEvent(limited, { seats: seatGrid(['A'], 1, 6) });
    try {
      const c = customer('hasty');
      const replies = [];
      for (let i = 0; i < 3; i++) replies.push(await holdPost(limited, event.id, c, { seatIds: [seats[i]!.id] }));
      expect(tally(replies)).toEqual({ '201': 3 });
      const fourth = await holdPost(limited, event.id, c, { seatIds: [seats[3]!.id] });
      expect(fourth.status).toBe(429);
      expect(fourth.body.error.code).toBe('RATE_LIMITED');
      expect(fourth.headers.get('content-type')).toMatch(/^application\/json/);
      const retryAfter = Number(fourth.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect((await seatStatuses(limited, event.id)).get(seats[3]!.id)).toBe('available');
      // Another buyer (say, behind the same proxy) is not held back.
      const patient = await holdPost(limited, event.id, customer('patient'), { seatIds: [seats[3]!.id] });
      expect(patient.status).toBe(201);
      await expectPersisted(limited, event.id, [...replies, patient].map((r) => r.body.hold.id));
    } finally {
      await dropTestEvent(limited, event.id);
    }
  });

  test('when a customer sends 10 hold requests at once with a limit of 3, then exactly 3 are served', async () => {
    const { event, seats } = await createTestEvent(limited, { seats: seatGrid(['A'], 1, 10) });
    try {
      const c = customer('burst');
      const replies = await Promise.all(seats.map((s) => holdPost(limited, event.id, c, { seatIds: [s.id] })));
      expect(tally(replies)).toEqual({ '201': 3, '429 RATE_LIMITED': 7 });
      for (const r of replies.filter((x) => x.status === 429)) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await dropTestEvent(limited, event.id);
    }
  });
});

test('when holds are taken, then every seat id in a 201 reply is a seat of the event', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A', 'B'], 2, 3, 'std', 4000) });
  try {
    const res = await holdPost(api, event.id, customer('any'), { tier: 'std', quantity: 3 });
    expect(res.status).toBe(201);
    const ids = new Set(seats.map((s) => s.id));
    for (const id of seatIdsOf(res.body.hold)) expect(ids.has(id)).toBe(true);
    expect(labels3(res.body.hold)).toEqual(['A-1-1', 'A-1-2', 'A-1-3']);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

const labels3 = (hold: { items: { label: string }[] }) => hold.items.map((i) => i.label);
