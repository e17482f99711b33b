// Many buyers at once, real parallel requests against real PostgreSQL and Redis:
// every invariant is checked on what Redis, the seat map and PostgreSQL hold afterwards.
import { createTestEvent, dropTestEvent, seatGrid, useTestApi, expectPersisted, holdPost, seatIdsOf, seatOwners, seatStatuses, seeded, tally, ticketsAvailable, type Reply } from '@holdfast/test-kit';

const { api } = useTestApi();

const run = `${process.pid}-${Date.now().toString(36)}`;
const created = (replies: Reply[]) => replies.filter((r) => r.status === 201).map((r) => r.body.hold);

test('when 200 customers hold the same seat at once, then exactly one gets it and 199 get SEATS_UNAVAILABLE', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 5) });
  try {
    const seat = seats[2]!;
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) => holdPost(api, event.id, `one-seat-${run}-${i}`, { seatIds: [seat.id] })),
    );
    expect(tally(replies)).toEqual({ '201': 1, '409 SEATS_UNAVAILABLE': 199 });
    for (const r of replies.filter((x) => x.status === 409)) expect(r.body.error.details.seatIds).toEqual([seat.id]);
    const [winner] = created(replies);
    expect(seatIdsOf(winner)).toEqual([seat.id]);
    expect((await seatOwners(api, event.id, seats.map((s) => s.id))).get(seat.id)).toBe(winner.id);
    const map = await seatStatuses(api, event.id);
    expect(seats.filter((s) => map.get(s.id) === 'held').map((s) => s.id)).toEqual([seat.id]);
    await expectPersisted(api, event.id, [winner.id]);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when 100 customers hold overlapping runs of 2 to 4 adjacent seats at once, then no seat is shared and no hold is partial', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 20) });
  try {
    const byNumber = [...seats].sort((a, b) => Number(a.label.split('-')[2]) - Number(b.label.split('-')[2]));
    const rnd = seeded(20261122);
    const asks = Array.from({ length: 100 }, () => {
      const size = 2 + Math.floor(rnd() * 3);
      const start = Math.floor(rnd() * (20 - size + 1));
      return byNumber.slice(start, start + size).map((s) => s.id);
    });
    const replies = await Promise.all(asks.map((seatIds, i) => holdPost(api, event.id, `runs-${run}-${i}`, { seatIds })));
    const holds = created(replies);
    expect(holds.length).toBeGreaterThan(0);
    expect(holds.length + (tally(replies)['409 SEATS_UNAVAILABLE'] ?? 0)).toBe(100);

    // Each winner got exactly what it asked for; no seat belongs to two winners.
    const ownerOf = new Map<string, string>();
    replies.forEach((r, i) => {
      if (r.status !== 201) return;
      expect(seatIdsOf(r.body.hold)).toEqual(asks[i]);
      for (const id of asks[i]!) {
        expect(ownerOf.has(id)).toBe(false);
        ownerOf.set(id, r.body.hold.id);
      }
    });
    // Every refused request names only seats that a winner holds.
    for (const r of replies.filter((x) => x.status === 409)) {
      expect(r.body.error.details.seatIds.length).toBeGreaterThan(0);
      for (const id of r.body.error.details.seatIds) expect(ownerOf.has(id)).toBe(true);
    }
    // Redis and the seat map agree with the winners, seat by seat.
    const owners = await seatOwners(api, event.id, seats.map((s) => s.id));
    const map = await seatStatuses(api, event.id);
    for (const s of seats) {
      expect(owners.get(s.id)).toBe(ownerOf.get(s.id) ?? null);
      expect(map.get(s.id)).toBe(ownerOf.has(s.id) ? 'held' : 'available');
    }
    await expectPersisted(api, event.id, holds.map((h) => h.id));
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when 300 buyers ask for one of 40 general-admission tickets at once, then exactly 40 are held and none is left', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 2500, capacity: 40 }] });
  try {
    const tt = event.ticketTypes[0].id;
    const replies = await Promise.all(
      Array.from({ length: 300 }, (_, i) => holdPost(api, event.id, `ga1-${run}-${i}`, { ticketTypeId: tt, quantity: 1 })),
    );
    expect(tally(replies)).toEqual({ '201': 40, '409 SOLD_OUT': 260 });
    expect(await ticketsAvailable(api, event.id)).toBe(0);
    await expectPersisted(api, event.id, created(replies).map((h) => h.id));
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when 300 buyers ask for 1 to 4 of 40 tickets at once, then never more than 40 are held and the rest can still be bought', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 2500, capacity: 40 }] });
  try {
    const tt = event.ticketTypes[0].id;
    const rnd = seeded(40);
    const quantities = Array.from({ length: 300 }, () => 1 + Math.floor(rnd() * 4));
    const replies = await Promise.all(
      quantities.map((quantity, i) => holdPost(api, event.id, `gamix-${run}-${i}`, { ticketTypeId: tt, quantity })),
    );
    const counts = tally(replies);
    expect((counts['201'] ?? 0) + (counts['409 SOLD_OUT'] ?? 0)).toBe(300);
    let held = 0;
    replies.forEach((r, i) => {
      if (r.status === 201) {
        expect(r.body.hold.items).toEqual([expect.objectContaining({ ticketTypeId: tt, quantity: quantities[i] })]);
        held += quantities[i]!;
      } else {
        // SOLD_OUT only when fewer tickets than asked were left.
        expect(r.body.error.details.available).toBeLessThan(quantities[i]!);
      }
    });
    expect(held).toBeLessThanOrEqual(40);
    const left = await ticketsAvailable(api, event.id);
    expect(left).toBe(40 - held);
    // Nothing was given back meanwhile, so what is left now is at most what any refusal saw.
    for (const r of replies.filter((x) => x.status === 409)) expect(left).toBeLessThanOrEqual(r.body.error.details.available);
    // The remainder goes one by one to new buyers, and then nothing more.
    const rest = await Promise.all(
      Array.from({ length: left + 5 }, (_, i) => holdPost(api, event.id, `garest-${run}-${i}`, { ticketTypeId: tt, quantity: 1 })),
    );
    expect(tally(rest)).toEqual(left ? { '201': left, '409 SOLD_OUT': 5 } : { '409 SOLD_OUT': 5 });
    expect(await ticketsAvailable(api, event.id)).toBe(0);
    await expectPersisted(api, event.id, [...created(replies), ...created(rest)].map((h) => h.id));
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when 60 buyers ask for the best 2 of 41 seats at once, then 20 pairs are held, nobody shares a seat and SOLD_OUT comes only when one seat is left', async () => {
  // Three rows at three prices, so the best pairs run out row by row.
  const seatsIn = [
    ...seatGrid(['A'], 1, 14, 'floor', 9000),
    ...seatGrid(['B'], 1, 14, 'floor', 7000),
    ...seatGrid(['C'], 1, 13, 'floor', 5000),
  ];
  const { event, seats } = await createTestEvent(api, { seats: seatsIn });
  try {
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, i) => holdPost(api, event.id, `best-${run}-${i}`, { tier: 'floor', quantity: 2 })),
    );
    expect(tally(replies)).toEqual({ '201': 20, '409 SOLD_OUT': 40 });
    const holds = created(replies);
    const taken = new Set<string>();
    for (const h of holds) {
      for (const id of seatIdsOf(h)) {
        expect(taken.has(id)).toBe(false);
        taken.add(id);
      }
    }
    expect(taken.size).toBe(40);
    for (const r of replies.filter((x) => x.status === 409)) expect(r.body.error.details.available).toBeLessThan(2);
    const map = await seatStatuses(api, event.id);
    const owners = await seatOwners(api, event.id, seats.map((s) => s.id));
    expect(seats.filter((s) => map.get(s.id) === 'available')).toHaveLength(1);
    for (const h of holds) for (const id of seatIdsOf(h)) expect(owners.get(id)).toBe(h.id);
    await expectPersisted(api, event.id, holds.map((h) => h.id));
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when one customer sends 20 holds of 1 ticket at once with a limit of 5, then exactly 5 succeed and 15 get LIMIT_EXCEEDED', async () => {
  const { event } = await createTestEvent(api, {
    maxTicketsPerCustomer: 5, ticketTypes: [{ name: 'GA', priceCents: 2500, capacity: 100 }],
  });
  try {
    const tt = event.ticketTypes[0].id;
    const customer = `greedy-${run}`;
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => holdPost(api, event.id, customer, { ticketTypeId: tt, quantity: 1 })),
    );
    expect(tally(replies)).toEqual({ '201': 5, '422 LIMIT_EXCEEDED': 15 });
    for (const r of replies.filter((x) => x.status === 422)) expect(r.body.error.details).toEqual({ limit: 5, inUse: 5 });
    expect(await ticketsAvailable(api, event.id)).toBe(95);
    await expectPersisted(api, event.id, created(replies).map((h) => h.id));
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when one customer holds seats and tickets at once with a limit of 5, then seats and tickets count together and never pass it', async () => {
  const { event, seats } = await createTestEvent(api, {
    maxTicketsPerCustomer: 5, seats: seatGrid(['A'], 2, 10), ticketTypes: [{ name: 'GA', priceCents: 2500, capacity: 100 }],
  });
  try {
    const tt = event.ticketTypes[0].id;
    const customer = `mixed-${run}`;
    const replies = await Promise.all([
      ...seats.slice(0, 12).map((s) => holdPost(api, event.id, customer, { seatIds: [s.id] })),
      ...Array.from({ length: 6 }, () => holdPost(api, event.id, customer, { ticketTypeId: tt, quantity: 2 })),
    ]);
    const holds = created(replies);
    const inHolds = holds.reduce((t, h) => t + h.items.reduce((q: number, i: { quantity: number }) => q + i.quantity, 0), 0);
    expect(inHolds).toBeLessThanOrEqual(5);
    expect(holds.length + (tally(replies)['422 LIMIT_EXCEEDED'] ?? 0)).toBe(18);
    // A refusal saw tickets in use that, with its own quantity, would pass 5; they are still in use.
    replies.forEach((r, i) => {
      if (r.status !== 422) return;
      expect(r.body.error.details.inUse + (i < 12 ? 1 : 2)).toBeGreaterThan(5);
      expect(inHolds).toBeGreaterThanOrEqual(r.body.error.details.inUse);
    });
    const heldSeats = new Set(holds.flatMap(seatIdsOf));
    const map = await seatStatuses(api, event.id);
    for (const s of seats) expect(map.get(s.id)).toBe(heldSeats.has(s.id) ? 'held' : 'available');
    const gaHeld = holds.filter((h) => !seatIdsOf(h).length).length * 2;
    expect(await ticketsAvailable(api, event.id)).toBe(100 - gaHeld);
    await expectPersisted(api, event.id, holds.map((h) => h.id));
  } finally {
    await dropTestEvent(api, event.id);
  }
});
