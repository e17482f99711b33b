// The waiting list: buyers who came after the sell-out line up for a tier or ticket
// type; what comes back (a release, a lapse, a cancelled order) is offered in join
// order as their own hold, in the same Redis step, and paid like any hold.
import { randomUUID } from 'node:crypto';
import { expireHold, reconcile } from '@holdfast/domain';
import { eventKeys, ReconcileStore } from '@holdfast/hold-store';
import {
  confirmVia, deliverEvent, dropTestWebhooks, expectInvariants, forgetEventInRedis, holdPost, ordersOfHold, paymentIntentEvent, scanOn, seatGrid, sleepUntil,
  useTestApi, waitFor,
} from '@holdfast/test-kit';

const { api, newEvent } = useTestApi();

const run = `${process.pid}-${Date.now().toString(36)}`;
const customer = (name: string) => `${name}-${run}`;

type Entry = { id: string; state: string; position: number | null; quantity: number; offer: { holdId: string; expiresAt: string } | null };

const join = (eventId: string, who: string, body: Record<string, unknown>) =>
  api.call('POST', `/v1/events/${eventId}/waitlist`, { token: api.token('customer', who), body });

async function mine(eventId: string, who: string): Promise<Entry[]> {
  const res = await api.call('GET', `/v1/events/${eventId}/waitlist/me`, { token: api.token('customer', who) });
  expect(res.status).toBe(200);
  return res.body.entries;
}

async function entryOf(eventId: string, who: string): Promise<Entry> {
  const entries = await mine(eventId, who);
  return entries[entries.length - 1]!;
}

async function hold(eventId: string, who: string, body: Record<string, unknown>) {
  const res = await holdPost(api, eventId, who, body);
  if (res.status !== 201) throw new Error(`hold failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.hold as { id: string; expiresAt: string; items: { seatId?: string; label?: string; quantity: number }[] };
}

const release = (holdId: string, who: string) => api.call('DELETE', `/v1/holds/${holdId}`, { token: api.token('customer', who) });
const holdOf = (holdId: string, who: string) => api.call('GET', `/v1/holds/${holdId}`, { token: api.token('customer', who) });
const flush = (eventId: string) => api.rt.ctx.persister.flush([eventId]);

describe('general admission', () => {
  test('when tickets come back by a release, then they are offered to the line in join order as the customers\' holds, and outsiders find it sold out', async () => {
    const { event } = await newEvent({ maxTicketsPerCustomer: 4, waitlistOfferSeconds: 120, ticketTypes: [{ name: 'GA', priceCents: 2500, capacity: 2 }] });
    const tt = event.ticketTypes[0].id;
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(customer) as [string, string, string, string];

    // Nobody waits and tickets are free: hold them instead.
    const early = await join(event.id, b, { ticketTypeId: tt, quantity: 1 });
    expect({ status: early.status, code: early.body.error.code, available: early.body.error.details.available })
      .toEqual({ status: 409, code: 'WAITLIST_NOT_NEEDED', available: 2 });

    const bought = await hold(event.id, a, { ticketTypeId: tt, quantity: 2 });
    const jb = await join(event.id, b, { ticketTypeId: tt, quantity: 1 });
    expect(jb.status).toBe(201);
    expect(jb.body.entry).toEqual({
      id: expect.any(String), state: 'waiting', position: 1, ticketTypeId: tt, quantity: 1, createdAt: expect.any(String), offer: null,
    });
    const jc = await join(event.id, c, { ticketTypeId: tt, quantity: 1 });
    expect(jc.body.entry).toMatchObject({ state: 'waiting', position: 2 });
    // Joining again answers the same entry.
    const again = await join(event.id, b, { ticketTypeId: tt, quantity: 1 });
    expect({ status: again.status, id: again.body.entry.id }).toEqual({ status: 200, id: jb.body.entry.id });

    expect((await release(bought.id, a)).status).toBe(200);
    const offerB = await entryOf(event.id, b);
    const offerC = await entryOf(event.id, c);
    expect([offerB.state, offerC.state]).toEqual(['offered', 'offered']);
    const heldB = await holdOf(offerB.offer!.holdId, b);
    expect(heldB.body.hold).toMatchObject({ status: 'active', customerId: b, items: [{ ticketTypeId: tt, quantity: 1, priceCents: 2500 }], totalCents: 2500 });
    expect(Date.parse(heldB.body.hold.expiresAt) - Date.parse(heldB.body.hold.createdAt)).toBe(120_000);
    // Nothing was free in between: an outsider finds it sold out.
    expect((await holdPost(api, event.id, d, { ticketTypeId: tt, quantity: 1 })).body.error.code).toBe('SOLD_OUT');

    // B pays the offer like any hold; C leaves while offered, and its ticket is free again (nobody waits).
    expect((await confirmVia(api, offerB.offer!.holdId)).status).toBe(201);
    const left = await api.call('DELETE', `/v1/events/${event.id}/waitlist/${offerC.id}`, { token: api.token('customer', c) });
    expect(left.body.entry).toMatchObject({ id: offerC.id, state: 'left', offer: null });
    expect((await holdOf(offerC.offer!.holdId, c)).body.hold.status).toBe('released');
    expect((await holdPost(api, event.id, d, { ticketTypeId: tt, quantity: 1 })).status).toBe(201);

    await flush(event.id);
    expect((await entryOf(event.id, b)).state).toBe('purchased');
    // Purchased: B may join again.
    expect((await join(event.id, b, { ticketTypeId: tt, quantity: 1 })).status).toBe(201);
    await expectInvariants(api.rt.db, event.id);
  });

  test('when a waiting-list request is wrong, then 400/404 name it and nothing is written', async () => {
    const { event } = await newEvent({ maxTicketsPerCustomer: 2, ticketTypes: [{ name: 'GA', priceCents: 100, capacity: 1 }], seats: seatGrid(['A'], 1, 1, 'floor') });
    const who = customer('bad');
    const tt = event.ticketTypes[0].id;
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ticketTypeId: tt, quantity: 3 }, 400, 'VALIDATION_FAILED'],
      [{ ticketTypeId: tt, tier: 'floor', quantity: 1 }, 400, 'VALIDATION_FAILED'],
      [{ quantity: 1 }, 400, 'VALIDATION_FAILED'],
      [{ tier: 'balcony', quantity: 1 }, 400, 'VALIDATION_FAILED'],
      [{ ticketTypeId: '00000000-0000-4000-8000-000000000000', quantity: 1 }, 404, 'TICKET_TYPE_NOT_FOUND'],
      [{ ticketTypeId: tt, quantity: 0 }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await join(event.id, who, body);
      expect({ body, status: res.status, code: res.body.error.code }).toEqual({ body, status, code });
    }
    expect((await join('00000000-0000-4000-8000-000000000000', who, { ticketTypeId: tt, quantity: 1 })).body.error.code).toBe('EVENT_NOT_FOUND');
    expect(await mine(event.id, who)).toEqual([]);
    // Another customer's entry is not found for them.
    await hold(event.id, customer('owner'), { ticketTypeId: tt, quantity: 1 });
    const mineJoin = await join(event.id, who, { ticketTypeId: tt, quantity: 1 });
    const other = await api.call('DELETE', `/v1/events/${event.id}/waitlist/${mineJoin.body.entry.id}`, { token: api.token('customer', customer('thief')) });
    expect({ status: other.status, code: other.body.error.code }).toEqual({ status: 404, code: 'WAITLIST_ENTRY_NOT_FOUND' });
    expect((await api.call('POST', `/v1/events/${event.id}/waitlist`, { token: api.token('admin'), body: { ticketTypeId: tt, quantity: 1 } })).status).toBe(403);
  });
});

describe('seats of a tier', () => {
  test('when a hold of 4 lapses, then the party of 4 first in line gets the 4 side by side and the single behind it waits; when the party leaves, the single is served', async () => {
    const { event } = await newEvent({
      holdTtlSeconds: 1, maxTicketsPerCustomer: 4, seats: [...seatGrid(['A'], 1, 4, 'floor'), ...seatGrid(['B'], 1, 2, 'balcony', 1000)],
    });
    const [a, party, single, outsider] = ['a', 'party', 'single', 'outsider'].map(customer) as [string, string, string, string];
    const first = await hold(event.id, a, { tier: 'floor', quantity: 4 });
    expect((await join(event.id, party, { tier: 'floor', quantity: 4 })).body.entry).toMatchObject({ state: 'waiting', position: 1, tier: 'floor' });
    expect((await join(event.id, single, { tier: 'floor', quantity: 1 })).body.entry).toMatchObject({ state: 'waiting', position: 2 });
    // Another tier's line is its own (and nobody waits there).
    expect((await join(event.id, single, { tier: 'balcony', quantity: 1 })).body.error.code).toBe('WAITLIST_NOT_NEEDED');

    await sleepUntil(first.expiresAt, 150);
    // The lease lapsed: before any expiry job, the outsider's request gives its seats to the line first.
    expect((await holdPost(api, event.id, outsider, { tier: 'floor', quantity: 1 })).body.error.code).toBe('SOLD_OUT');
    const offered = await entryOf(event.id, party);
    expect(offered.state).toBe('offered');
    const partyHold = (await holdOf(offered.offer!.holdId, party)).body.hold;
    expect(partyHold.items.map((i: { label: string }) => i.label).sort()).toEqual(['A-1-1', 'A-1-2', 'A-1-3', 'A-1-4']);
    expect(await entryOf(event.id, single)).toMatchObject({ state: 'waiting', position: 1 });
    // The expiry job after it changes nothing: the seats are the party's.
    expect((await expireHold(api.rt.ctx, first.id)).kind).toBe('expired');
    expect((await holdOf(offered.offer!.holdId, party)).body.hold.status).toBe('active');

    // The party leaves while offered: the single gets one seat, three are free for anyone.
    const left = await api.call('DELETE', `/v1/events/${event.id}/waitlist/${offered.id}`, { token: api.token('customer', party) });
    expect(left.body.entry.state).toBe('left');
    expect((await entryOf(event.id, single)).state).toBe('offered');
    expect((await holdPost(api, event.id, outsider, { tier: 'floor', quantity: 3 })).status).toBe(201);
    await flush(event.id);
    await expectInvariants(api.rt.db, event.id);
  });

  test('when 1 seat comes back, then the single behind a party of 4 is served and the party keeps its place; when 4 are back together, the party gets them side by side', async () => {
    const { event } = await newEvent({ maxTicketsPerCustomer: 4, seats: seatGrid(['A'], 1, 4, 'floor') });
    const [a, b, party, single] = ['a', 'b', 'party', 'single'].map(customer) as [string, string, string, string];
    const one = await hold(event.id, a, { tier: 'floor', quantity: 1 });
    const three = await hold(event.id, b, { tier: 'floor', quantity: 3 });
    await join(event.id, party, { tier: 'floor', quantity: 4 });
    await join(event.id, single, { tier: 'floor', quantity: 1 });
    await release(one.id, a);
    const singleOffer = await entryOf(event.id, single);
    expect(singleOffer.state).toBe('offered');
    expect(await entryOf(event.id, party)).toMatchObject({ state: 'waiting', position: 1 });
    await release(three.id, b);
    expect((await entryOf(event.id, party)).state).toBe('waiting');
    // The single leaves while offered: its seat goes back to the line, and with it 4 are free together.
    await api.call('DELETE', `/v1/events/${event.id}/waitlist/${singleOffer.id}`, { token: api.token('customer', single) });
    const partyOffer = await entryOf(event.id, party);
    expect(partyOffer.state).toBe('offered');
    const items = (await holdOf(partyOffer.offer!.holdId, party)).body.hold.items;
    expect(items.map((i: { label: string }) => i.label).sort()).toEqual(['A-1-1', 'A-1-2', 'A-1-3', 'A-1-4']);
    await flush(event.id);
    await expectInvariants(api.rt.db, event.id);
  });

  test('when an offer lapses, then it moves to the next entry, and the lapsed entry reads expired', async () => {
    const { event } = await newEvent({ holdTtlSeconds: 60, waitlistOfferSeconds: 1, seats: seatGrid(['A'], 1, 2, 'floor') });
    const [a, first, second] = ['a', 'first', 'second'].map(customer) as [string, string, string];
    const taken = await hold(event.id, a, { tier: 'floor', quantity: 2 });
    await join(event.id, first, { tier: 'floor', quantity: 2 });
    await join(event.id, second, { tier: 'floor', quantity: 2 });
    await release(taken.id, a);
    const offer = await entryOf(event.id, first);
    expect(offer.state).toBe('offered');
    expect(Date.parse(offer.offer!.expiresAt) - Date.now()).toBeLessThanOrEqual(1000);
    await flush(event.id);
    await sleepUntil(offer.offer!.expiresAt, 150);
    expect((await expireHold(api.rt.ctx, offer.offer!.holdId)).kind).toBe('expired');
    await flush(event.id);
    expect(await entryOf(event.id, first)).toMatchObject({ state: 'expired', offer: null });
    const next = await entryOf(event.id, second);
    expect(next.state).toBe('offered');
    expect((await holdOf(next.offer!.holdId, second)).body.hold.items).toHaveLength(2);
    await expectInvariants(api.rt.db, event.id);
  });
});

test('when hundreds of buyers hammer a sold-out tier while its seats come back, then every returned seat goes to the line and no seat is in two holds', async () => {
  const seats = 20;
  const { event } = await newEvent({ holdTtlSeconds: 120, maxTicketsPerCustomer: 2, seats: seatGrid(['A', 'B'], 2, seats / 4, 'floor') });
  const holders = Array.from({ length: seats }, (_, i) => customer(`holder${i}`));
  const held = await Promise.all(holders.map((h) => hold(event.id, h, { tier: 'floor', quantity: 1 })));
  const waiters = Array.from({ length: seats }, (_, i) => customer(`waiter${i}`));
  for (const w of waiters) expect((await join(event.id, w, { tier: 'floor', quantity: 1 })).status).toBe(201);

  const outsiders = Array.from({ length: 300 }, (_, i) => customer(`bot${i}`));
  const [attempts] = await Promise.all([
    Promise.all(outsiders.map((o) => holdPost(api, event.id, o, { tier: 'floor', quantity: 1 }))),
    Promise.all(held.map((h, i) => release(h.id, holders[i]!))),
  ]);
  expect(attempts.filter((r) => r.status === 201)).toEqual([]);
  const entries = await Promise.all(waiters.map((w) => entryOf(event.id, w)));
  expect(entries.map((e) => e.state)).toEqual(waiters.map(() => 'offered'));
  const offered = await Promise.all(entries.map(async (e, i) => (await holdOf(e.offer!.holdId, waiters[i]!)).body.hold.items[0].seatId as string));
  expect(new Set(offered).size).toBe(seats);
  await waitFor('offers persisted', async () => (await flush(event.id)) === 0 && (await api.rt.db.$queryRawUnsafe<{ n: number }[]>(
    "SELECT count(*)::int AS n FROM waitlist_entries WHERE event_id = $1::uuid AND state = 'offered'", event.id))[0]!.n === seats);
  await expectInvariants(api.rt.db, event.id);
});

describe('cancelling an order', () => {
  test('when an admin cancels an order, then its tickets go to the line first, its payment is owed a refund, it is audited, and the buyer\'s limit counts it no more', async () => {
    const { event } = await newEvent({ maxTicketsPerCustomer: 2, ticketTypes: [{ name: 'GA', priceCents: 1500, capacity: 2 }] });
    const tt = event.ticketTypes[0].id;
    const [a, b, c] = ['a', 'b', 'c'].map(customer) as [string, string, string];
    const admin = api.token('admin', customer('admin'));
    const held = await hold(event.id, a, { ticketTypeId: tt, quantity: 2 });
    const order = (await confirmVia(api, held.id)).body.order;
    await join(event.id, b, { ticketTypeId: tt, quantity: 1 });
    await join(event.id, c, { ticketTypeId: tt, quantity: 2 });

    expect((await api.call('POST', `/v1/admin/orders/${order.id}/cancel`, { token: admin, body: {} })).status).toBe(400);
    expect((await api.call('POST', '/v1/admin/orders/00000000-0000-4000-8000-000000000000/cancel', { token: admin, body: { reason: 'x' } })).body.error.code)
      .toBe('ORDER_NOT_FOUND');
    expect((await api.call('POST', `/v1/admin/orders/${order.id}/cancel`, { token: api.token('customer', a), body: { reason: 'x' } })).status).toBe(403);

    const cancelled = await api.call('POST', `/v1/admin/orders/${order.id}/cancel`, { token: admin, body: { reason: 'event moved' } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.order).toMatchObject({ id: order.id, status: 'cancelled', cancelledAt: expect.any(String) });
    // Cancelling again answers it as it is.
    expect((await api.call('POST', `/v1/admin/orders/${order.id}/cancel`, { token: admin, body: { reason: 'again' } })).body.order.cancelledAt)
      .toBe(cancelled.body.order.cancelledAt);
    expect((await api.call('GET', `/v1/orders/${order.id}`, { token: api.token('customer', a) })).body.order.status).toBe('cancelled');

    // B (1, first) is served; C wants 2 and only 1 is left: it waits, and nobody else gets the ticket.
    const offer = await entryOf(event.id, b);
    expect(offer.state).toBe('offered');
    expect(await entryOf(event.id, c)).toMatchObject({ state: 'waiting', position: 1 });
    expect((await holdPost(api, event.id, customer('outsider'), { ticketTypeId: tt, quantity: 2 })).body.error.code).toBe('SOLD_OUT');

    const payments = await api.call('GET', '/v1/admin/payments?status=refund_required&limit=100', { token: admin });
    expect(payments.body.payments.filter((p: { orderId: string }) => p.orderId === order.id)).toEqual([
      expect.objectContaining({ status: 'refund_required', orderId: order.id }),
    ]);
    const audit = await api.call('GET', `/v1/admin/audit?limit=100&eventId=${event.id}`, { token: admin });
    expect(audit.body.entries.filter((e: { action: string }) => e.action === 'order.cancelled'))
      .toEqual([expect.objectContaining({ orderId: order.id, reason: 'event moved' })]);

    // B pays the offer; A's cancelled tickets no longer count against A's limit of 2 (the one C cannot use is free).
    expect((await confirmVia(api, offer.offer!.holdId)).status).toBe(201);
    const again = await hold(event.id, a, { ticketTypeId: tt, quantity: 1 });
    expect((await confirmVia(api, again.id)).status).toBe(201);
    await flush(event.id);
    await expectInvariants(api.rt.db, event.id);
    const sales = (await api.call('GET', `/v1/admin/events/${event.id}/sales`, { token: admin })).body.sales;
    expect({ orders: sales.orders, revenueCents: sales.revenueCents }).toEqual({ orders: 2, revenueCents: 3000 });
  });

  test('when a confirm of a cancelled order\'s hold comes after the cancel, then it answers the cancelled order and the seat stays with the customer it was offered to', async () => {
    const { event } = await newEvent({ maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 1, 'floor') });
    const [a, w] = ['a', 'w'].map(customer) as [string, string];
    const admin = api.token('admin', customer('admin'));
    const held = await hold(event.id, a, { tier: 'floor', quantity: 1 });
    const seatId = held.items[0]!.seatId!;
    const order = (await confirmVia(api, held.id)).body.order;
    await join(event.id, w, { tier: 'floor', quantity: 1 });
    expect((await api.call('POST', `/v1/admin/orders/${order.id}/cancel`, { token: admin, body: { reason: 'moved' } })).status).toBe(200);
    const offer = (await entryOf(event.id, w)).offer!;

    // A second payment event for the cancelled order (or a retried confirm) arrives.
    const late = await confirmVia(api, held.id);
    expect({ status: late.status, id: late.body.order.id, state: late.body.order.status }).toEqual({ status: 200, id: order.id, state: 'cancelled' });
    const k = eventKeys(event.id);
    expect({ sold: await api.rt.redis.sismember(k.sold, seatId), owner: await api.rt.redis.get(k.seat(seatId)) }).toEqual({ sold: 0, owner: offer.holdId });
    expect((await confirmVia(api, offer.holdId)).status).toBe(201);
    await flush(event.id);
    await expectInvariants(api.rt.db, event.id);
  });

  test('when a confirm of a cancelled order\'s hold comes after its cancelled mark lapsed in Redis, then it takes nothing: the seat stays free for the next buyer', async () => {
    const { event } = await newEvent({ maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 1, 'floor') });
    const [a, b] = ['a', 'b'].map(customer) as [string, string];
    const admin = api.token('admin', customer('admin'));
    const held = await hold(event.id, a, { tier: 'floor', quantity: 1 });
    const seatId = held.items[0]!.seatId!;
    const order = (await confirmVia(api, held.id)).body.order;
    expect((await api.call('POST', `/v1/admin/orders/${order.id}/cancel`, { token: admin, body: { reason: 'moved' } })).status).toBe(200);
    const k = eventKeys(event.id);
    await api.rt.redis.del(k.hold(held.id));

    const late = await confirmVia(api, held.id);
    expect({ status: late.status, state: late.body.order.status }).toEqual({ status: 200, state: 'cancelled' });
    expect({ sold: await api.rt.redis.sismember(k.sold, seatId), owner: await api.rt.redis.get(k.seat(seatId)) }).toEqual({ sold: 0, owner: null });
    const next = await holdPost(api, event.id, b, { tier: 'floor', quantity: 1 });
    expect({ status: next.status, seat: next.body.hold?.items[0].seatId }).toEqual({ status: 201, seat: seatId });
    await flush(event.id);
    await expectInvariants(api.rt.db, event.id);
  });

  test('when an order of two seats is cancelled as refunded, then a party of 2 waiting gets them side by side and the payment reads refunded', async () => {
    const { event } = await newEvent({ maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 2, 'floor') });
    const [a, party] = ['a', 'party'].map(customer) as [string, string];
    const admin = api.token('admin', customer('admin'));
    const held = await hold(event.id, a, { tier: 'floor', quantity: 2 });
    const order = (await confirmVia(api, held.id)).body.order;
    await join(event.id, party, { tier: 'floor', quantity: 2 });
    const res = await api.call('POST', `/v1/admin/orders/${order.id}/cancel`, { token: admin, body: { reason: 'duplicate purchase', refunded: true } });
    expect(res.body.order.status).toBe('cancelled');
    const offer = await entryOf(event.id, party);
    expect(offer.state).toBe('offered');
    const items = (await holdOf(offer.offer!.holdId, party)).body.hold.items;
    expect(items.map((i: { label: string }) => i.label).sort()).toEqual(['A-1-1', 'A-1-2']);
    // The seats are sold again to the party: a seat's line in the cancelled order no longer holds it.
    expect((await confirmVia(api, offer.offer!.holdId)).status).toBe(201);
    const payment = (await api.call('GET', '/v1/admin/payments?limit=100', { token: admin })).body.payments
      .find((p: { orderId: string }) => p.orderId === order.id);
    expect(payment).toMatchObject({
      status: 'refund_required', refund: { by: expect.stringMatching(/^admin:/), at: expect.any(String), note: 'order cancelled: duplicate purchase' },
    });
    await flush(event.id);
    await expectInvariants(api.rt.db, event.id);
  });
});

test('when an endpoint subscribes, then an order cancelled, its ticket offered and the offer run out are written as payment.refund_required, waitlist.offered, hold.expired and waitlist.offer_expired events, delivered in that order', async () => {
  const admin = api.token('admin');
  const hook = await api.call('POST', '/v1/admin/webhooks', {
    token: admin, body: { url: 'https://203.0.113.10/holdfast-waitlist', events: ['waitlist.offered', 'waitlist.offer_expired', 'payment.refund_required', 'hold.expired'] },
  });
  expect(hook.status).toBe(201);
  const db = api.rt.db;
  try {
    const { event } = await newEvent({ waitlistOfferSeconds: 1, ticketTypes: [{ name: 'GA', priceCents: 900, capacity: 1 }] });
    const tt = event.ticketTypes[0].id;
    const [a, b] = ['hook-a', 'hook-b'].map(customer) as [string, string];
    const held = await hold(event.id, a, { ticketTypeId: tt, quantity: 1 });
    const order = (await confirmVia(api, held.id)).body.order;
    const entry = (await join(event.id, b, { ticketTypeId: tt, quantity: 1 })).body.entry;
    await api.call('POST', `/v1/admin/orders/${order.id}/cancel`, { token: admin, body: { reason: 'hook test' } });
    const offer = (await entryOf(event.id, b)).offer!;
    await flush(event.id);
    await sleepUntil(offer.expiresAt, 150);
    expect((await expireHold(api.rt.ctx, offer.holdId)).kind).toBe('expired');
    const events = await db.$queryRawUnsafe<{ type: string; data: { entry?: { id: string; state: string }; order?: { id: string; status: string }; payment?: { status: string } }; ordering_key: string }[]>(
      // In the order their deliveries go out (one hold's events to one endpoint go in seq order).
      `SELECT type, data, ordering_key FROM webhook_events ev WHERE ordering_key = ANY($1::text[])
       ORDER BY (SELECT min(seq) FROM webhook_deliveries d WHERE d.event_id = ev.id)`, [held.id, offer.holdId]);
    expect(events.map((e) => [e.type, e.ordering_key])).toEqual([
      ['payment.refund_required', held.id], ['waitlist.offered', offer.holdId], ['hold.expired', offer.holdId], ['waitlist.offer_expired', offer.holdId],
    ]);
    expect(events[0]!.data).toMatchObject({ order: { id: order.id, status: 'cancelled' }, payment: { status: 'refund_required' } });
    expect(events[1]!.data.entry).toMatchObject({ id: entry.id, state: 'offered' });
    expect(events[2]!.data).toMatchObject({ hold: { id: offer.holdId, status: 'expired' } });
    expect(events[3]!.data.entry).toMatchObject({ id: entry.id, state: 'expired' });
    expect(events[3]!.data).toMatchObject({ hold: { id: offer.holdId, status: 'expired' } });
  } finally {
    await dropTestWebhooks(api, [hook.body.webhook.id]);
  }
});

test('when the outbox reaches PostgreSQL only after the offered customer paid (or declined), then the entry ends as its hold did and no waitlist.offered follows', async () => {
  const admin = api.token('admin');
  const hook = await api.call('POST', '/v1/admin/webhooks', {
    token: admin, body: { url: 'https://203.0.113.10/holdfast-late-drain', events: ['waitlist.offered', 'order.confirmed', 'hold.released'] },
  });
  expect(hook.status).toBe(201);
  const persister = api.rt.ctx.persister;
  const notify = persister.notify.bind(persister);
  try {
    const { event } = await newEvent({ maxTicketsPerCustomer: 2, ticketTypes: [{ name: 'GA', priceCents: 900, capacity: 2 }] });
    const tt = event.ticketTypes[0].id;
    const [a, paid, declined] = ['late-a', 'late-paid', 'late-declined'].map(customer) as [string, string, string];
    const held = await hold(event.id, a, { ticketTypeId: tt, quantity: 2 });
    const entries = [(await join(event.id, paid, { ticketTypeId: tt, quantity: 1 })).body.entry, (await join(event.id, declined, { ticketTypeId: tt, quantity: 1 })).body.entry];
    await flush(event.id);
    // The outbox falls behind (a drainer that died, PostgreSQL slow): the offers made now are not written yet.
    persister.notify = () => undefined;
    await release(held.id, a);
    const holdIds = await Promise.all(entries.map(async (e) => (await api.rt.redis.get(eventKeys(event.id).waitOffer(e.id)))!.split('|')[0]!));
    expect((await confirmVia(api, holdIds[0]!)).status).toBe(201);
    expect((await release(holdIds[1]!, declined)).status).toBe(200);
    persister.notify = notify;
    await flush(event.id);

    const states = await api.rt.db.$queryRawUnsafe<{ id: string; state: string; hold_id: string }[]>(
      'SELECT id::text, state, hold_id FROM waitlist_entries WHERE id = ANY($1::uuid[])', entries.map((e: { id: string }) => e.id));
    expect(Object.fromEntries(states.map((r) => [r.id, [r.state, r.hold_id]]))).toEqual({
      [entries[0].id]: ['purchased', holdIds[0]], [entries[1].id]: ['left', holdIds[1]],
    });
    const events = await api.rt.db.$queryRawUnsafe<{ type: string; ordering_key: string }[]>(
      `SELECT type, ordering_key FROM webhook_events ev WHERE ordering_key = ANY($1::text[])
       ORDER BY (SELECT min(seq) FROM webhook_deliveries d WHERE d.event_id = ev.id)`, holdIds);
    expect(events.map((e) => [e.type, e.ordering_key])).toEqual([['order.confirmed', holdIds[0]], ['hold.released', holdIds[1]]]);
    await expectInvariants(api.rt.db, event.id);
  } finally {
    persister.notify = notify;
    await dropTestWebhooks(api, [hook.body.webhook.id]);
  }
});

test('when an admin changes the offer time while a join from a process with the old settings runs, then offers take the new time; reconciliation writes it back if Redis lost it', async () => {
  const { event } = await newEvent({ maxTicketsPerCustomer: 2, waitlistOfferSeconds: 1800, ticketTypes: [{ name: 'GA', priceCents: 900, capacity: 1 }] });
  const tt = event.ticketTypes[0].id;
  const [a, b] = ['cfg-a', 'cfg-b'].map(customer) as [string, string];
  const held = await hold(event.id, a, { ticketTypeId: tt, quantity: 1 });
  expect((await join(event.id, b, { ticketTypeId: tt, quantity: 1 })).status).toBe(201);
  const patched = await api.call('PATCH', `/v1/admin/events/${event.id}`, { token: api.token('admin'), body: { waitlistOfferSeconds: 600 } });
  expect(patched.status).toBe(200);
  const cfg = eventKeys(event.id).waitConfig;
  expect(await api.rt.redis.hget(cfg, 'offerMs')).toBe('600000');
  // A join in another API process whose copy of the event is still the old one (it lasts up to a second).
  const stale = randomUUID();
  const joined = await api.rt.ctx.store.waitlistJoin({
    eventId: event.id, entryId: stale, seq: 1_000_000, customerId: customer('cfg-stale'), scope: `tt:${tt}`, quantity: 1,
    name: 'GA', priceCents: 900, currency: event.currency, offerMs: 1_800_000, maxPerCustomer: 2,
  });
  expect(joined.kind).toBe('ok');
  await api.rt.ctx.store.waitlistLeave(event.id, stale, `tt:${tt}`);
  expect(await api.rt.redis.hget(cfg, 'offerMs')).toBe('600000');
  // Redis's copy goes wrong anyway (a write lost in a failover): reconciliation writes PostgreSQL's back.
  await api.rt.redis.hset(cfg, 'offerMs', '1', 'max', '99');
  await reconcile(api.rt.ctx, new ReconcileStore(api.rt.redis));
  expect(await api.rt.redis.hmget(cfg, 'offerMs', 'max')).toEqual(['600000', '2']);

  await release(held.id, a);
  const offer = (await entryOf(event.id, b)).offer!;
  const offered = (await holdOf(offer.holdId, b)).body.hold;
  expect(Date.parse(offered.expiresAt) - Date.parse(offered.createdAt)).toBe(600_000);
  await flush(event.id);
  await expectInvariants(api.rt.db, event.id);
});

test('when Redis loses the event, then its next use loads the lines back from PostgreSQL in join order, and reconciliation puts back an entry a line lacks', async () => {
  const { event } = await newEvent({ maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 2, 'floor') });
  const [a, first, second, third] = ['a', 'first', 'second', 'third'].map(customer) as [string, string, string, string];
  const held = await hold(event.id, a, { tier: 'floor', quantity: 2 });
  for (const w of [first, second, third]) await join(event.id, w, { tier: 'floor', quantity: 1 });
  await flush(event.id);

  await forgetEventInRedis(api, event.id);
  // The next request loads the event (its live hold too) and the lines, in join order.
  expect((await holdPost(api, event.id, customer('outsider'), { tier: 'floor', quantity: 1 })).body.error.code).toBe('SOLD_OUT');
  expect((await Promise.all([first, second, third].map((w) => entryOf(event.id, w)))).map((e) => e.position)).toEqual([1, 2, 3]);

  // One line loses an entry (a failover to a replica behind): reconciliation puts it back in its place.
  const lost = (await entryOf(event.id, second)).id;
  await api.rt.redis.zrem(eventKeys(event.id).waitLine('t:floor'), lost);
  expect((await entryOf(event.id, third)).position).toBe(2);
  const report = await reconcile(api.rt.ctx, new ReconcileStore(api.rt.redis));
  expect(report.entries.filter((e) => e.eventId === event.id && e.kind === 'waitlist_restored')).toHaveLength(1);
  expect((await Promise.all([first, second, third].map((w) => entryOf(event.id, w)))).map((e) => e.position)).toEqual([1, 2, 3]);

  // And they are served in that order.
  await release(held.id, a);
  expect((await Promise.all([first, second, third].map((w) => entryOf(event.id, w)))).map((e) => e.state)).toEqual(['offered', 'offered', 'waiting']);
  await flush(event.id);
  await expectInvariants(api.rt.db, event.id);
});

describe('reconciliation putting entries back from an earlier read of PostgreSQL', () => {
  /** What reconciliation's walk sends for an entry it read as waiting (restoreWaitlist, joinInput). */
  async function putBack(event: { id: string; currency: string }, entryId: string, customerId: string) {
    const rows = await api.rt.db.$queryRawUnsafe<{ seq: bigint }[]>('SELECT seq FROM waitlist_entries WHERE id = $1::uuid', entryId);
    return api.rt.ctx.store.waitlistJoin({
      eventId: event.id, entryId, seq: Number(rows[0]?.seq ?? 1), customerId, scope: 't:floor', quantity: 1,
      currency: event.currency, offerMs: 120_000, maxPerCustomer: 2, restore: true,
    });
  }

  test('when a customer leaves the line after the walk read it, then the walk does not put the entry back and what comes back goes to the next buyer', async () => {
    const { event } = await newEvent({ maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 1, 'floor') });
    const [a, w, b] = ['a', 'w', 'b'].map(customer) as [string, string, string];
    const held = await hold(event.id, a, { tier: 'floor', quantity: 1 });
    const entry = (await join(event.id, w, { tier: 'floor', quantity: 1 })).body.entry;
    const left = await api.call('DELETE', `/v1/events/${event.id}/waitlist/${entry.id}`, { token: api.token('customer', w) });
    expect(left.body.entry).toMatchObject({ id: entry.id, state: 'left' });

    expect(await putBack(event, entry.id, w)).toEqual({ kind: 'gone' });
    expect(await api.rt.redis.zscore(eventKeys(event.id).waitLine('t:floor'), entry.id)).toBeNull();
    // The seat that comes back is nobody's offer: the next buyer holds it.
    await release(held.id, a);
    expect((await holdPost(api, event.id, b, { tier: 'floor', quantity: 1 })).status).toBe(201);
    expect((await entryOf(event.id, w)).state).toBe('left');
    await flush(event.id);
    await expectInvariants(api.rt.db, event.id);
  });

  test('when a join is answered WAITLIST_NOT_NEEDED after the walk read its row, then the walk does not put that entry in line', async () => {
    const { event } = await newEvent({ maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 1, 1, 'floor') });
    const w = customer('w');
    const res = await join(event.id, w, { tier: 'floor', quantity: 1 });
    expect(res.body.error.code).toBe('WAITLIST_NOT_NEEDED');
    // The entry's row is gone; Redis marked its id (the walk would have read the row before it was deleted).
    const [, marks] = await scanOn(api, '0', 'MATCH', `${eventKeys(event.id).waitGone('')}*`, 'COUNT', 1000);
    expect(marks).toHaveLength(1);
    const entryId = marks[0]!.slice(eventKeys(event.id).waitGone('').length);
    expect(await putBack(event, entryId, w)).toEqual({ kind: 'gone' });
    expect(await api.rt.redis.zcard(eventKeys(event.id).waitLine('t:floor'))).toBe(0);
    expect((await holdPost(api, event.id, customer('b'), { tier: 'floor', quantity: 1 })).status).toBe(201);
  });
});

test('when an admin reads an event\'s waiting list and removes entries, then it lists place, customer, quantity, state and offer in join order, and a removal is audited and releases an open offer', async () => {
  const { event } = await newEvent({ maxTicketsPerCustomer: 3, ticketTypes: [{ name: 'GA', priceCents: 700, capacity: 1 }] });
  const tt = event.ticketTypes[0].id;
  const [a, b, c] = ['adm-a', 'adm-b', 'adm-c'].map(customer) as [string, string, string];
  const admin = api.token('admin', customer('box-office'));
  const held = await hold(event.id, a, { ticketTypeId: tt, quantity: 1 });
  const eb = (await join(event.id, b, { ticketTypeId: tt, quantity: 1 })).body.entry;
  const ec = (await join(event.id, c, { ticketTypeId: tt, quantity: 1 })).body.entry;

  const list = await api.call('GET', `/v1/admin/events/${event.id}/waitlist`, { token: admin });
  expect(list.body.entries).toEqual([
    { id: eb.id, customerId: b, state: 'waiting', position: 1, ticketTypeId: tt, quantity: 1, createdAt: eb.createdAt, offer: null },
    { id: ec.id, customerId: c, state: 'waiting', position: 2, ticketTypeId: tt, quantity: 1, createdAt: ec.createdAt, offer: null },
  ]);
  expect((await api.call('GET', `/v1/admin/events/${event.id}/waitlist`, { token: api.token('customer', b) })).status).toBe(403);
  const unknown = await api.call('DELETE', `/v1/admin/events/${event.id}/waitlist/00000000-0000-4000-8000-000000000000`, { token: admin, body: { reason: 'x' } });
  expect(unknown.body.error.code).toBe('WAITLIST_ENTRY_NOT_FOUND');
  expect((await api.call('DELETE', `/v1/admin/events/${event.id}/waitlist/${eb.id}`, { token: admin, body: {} })).status).toBe(400);

  const removed = await api.call('DELETE', `/v1/admin/events/${event.id}/waitlist/${eb.id}`, { token: admin, body: { reason: 'duplicate account' } });
  expect(removed.body.entry).toMatchObject({ id: eb.id, customerId: b, state: 'removed' });
  expect(await entryOf(event.id, c)).toMatchObject({ state: 'waiting', position: 1 });

  // C is offered the ticket; removing C then releases the offer, and with nobody waiting the ticket is free.
  await release(held.id, a);
  const offered = (await api.call('GET', `/v1/admin/events/${event.id}/waitlist`, { token: admin })).body.entries;
  expect(offered).toEqual([expect.objectContaining({ id: ec.id, state: 'offered', position: null, offer: { holdId: expect.any(String), expiresAt: expect.any(String) } })]);
  const sales = (await api.call('GET', `/v1/admin/events/${event.id}/sales`, { token: admin })).body.sales;
  expect(sales.waitlist).toEqual({ waiting: 0, offered: 1, tiers: [], ticketTypes: [{ id: tt, waiting: 0, offered: 1 }] });
  await api.call('DELETE', `/v1/admin/events/${event.id}/waitlist/${ec.id}`, { token: admin, body: { reason: 'asked by phone' } });
  expect((await holdOf(offered[0].offer.holdId, c)).body.hold).toMatchObject({ status: 'released', releasedBy: 'admin' });
  expect((await holdPost(api, event.id, customer('adm-d'), { ticketTypeId: tt, quantity: 1 })).status).toBe(201);

  const audit = await api.call('GET', `/v1/admin/audit?limit=100&eventId=${event.id}`, { token: admin });
  expect(audit.body.entries.filter((e: { action: string }) => e.action === 'waitlist.removed').map((e: { reason: string }) => e.reason))
    .toEqual(['duplicate account', 'asked by phone']);
  expect((await api.call('GET', `/v1/admin/events/${event.id}/waitlist`, { token: admin })).body.entries).toEqual([]);
  await flush(event.id);
  await expectInvariants(api.rt.db, event.id);
});

test('when leases lapse with no expiry job yet and hundreds of buyers hammer the tier, then the lapsed seats go to the line, none to the buyers', async () => {
  const seats = 12;
  const { event } = await newEvent({ holdTtlSeconds: 3, maxTicketsPerCustomer: 2, seats: seatGrid(['A'], 2, seats / 2, 'floor') });
  const holders = Array.from({ length: seats }, (_, i) => customer(`lapse-holder${i}`));
  const held = await Promise.all(holders.map((h) => hold(event.id, h, { tier: 'floor', quantity: 1 })));
  const waiters = Array.from({ length: seats }, (_, i) => customer(`lapse-waiter${i}`));
  for (const w of waiters) expect((await join(event.id, w, { tier: 'floor', quantity: 1 })).status).toBe(201);
  await sleepUntil(held.map((h) => h.expiresAt).sort().at(-1)!, 150);

  const attempts = await Promise.all(Array.from({ length: 300 }, (_, i) =>
    holdPost(api, event.id, customer(`lapse-bot${i}`), { tier: 'floor', quantity: 1 })));
  expect(attempts.filter((r) => r.status === 201)).toEqual([]);
  const entries = await Promise.all(waiters.map((w) => entryOf(event.id, w)));
  expect(entries.map((e) => e.state)).toEqual(waiters.map(() => 'offered'));
  const offered = await Promise.all(entries.map(async (e, i) => (await holdOf(e.offer!.holdId, waiters[i]!)).body.hold.items[0].seatId as string));
  expect(new Set(offered).size).toBe(seats);
  await flush(event.id);
  await expectInvariants(api.rt.db, event.id);
});

test('when an offer is paid through the Stripe webhook, then it becomes the customer\'s order like any hold', async () => {
  const { event } = await newEvent({ currency: 'EUR', ticketTypes: [{ name: 'GA', priceCents: 4200, capacity: 1 }] });
  const tt = event.ticketTypes[0].id;
  const [a, b] = ['stripe-a', 'stripe-b'].map(customer) as [string, string];
  const held = await hold(event.id, a, { ticketTypeId: tt, quantity: 1 });
  await join(event.id, b, { ticketTypeId: tt, quantity: 1 });
  await release(held.id, a);
  const offer = (await entryOf(event.id, b)).offer!;
  expect((await deliverEvent(api, paymentIntentEvent({ holdId: offer.holdId, amount: 4200, currency: 'eur' }))).status).toBe(200);
  const orders = await ordersOfHold(api, offer.holdId);
  expect(orders.map((o) => ({ customerId: o.customerId, totalCents: o.totalCents }))).toEqual([{ customerId: b, totalCents: 4200 }]);
  await flush(event.id);
  expect((await entryOf(event.id, b)).state).toBe('purchased');
  await expectInvariants(api.rt.db, event.id);
});
