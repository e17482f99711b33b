import { checkInvariants, createTestEvent, dropTestEvent, seatGrid, useTestApi, confirmVia, holdSeats, holdTickets } from '@holdfast/test-kit';

const { api } = useTestApi();

const rules = async (eventId: string) => (await checkInvariants(api.rt.db, eventId)).map((v) => v.rule);

test('when committed rows break a rule, then the invariant checker names it, and it is clean again once repaired', async () => {
  const { event, seats } = await createTestEvent(api, {
    seats: seatGrid(['A'], 1, 2), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 5 }],
  });
  const db = api.rt.db;
  try {
    const seatHold = await holdSeats(api, event.id, 'buyer-1', [seats[0]!.id]);
    const gaHold = await holdTickets(api, event.id, 'buyer-2', event.ticketTypes[0].id, 2);
    const order = (await confirmVia(api, seatHold.id)).body.order;
    expect((await confirmVia(api, gaHold.id)).status).toBe(201);
    expect(await rules(event.id)).toEqual([]);

    await db.$executeRaw`UPDATE seats SET status = 'SOLD' WHERE id = ${seats[1]!.id}::uuid`;
    expect(await rules(event.id)).toEqual(['a seat is SOLD iff it is in exactly one order, and seats.order_id names that order']);
    await db.$executeRaw`UPDATE seats SET status = 'AVAILABLE' WHERE id = ${seats[1]!.id}::uuid`;

    await db.$executeRaw`UPDATE ticket_types SET sold = sold + 1 WHERE id = ${event.ticketTypes[0].id}::uuid`;
    expect(await rules(event.id)).toEqual(['every ticket type sells within capacity, and sold equals its order lines']);
    await db.$executeRaw`UPDATE ticket_types SET sold = sold - 1 WHERE id = ${event.ticketTypes[0].id}::uuid`;

    await db.$executeRaw`UPDATE payments SET status = 'REFUND_REQUIRED' WHERE order_id = ${order.id}::uuid`;
    expect(await rules(event.id)).toEqual([
      'every order is backed by exactly one applied payment (Stripe or a service confirmation)',
      'no applied payment without its order, no refund-required payment with one',
      'no refund_required for a payment that has an order (same payment reference)',
    ]);
    await db.$executeRaw`UPDATE payments SET status = 'APPLIED' WHERE order_id = ${order.id}::uuid`;

    await db.$executeRaw`UPDATE holds SET status = 'EXPIRED' WHERE id = ${seatHold.id}`;
    expect(await rules(event.id)).toEqual(['a hold is CONFIRMED iff it has an order, and holds.order_id names it']);
    await db.$executeRaw`UPDATE holds SET status = 'CONFIRMED' WHERE id = ${seatHold.id}`;

    // buyer-2 owns 2 tickets; a limit of 1 is broken by the rows already committed.
    await db.$executeRaw`UPDATE events SET max_tickets_per_customer = 1 WHERE id = ${event.id}::uuid`;
    expect(await rules(event.id)).toEqual([
      "no customer owns more than the event's limit (maxTicketsPerCustomer: a seat counts one, a ticket line its quantity)",
    ]);
    await db.$executeRaw`UPDATE events SET max_tickets_per_customer = 10 WHERE id = ${event.id}::uuid`;

    await db.$executeRaw`UPDATE customer_sales SET sold = sold + 1 WHERE event_id = ${event.id}::uuid AND customer_id = 'buyer-2'`;
    expect(await rules(event.id)).toEqual([
      "each customer's sold count (customer_sales, the confirm's limit fence) equals what their orders hold",
    ]);
    await db.$executeRaw`UPDATE customer_sales SET sold = sold - 1 WHERE event_id = ${event.id}::uuid AND customer_id = 'buyer-2'`;

    expect(await rules(event.id)).toEqual([]);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an offer\'s seat is in another hold at once, or a later waiting-list entry is offered while an earlier one that fits waits, then the checker names each rule', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2, 'floor') });
  const db = api.rt.db;
  try {
    const held = await holdSeats(api, event.id, 'inv-wl-1', [seats[0]!.id]);
    await api.rt.ctx.persister.flush([event.id]);
    expect(await rules(event.id)).toEqual([]);
    const twin = `${held.id.slice(0, -4)}beef`;
    await db.$executeRawUnsafe(`
      INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
      SELECT $1, event_id, 'inv-wl-2', 'ACTIVE', created_at + interval '1 second', expires_at, items, total_cents, currency FROM holds WHERE id = $2`, twin, held.id);
    // Two ordinary holds may overlap (Redis lost a lease): only an offer's seats are checked.
    expect(await rules(event.id)).toEqual([]);
    await db.$executeRawUnsafe(`
      INSERT INTO waitlist_entries (id, event_id, customer_id, tier, quantity, state, hold_id, offered_at, created_at)
      VALUES (gen_random_uuid(), $1::uuid, 'inv-wl-offer', 'floor', 1, 'left', $2, now() - interval '2 minutes', now() - interval '3 minutes')`, event.id, twin);
    expect(await rules(event.id)).toEqual(['no seat of a waiting-list offer is in another hold at the same time']);
    // Released before the other began: no overlap.
    await db.$executeRawUnsafe(`UPDATE holds SET status = 'RELEASED', ended_at = created_at + interval '500 milliseconds' WHERE id = $1`, held.id);
    expect(await rules(event.id)).toEqual([]);

    await db.$executeRawUnsafe(`
      INSERT INTO waitlist_entries (id, event_id, customer_id, tier, quantity, created_at)
      VALUES (gen_random_uuid(), $1::uuid, 'inv-wl-early', 'floor', 1, now() - interval '1 minute')`, event.id);
    await db.$executeRawUnsafe(`
      INSERT INTO waitlist_entries (id, event_id, customer_id, tier, quantity, state, hold_id, offered_at, created_at)
      VALUES (gen_random_uuid(), $1::uuid, 'inv-wl-late', 'floor', 2, 'offered', $2, now(), now() - interval '30 seconds')`, event.id, twin);
    expect(await rules(event.id)).toEqual(['waiting-list offers go in join order']);
    // The earlier entry wanted more than came back: passing it over is the rule.
    await db.$executeRawUnsafe(`UPDATE waitlist_entries SET quantity = 3 WHERE customer_id = 'inv-wl-early' AND event_id = $1::uuid`, event.id);
    expect(await rules(event.id)).toEqual([]);
  } finally {
    await dropTestEvent(api, event.id);
  }
});
