// Redis freezes (SIGSTOP) under a hold: the buyer is answered 503 within about
// a second, and Redis runs what it was sent once it answers again. The API gives
// a hold whose script got no answer back on the same connection right after
// it, and releases an Idempotency-Key whose claim got none, so the buyer's retry
// finds the seats or tickets free (not held by a hold nobody was told of) and
// the key free (not "in progress" for a minute). The test runs its own redis-server.
import { createTestEvent, dropTestEvent, holdPost, seatGrid, useTestApi, waitFor } from '@holdfast/test-kit';

const { api, redis } = useTestApi({}, { privateRedis: true });

/** The hold, sent while Redis is frozen: answered 503 (Redis) within 2 s. Redis answers again after. */
async function frozenHold(eventId: string, customerId: string, body: unknown, key?: string) {
  redis.pause();
  try {
    const started = Date.now();
    const res = await holdPost(api, eventId, customerId, body, key ? { 'Idempotency-Key': key } : undefined);
    expect(Date.now() - started).toBeLessThan(2000);
    expect({ status: res.status, dependency: res.body.error?.details?.dependency }).toEqual({ status: 503, dependency: 'Redis' });
  } finally {
    redis.resume();
  }
}

/** The retry: once Redis answers, the same request (with the same key) is 201. */
async function retried(eventId: string, customerId: string, body: unknown, key?: string) {
  const res = await waitFor('a retry answered other than 503', async () => {
    const r = await holdPost(api, eventId, customerId, body, key ? { 'Idempotency-Key': key } : undefined);
    return r.status !== 503 && r;
  }, { timeoutMs: 10_000, intervalMs: 100 });
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 201, error: undefined });
  return res.body.hold as { id: string; items: { seatId?: string; quantity: number }[] };
}

/**
 * The buyer's holds PostgreSQL has once the outbox is drained: the hold script that got no
 * answer ran after all (its row, given back in Redis) beside the retry's.
 */
async function heldRows(eventId: string, customerId: string): Promise<number> {
  await api.rt.ctx.persister.flush([eventId]);
  return api.rt.db.hold.count({ where: { eventId, customerId } });
}

test('when Redis freezes under a seat hold, then the buyer is answered 503 and the retry gets the seat', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 3) });
  try {
    expect((await holdPost(api, event.id, 'frozen-warm', { seatIds: [seats[2]!.id] })).status).toBe(201); // primes the event
    const body = { seatIds: [seats[0]!.id, seats[1]!.id] };
    await frozenHold(event.id, 'frozen-seats', body);
    const hold = await retried(event.id, 'frozen-seats', body);
    expect(hold.items.map((i) => i.seatId).sort()).toEqual([seats[0]!.id, seats[1]!.id].sort());
    expect(await heldRows(event.id, 'frozen-seats')).toBe(2);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when Redis freezes under a hold of every ticket left, then the tickets come back and the retry gets them all', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 4 }] });
  try {
    const tt = event.ticketTypes[0].id;
    expect((await holdPost(api, event.id, 'frozen-warm', { ticketTypeId: tt, quantity: 1 })).status).toBe(201);
    const body = { ticketTypeId: tt, quantity: 3 };
    await frozenHold(event.id, 'frozen-tickets', body);
    const hold = await retried(event.id, 'frozen-tickets', body);
    expect(hold.items[0]!.quantity).toBe(3);
    expect((await api.call('GET', `/v1/events/${event.id}`)).body.event.ticketTypes[0].available).toBe(0);
    expect(await heldRows(event.id, 'frozen-tickets')).toBe(2);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when Redis freezes under a best-available hold of a whole tier, then the seats come back and the retry gets them', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 3) });
  try {
    expect((await holdPost(api, event.id, 'frozen-warm', { tier: 'standard', quantity: 1 })).status).toBe(201);
    const body = { tier: 'standard', quantity: 2 };
    await frozenHold(event.id, 'frozen-best', body);
    const hold = await retried(event.id, 'frozen-best', body);
    expect(hold.items).toHaveLength(2);
    // The tier had two seats left: the retry has both, nobody else can take one.
    expect((await holdPost(api, event.id, 'frozen-other', { tier: 'standard', quantity: 1 })).body.error.code).toBe('SOLD_OUT');
    expect(new Set(hold.items.map((i) => i.seatId)).size).toBe(2);
    expect(seats.map((s) => s.id)).toEqual(expect.arrayContaining(hold.items.map((i) => i.seatId)));
    expect(await heldRows(event.id, 'frozen-best')).toBe(2);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when Redis freezes under a hold sent with an Idempotency-Key, then the retry with the same key runs afresh (not 409 in progress) and gets the seat', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
  try {
    // Primes the event, and loads the key's scripts as any keyed request before the freeze does.
    expect((await holdPost(api, event.id, 'frozen-warm', { seatIds: [seats[1]!.id] }, { 'Idempotency-Key': 'frozen-warm-1' })).status).toBe(201);
    const body = { seatIds: [seats[0]!.id] };
    await frozenHold(event.id, 'frozen-keyed', body, 'frozen-keyed-1');
    const hold = await retried(event.id, 'frozen-keyed', body, 'frozen-keyed-1');
    expect(hold.items.map((i) => i.seatId)).toEqual([seats[0]!.id]);
    // The answer is kept for the key now: the same request replays it.
    const again = await holdPost(api, event.id, 'frozen-keyed', body, { 'Idempotency-Key': 'frozen-keyed-1' });
    expect({ status: again.status, id: again.body.hold?.id, replayed: again.headers.get('idempotent-replayed') }).toEqual({ status: 201, id: hold.id, replayed: 'true' });
    await api.rt.ctx.persister.flush([event.id]);
  } finally {
    await dropTestEvent(api, event.id);
  }
});
