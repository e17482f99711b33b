import { HOLD_ID_PATTERN, holdIdOf } from '@holdfast/contracts';
import { confirmHold } from '@holdfast/domain';
import { eventKeys } from '@holdfast/hold-store';
import { expectInvariants, seatGrid, useTestApi, confirmVia, holdSeats, holdTickets, ordersOfHold, paymentsOfHold, rid, waitFor, waitUntilExpired } from '@holdfast/test-kit';

const suite = useTestApi();
const { newEvent } = suite;

const NUMBER = /^HF-(\d{4})-(\d{6,})$/;

test('when a service confirms an active seat hold, then 201 with a numbered order, the seats read sold and the hold confirmed', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 4, 'standard', 4200) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id, seats[1]!.id]);

  const res = await confirmVia(suite.api, hold.id, 'capture-123');
  expect(res.status).toBe(201);
  const order = res.body.order;
  expect(order).toMatchObject({
    eventId: event.id, customerId: 'buyer-1', holdId: hold.id, status: 'confirmed',
    totalCents: 8400, currency: 'USD', paymentReference: 'capture-123',
  });
  expect(order.number).toMatch(NUMBER);
  expect(order.number.slice(3, 7)).toBe(String(new Date().getUTCFullYear()));
  expect(order.items).toEqual([
    { seatId: seats[0]!.id, label: 'A-1-1', tier: 'standard', priceCents: 4200, quantity: 1 },
    { seatId: seats[1]!.id, label: 'A-1-2', tier: 'standard', priceCents: 4200, quantity: 1 },
  ]);

  const map = await suite.api.call('GET', `/v1/events/${event.id}/seats`);
  const status = new Map(map.body.seats.map((s: { id: string; status: string }) => [s.id, s.status]));
  expect([status.get(seats[0]!.id), status.get(seats[1]!.id), status.get(seats[2]!.id)]).toEqual(['sold', 'sold', 'available']);
  const read = await suite.api.call('GET', `/v1/holds/${hold.id}`, { token: suite.api.token('customer', 'buyer-1') });
  expect(read.body.hold).toMatchObject({ status: 'confirmed', orderId: order.id });

  // Another buyer cannot hold a sold seat.
  const other = await suite.api.call('POST', `/v1/events/${event.id}/holds`, { token: suite.api.token('customer', 'buyer-2'), body: { seatIds: [seats[0]!.id] } });
  expect(other.status).toBe(409);
  expect(other.body.error.code).toBe('SEATS_UNAVAILABLE');

  const payments = await paymentsOfHold(suite.api, hold.id);
  expect(payments).toHaveLength(1);
  expect(payments[0]).toMatchObject({ provider: 'service', status: 'APPLIED', reference: 'capture-123', orderId: order.id, amountCents: 8400 });
  const metrics = await fetch(`${suite.api.url}/metrics`).then((r) => r.text());
  expect(Number(/^holdfast_orders_confirmed_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when the same hold is confirmed again, then 200 with the same order and nothing new is written', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 2) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const first = await confirmVia(suite.api, hold.id, 'ref-1');
  const again = await confirmVia(suite.api, hold.id, 'ref-2');
  const admin = await suite.api.call('POST', `/v1/holds/${hold.id}/confirm`, { token: suite.api.token('admin'), body: { paymentReference: 'ref-3' } });
  expect([first.status, again.status, admin.status]).toEqual([201, 200, 200]);
  expect(again.body.order).toEqual(first.body.order);
  expect(admin.body.order).toEqual(first.body.order);
  expect(await paymentsOfHold(suite.api, hold.id)).toHaveLength(1);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when 12 confirms of one hold arrive at once, then one answers 201, the rest 200, all with the same order', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 3) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id, seats[2]!.id]);
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => confirmVia(suite.api, hold.id, `ref-${i}`)));
  const statuses = results.map((r) => r.status).sort();
  expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  expect(new Set(results.map((r) => r.body.order.id)).size).toBe(1);
  expect(new Set(results.map((r) => r.body.order.number)).size).toBe(1);
  expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(1);
  expect(await paymentsOfHold(suite.api, hold.id)).toHaveLength(1);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when a general-admission hold is confirmed, then the type sells that quantity and availability drops for good', async () => {
  const { event } = await newEvent({ ticketTypes: [{ name: 'GA', priceCents: 2500, capacity: 5 }] });
  const tt = event.ticketTypes[0];
  const hold = await holdTickets(suite.api, event.id, 'buyer-1', tt.id, 3);
  const res = await confirmVia(suite.api, hold.id);
  expect(res.status).toBe(201);
  expect(res.body.order.items).toEqual([{ ticketTypeId: tt.id, name: 'GA', priceCents: 2500, quantity: 3 }]);
  expect(res.body.order.totalCents).toBe(7500);
  const row = await suite.api.rt.db.ticketType.findUnique({ where: { id: tt.id } });
  expect(row!.sold).toBe(3);
  const ev = await suite.api.call('GET', `/v1/events/${event.id}`);
  expect(ev.body.event.ticketTypes[0].available).toBe(2);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when the confirm body or caller is wrong, then 400/401/403 with the reason and nothing is written', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const service = suite.api.token('service');
  const path = `/v1/holds/${hold.id}/confirm`;
  const bad: { body?: unknown; raw?: string; field: string }[] = [
    { body: {}, field: 'paymentReference' },
    { body: { paymentReference: '' }, field: 'paymentReference' },
    { body: { paymentReference: 'x'.repeat(256) }, field: 'paymentReference' },
    { body: { paymentReference: 42 }, field: 'paymentReference' },
    { body: { paymentReference: 'ok', amount: 1 }, field: 'amount' },
    { raw: '{"paymentReference": ', field: '(body)' },
  ];
  for (const b of bad) {
    const res = await suite.api.call('POST', path, { token: service, body: b.body, raw: b.raw });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(b.field);
  }
  const asCustomer = await suite.api.call('POST', path, { token: suite.api.token('customer', 'buyer-1'), body: { paymentReference: 'r' } });
  expect(asCustomer.status).toBe(403);
  expect(asCustomer.body.error.code).toBe('FORBIDDEN');
  const anonymous = await suite.api.call('POST', path, { body: { paymentReference: 'r' } });
  expect(anonymous.status).toBe(401);

  expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(0);
  expect(await paymentsOfHold(suite.api, hold.id)).toHaveLength(0);
  const read = await suite.api.call('GET', `/v1/holds/${hold.id}`, { token: service });
  expect(read.body.hold.status).toBe('active');
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when the hold does not exist, then 404 HOLD_NOT_FOUND', async () => {
  const { event } = await newEvent({ seats: seatGrid(['A'], 1, 1) });
  const wellFormed = holdIdOf(event.id, '0'.repeat(24));
  for (const id of [wellFormed, 'nope', 'hld_zz']) {
    const res = await confirmVia(suite.api, id);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('HOLD_NOT_FOUND');
  }
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when the hold was released, then 409 HOLD_NOT_ACTIVE and its seat stays on sale', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  const rel = await suite.api.call('DELETE', `/v1/holds/${hold.id}`, { token: suite.api.token('customer', 'buyer-1') });
  expect(rel.status).toBe(200);
  const res = await confirmVia(suite.api, hold.id);
  expect(res.status).toBe(409);
  expect(res.body.error.code).toBe('HOLD_NOT_ACTIVE');
  expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(0);
  const again = await holdSeats(suite.api, event.id, 'buyer-2', [seats[0]!.id]);
  expect(again.id).toMatch(HOLD_ID_PATTERN);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when an expired hold is confirmed and its seat is still free, then it is confirmed (late payment)', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 2) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
  await waitUntilExpired(hold);
  const res = await confirmVia(suite.api, hold.id, 'late');
  expect(res.status).toBe(201);
  expect(res.body.order.holdId).toBe(hold.id);
  const map = await suite.api.call('GET', `/v1/events/${event.id}/seats`);
  expect(map.body.seats.find((s: { id: string }) => s.id === seats[0]!.id).status).toBe('sold');
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when an expired hold is confirmed after another buyer re-held its seat, then 409 HOLD_EXPIRED and the other hold is untouched', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 2) });
  const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id, seats[1]!.id]);
  await waitUntilExpired(hold);
  const other = await holdSeats(suite.api, event.id, 'buyer-2', [seats[1]!.id]);
  const res = await confirmVia(suite.api, hold.id);
  expect(res.status).toBe(409);
  expect(res.body.error.code).toBe('HOLD_EXPIRED');
  expect(await ordersOfHold(suite.api, hold.id)).toHaveLength(0);
  const read = await suite.api.call('GET', `/v1/holds/${hold.id}`, { token: suite.api.token('service') });
  expect(read.body.hold.status).toBe('expired');
  // Nothing of the failed retake lingers: seat 1 is free, seat 2 still the other buyer's.
  const map = await suite.api.call('GET', `/v1/events/${event.id}/seats`);
  const status = new Map(map.body.seats.map((s: { id: string; status: string }) => [s.id, s.status]));
  expect([status.get(seats[0]!.id), status.get(seats[1]!.id)]).toEqual(['available', 'held']);
  expect((await suite.api.rt.redis.get(eventKeys(event.id).seat(seats[1]!.id)))).toBe(other.id);
  // ... and the other buyer can still buy it.
  const theirs = await confirmVia(suite.api, other.id);
  expect(theirs.status).toBe(201);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when an expired general-admission hold is confirmed, then it sells only if the tickets are still there', async () => {
  const { event } = await newEvent({ holdTtlSeconds: 1, ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 5 }] });
  const tt = event.ticketTypes[0];
  const late = await holdTickets(suite.api, event.id, 'buyer-1', tt.id, 2);
  const lost = await holdTickets(suite.api, event.id, 'buyer-2', tt.id, 3);
  await waitUntilExpired(lost);
  // After both expired, a third buyer takes 4 of the 5: 1 left, enough for neither 2 nor 3.
  const third = await holdTickets(suite.api, event.id, 'buyer-3', tt.id, 4);
  expect((await confirmVia(suite.api, third.id)).status).toBe(201);
  const a = await confirmVia(suite.api, late.id);
  const b = await confirmVia(suite.api, lost.id);
  expect([a.status, a.body.error?.code, b.status, b.body.error?.code]).toEqual([409, 'HOLD_EXPIRED', 409, 'HOLD_EXPIRED']);
  const row = await suite.api.rt.db.ticketType.findUnique({ where: { id: tt.id } });
  expect(row!.sold).toBe(4);
  // One ticket is left: an expired hold of 1 would sell.
  const one = await holdTickets(suite.api, event.id, 'buyer-4', tt.id, 1);
  await waitUntilExpired(one);
  expect((await confirmVia(suite.api, one.id)).status).toBe(201);
  expect((await suite.api.rt.db.ticketType.findUnique({ where: { id: tt.id } }))!.sold).toBe(5);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when 30 holds are confirmed at once, then 30 orders get 30 distinct numbers', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A', 'B', 'C'], 1, 10) });
  const holds = await Promise.all(seats.map((s, i) => holdSeats(suite.api, event.id, `buyer-${i}`, [s.id])));
  const results = await Promise.all(holds.map((h) => confirmVia(suite.api, h.id)));
  expect(results.map((r) => r.status)).toEqual(Array(30).fill(201));
  const numbers = results.map((r) => r.body.order.number as string);
  expect(new Set(numbers).size).toBe(30);
  for (const n of numbers) expect(n).toMatch(NUMBER);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when the first orders of a new year are confirmed concurrently, then they are numbered 000001.. without gaps or duplicates', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 2, 10) });
  // A year no other test uses, with no sequence row yet: the upsert must create it race-free.
  const year = 5000 + Math.floor(Math.random() * 4000);
  await suite.api.rt.db.$executeRaw`DELETE FROM order_sequences WHERE year = ${year}`;
  try {
    const holds = await Promise.all(seats.map((s, i) => holdSeats(suite.api, event.id, `buyer-${i}`, [s.id])));
    const results = await Promise.all(
      holds.map((h) => confirmHold(suite.api.rt.ctx, { holdId: h.id, payment: { provider: 'service', reference: rid('ref') } }, { orderYear: year })),
    );
    expect(results.every((r) => r.created)).toBe(true);
    const numbers = results.map((r) => r.order.number).sort();
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => `HF-${year}-${String(i + 1).padStart(6, '0')}`));
    await expectInvariants(suite.api.rt.db, event.id);
  } finally {
    await suite.api.rt.db.$executeRaw`DELETE FROM order_sequences WHERE year = ${year}`;
  }
});

test('when a year passes a million orders, then numbers keep every digit', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1) });
  const year = 5000 + Math.floor(Math.random() * 4000);
  await suite.api.rt.db.$executeRaw`INSERT INTO order_sequences (year, last_value) VALUES (${year}, 999999) ON CONFLICT (year) DO UPDATE SET last_value = 999999`;
  try {
    const hold = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
    const r = await confirmHold(suite.api.rt.ctx, { holdId: hold.id, payment: { provider: 'service', reference: 'r' } }, { orderYear: year });
    expect(r.order.number).toBe(`HF-${year}-1000000`);
  } finally {
    await suite.api.rt.db.$executeRaw`DELETE FROM order_sequences WHERE year = ${year}`;
  }
});

/**
 * Redis loses a hold before the outbox wrote it to PostgreSQL: the row the outbox wrote is
 * taken away again, so priming (which restores the holds PostgreSQL has ACTIVE) cannot bring
 * the hold back. Without this the test raced the outbox: a hold already written was restored.
 */
async function unwrittenHold(holdId: string) {
  await waitFor('the outbox to write the hold', async () => (await suite.api.rt.db.hold.findUnique({ where: { id: holdId } })) !== null);
  await suite.api.rt.db.hold.delete({ where: { id: holdId } });
}

describe('when Redis lost a hold\'s keys and a second buyer re-held and paid for its seat', () => {
  /** Buyer 1 holds the seat; Redis forgets it (seat key and ready marker) before it reached PostgreSQL; buyer 2 holds the same seat. */
  async function lostHold() {
    const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 2) });
    const first = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
    const k = eventKeys(event.id);
    await unwrittenHold(first.id);
    await suite.api.rt.redis.del(k.seat(seats[0]!.id), k.ready);
    const second = await holdSeats(suite.api, event.id, 'buyer-2', [seats[0]!.id]);
    return { event, seats, first, second };
  }

  test('then confirming both at once sells the seat exactly once', async () => {
    const { event, seats, first, second } = await lostHold();
    const [a, b] = await Promise.all([confirmVia(suite.api, first.id), confirmVia(suite.api, second.id)]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([201, 409]);
    const loser = a.status === 409 ? a : b;
    expect(loser.body.error.code).toBe('HOLD_EXPIRED');
    const items = await suite.api.rt.db.orderItem.findMany({ where: { seatId: seats[0]!.id } });
    expect(items).toHaveLength(1);
    await expectInvariants(suite.api.rt.db, event.id);
  });

  test('then, had nobody else taken the seat, the first buyer\'s confirm still sells it and it reads sold', async () => {
    const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 2) });
    const first = await holdSeats(suite.api, event.id, 'buyer-1', [seats[0]!.id]);
    const k = eventKeys(event.id);
    await suite.api.rt.redis.del(k.seat(seats[0]!.id), k.ready);
    expect((await confirmVia(suite.api, first.id)).status).toBe(201);
    const map = await suite.api.call('GET', `/v1/events/${event.id}/seats`);
    expect(map.body.seats.find((s: { id: string }) => s.id === seats[0]!.id).status).toBe('sold');
    await expectInvariants(suite.api.rt.db, event.id);
  });

  test('then the first buyer\'s later confirm is refused with HOLD_EXPIRED and the hold reads expired', async () => {
    const { event, first, second } = await lostHold();
    expect((await confirmVia(suite.api, second.id)).status).toBe(201);
    const res = await confirmVia(suite.api, first.id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('HOLD_EXPIRED');
    const read = await suite.api.call('GET', `/v1/holds/${first.id}`, { token: suite.api.token('service') });
    expect(read.body.hold.status).toBe('expired');
    expect(await ordersOfHold(suite.api, first.id)).toHaveLength(0);
    await expectInvariants(suite.api.rt.db, event.id);
  });
});

test('when Redis lost a general-admission hold and the tickets were held again by others, then confirms never sell past capacity', async () => {
  const { event } = await newEvent({ ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 3 }] });
  const tt = event.ticketTypes[0];
  const first = await holdTickets(suite.api, event.id, 'buyer-1', tt.id, 2);
  const k = eventKeys(event.id);
  await unwrittenHold(first.id);
  await suite.api.rt.redis.del(k.ready, k.ticketType(tt.id), k.ticketTypeHolds(tt.id), k.ticketTypeExpiry(tt.id));
  const second = await holdTickets(suite.api, event.id, 'buyer-2', tt.id, 2);
  const [a, b] = await Promise.all([confirmVia(suite.api, first.id), confirmVia(suite.api, second.id)]);
  expect([a.status, b.status].sort()).toEqual([201, 409]);
  expect((a.status === 409 ? a : b).body.error.code).toBe('HOLD_EXPIRED');
  expect((await suite.api.rt.db.ticketType.findUnique({ where: { id: tt.id } }))!.sold).toBe(2);
  await expectInvariants(suite.api.rt.db, event.id);
});

describe('GET /v1/orders/:orderId', () => {
  test('when the owner, a service or an admin reads an order, then 200; another customer or a bad id gets 404', async () => {
    const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1) });
    const hold = await holdSeats(suite.api, event.id, 'owner-1', [seats[0]!.id]);
    const { body } = await confirmVia(suite.api, hold.id, 'pay-1');
    const path = `/v1/orders/${body.order.id}`;
    for (const token of [suite.api.token('customer', 'owner-1'), suite.api.token('service'), suite.api.token('admin')]) {
      const res = await suite.api.call('GET', path, { token });
      expect(res.status).toBe(200);
      expect(res.body.order).toEqual(body.order);
    }
    const other = await suite.api.call('GET', path, { token: suite.api.token('customer', 'someone-else') });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('ORDER_NOT_FOUND');
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const res = await suite.api.call('GET', `/v1/orders/${id}`, { token: suite.api.token('admin') });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('ORDER_NOT_FOUND');
    }
    expect((await suite.api.call('GET', path)).status).toBe(401);
    expect((await suite.api.call('GET', `${path}?x=1`, { token: suite.api.token('admin') })).status).toBe(400);
  });
});
