// Hold extension through HTTP: the limit and the cap per event, refusals for holds
// that ended (expired, released, confirmed) or belong to someone else, concurrent
// extends, and an expiry racing an extend (the hold ends up extended or expired, never half).
import { expireHold } from '@holdfast/domain';
import { eventKeys } from '@holdfast/hold-store';
import { seatGrid, useTestApi, type TestApi, confirmVia, holdSeats, holdTickets, rid, sleep, sleepUntil, waitUntilExpired } from '@holdfast/test-kit';

const suite = useTestApi();
const { newEvent } = suite;

const extend = (api: TestApi, holdId: string, token: string) => api.call('POST', `/v1/holds/${holdId}/extend`, { token });

/** What both stores say of a hold: PostgreSQL's row, Redis's record and each lease's owner and remaining ms. */
async function stateOf(api: TestApi, eventId: string, holdId: string, seatIds: string[], ticketTypeId?: string) {
  await api.rt.ctx.persister.flush();
  const [row] = await api.rt.db.$queryRaw<{ status: string; expiresAt: Date; extensions: number }[]>`
    SELECT status::text, expires_at AS "expiresAt", extensions FROM holds WHERE id = ${holdId}`;
  const k = eventKeys(eventId);
  const record = await api.rt.redis.hgetall(k.hold(holdId));
  const seats = await Promise.all(seatIds.map(async (s) => ({
    owner: await api.rt.redis.get(k.seat(s)), pexpireAt: Number(await api.rt.redis.call('PEXPIRETIME', k.seat(s))),
  })));
  const ticketLease = ticketTypeId ? await api.rt.redis.zscore(k.ticketTypeExpiry(ticketTypeId), holdId) : null;
  return { row, record, seats, ticketLease: ticketLease === null ? null : Number(ticketLease) };
}

test('when the owner extends a seat hold, then expiresAt moves to now + the hold time in PostgreSQL and on every seat key, and the seats stay held past the old time', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 2, maxHoldSeconds: 60, seats: seatGrid(['A'], 1, 3) });
  const buyer = rid('buyer');
  const seatIds = [seats[0]!.id, seats[2]!.id];
  const hold = await holdSeats(suite.api, event.id, buyer, seatIds);
  await sleep(600); // time passes, so the extension moves expiresAt visibly past the old one
  const before = Date.now();
  const res = await extend(suite.api, hold.id, suite.api.token('customer', buyer));
  expect(res.status).toBe(200);
  const extended = res.body.hold;
  expect(extended).toMatchObject({ id: hold.id, status: 'active', extensions: 1 });
  const newExp = Date.parse(extended.expiresAt);
  expect(newExp).toBeGreaterThan(Date.parse(hold.expiresAt) + 400);
  expect(newExp).toBeGreaterThanOrEqual(before + 2000 - 50);
  expect(newExp).toBeLessThanOrEqual(Date.now() + 2000 + 50);

  const s = await stateOf(suite.api, event.id, hold.id, seatIds);
  expect(s.row).toEqual({ status: 'ACTIVE', expiresAt: new Date(newExp), extensions: 1 });
  expect(Number(s.record.expiresAt)).toBe(newExp);
  expect(s.seats).toEqual(seatIds.map(() => ({ owner: hold.id, pexpireAt: newExp })));
  expect(await suite.api.rt.redis.zscore(eventKeys(event.id).held, seatIds[0]!)).toBe(String(newExp));

  await waitUntilExpired(hold);
  const other = await suite.api.call('POST', `/v1/events/${event.id}/holds`, { token: suite.api.token('customer', rid('other')), body: { seatIds: [seatIds[0]] } });
  expect(other.body.error?.code).toBe('SEATS_UNAVAILABLE');
  const read = await suite.api.call('GET', `/v1/holds/${hold.id}`, { token: suite.api.token('customer', buyer) });
  expect(read.body.hold).toMatchObject({ status: 'active', expiresAt: extended.expiresAt, extensions: 1 });
  // And it still confirms after its first expiresAt.
  expect((await confirmVia(suite.api, hold.id)).status).toBe(201);
});

test('when a general-admission hold is extended, then its ticket lease moves too and the tickets stay taken past the old time', async () => {
  const { event } = await newEvent({ holdTtlSeconds: 1, ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 2 }] });
  const tt = event.ticketTypes[0].id;
  const buyer = rid('buyer');
  const hold = await holdTickets(suite.api, event.id, buyer, tt, 2);
  const res = await extend(suite.api, hold.id, suite.api.token('customer', buyer));
  expect(res.status).toBe(200);
  const newExp = Date.parse(res.body.hold.expiresAt);
  const s = await stateOf(suite.api, event.id, hold.id, [], tt);
  expect(s.ticketLease).toBe(newExp);
  expect(s.record.expiresAt).toBe(String(newExp));
  expect(s.row?.expiresAt.getTime()).toBe(newExp);
  await waitUntilExpired(hold);
  if (Date.now() < newExp - 100) {
    const other = await suite.api.call('POST', `/v1/events/${event.id}/holds`, { token: suite.api.token('customer', rid('o')), body: { ticketTypeId: tt, quantity: 1 } });
    expect(other.body.error?.code).toBe('SOLD_OUT');
  }
  await waitUntilExpired(res.body.hold);
  const again = await suite.api.call('POST', `/v1/events/${event.id}/holds`, { token: suite.api.token('customer', rid('o')), body: { ticketTypeId: tt, quantity: 2 } });
  expect(again.status).toBe(201);
});

test('when a hold was extended maxHoldExtensions times, then the next extend is 409 HOLD_EXTENSION_LIMIT and nothing moves; 0 allows none', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 30, maxHoldExtensions: 1, maxHoldSeconds: 600, seats: seatGrid(['A'], 1, 2) });
  const buyer = rid('buyer');
  const hold = await holdSeats(suite.api, event.id, buyer, [seats[0]!.id]);
  await sleep(20); // a later now, so an extension moves expiresAt
  const first = await extend(suite.api, hold.id, suite.api.token('customer', buyer));
  expect(first.status).toBe(200);
  await sleep(20); // a later now, so an extension moves expiresAt
  const second = await extend(suite.api, hold.id, suite.api.token('customer', buyer));
  expect(second.status).toBe(409);
  expect(second.body.error).toMatchObject({ code: 'HOLD_EXTENSION_LIMIT', details: { maxHoldExtensions: 1 } });
  const s = await stateOf(suite.api, event.id, hold.id, [seats[0]!.id]);
  expect(s.row).toMatchObject({ extensions: 1, expiresAt: new Date(first.body.hold.expiresAt) });
  expect(s.seats[0]!.pexpireAt).toBe(Date.parse(first.body.hold.expiresAt));

  const none = await newEvent({ holdTtlSeconds: 30, maxHoldExtensions: 0, seats: seatGrid(['A'], 1, 1) });
  const h2 = await holdSeats(suite.api, none.event.id, buyer, [none.seats[0]!.id]);
  const refused = await extend(suite.api, h2.id, suite.api.token('customer', buyer));
  expect(refused.body.error?.code).toBe('HOLD_EXTENSION_LIMIT');
});

test('when an extension would pass createdAt + maxHoldSeconds, then it stops at that cap, and once there the next is 409 HOLD_TIME_CAP', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 4, maxHoldExtensions: 5, maxHoldSeconds: 5, seats: seatGrid(['A'], 1, 1) });
  const buyer = rid('buyer');
  const hold = await holdSeats(suite.api, event.id, buyer, [seats[0]!.id]);
  const read = await suite.api.call('GET', `/v1/holds/${hold.id}`, { token: suite.api.token('customer', buyer) });
  const createdAt = Date.parse(read.body.hold.createdAt);
  await sleep(1500); // time passes, so now + the hold time is past the cap
  const capped = await extend(suite.api, hold.id, suite.api.token('customer', buyer));
  expect(capped.status).toBe(200);
  expect(Date.parse(capped.body.hold.expiresAt)).toBe(createdAt + 5000);
  const again = await extend(suite.api, hold.id, suite.api.token('customer', buyer));
  expect(again.status).toBe(409);
  expect(again.body.error).toMatchObject({ code: 'HOLD_TIME_CAP', details: { maxHoldSeconds: 5, expiresAt: new Date(createdAt + 5000).toISOString() } });
  expect((await stateOf(suite.api, event.id, hold.id, [seats[0]!.id])).row?.extensions).toBe(1);

  // A hold made with its whole allowance is at the cap from the start.
  const full = await newEvent({ holdTtlSeconds: 10, maxHoldSeconds: 10, seats: seatGrid(['A'], 1, 1) });
  const h2 = await holdSeats(suite.api, full.event.id, buyer, [full.seats[0]!.id]);
  expect((await extend(suite.api, h2.id, suite.api.token('customer', buyer))).body.error?.code).toBe('HOLD_TIME_CAP');
});

test('when the hold expired, was released or was confirmed, then extend is refused with HOLD_EXPIRED, HOLD_NOT_ACTIVE or HOLD_ALREADY_CONFIRMED and nothing is taken again', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 1, seats: seatGrid(['A'], 1, 3) });
  const buyer = rid('buyer');
  const token = suite.api.token('customer', buyer);
  const expired = await holdSeats(suite.api, event.id, buyer, [seats[0]!.id]);
  const released = await holdSeats(suite.api, event.id, buyer, [seats[1]!.id]);
  const confirmed = await holdSeats(suite.api, event.id, buyer, [seats[2]!.id]);
  expect((await suite.api.call('DELETE', `/v1/holds/${released.id}`, { token })).status).toBe(200);
  expect((await confirmVia(suite.api, confirmed.id)).status).toBe(201);
  await waitUntilExpired(expired);

  const e = await extend(suite.api, expired.id, token);
  expect([e.status, e.body.error?.code]).toEqual([409, 'HOLD_EXPIRED']);
  const r = await extend(suite.api, released.id, token);
  expect([r.status, r.body.error?.code]).toEqual([409, 'HOLD_NOT_ACTIVE']);
  const c = await extend(suite.api, confirmed.id, token);
  expect([c.status, c.body.error?.code]).toEqual([409, 'HOLD_ALREADY_CONFIRMED']);

  const s = await stateOf(suite.api, event.id, expired.id, [seats[0]!.id]);
  expect(s.seats[0]!.owner).toBeNull();
  expect(s.row?.extensions).toBe(0);
  expect((await stateOf(suite.api, event.id, released.id, [seats[1]!.id])).seats[0]!.owner).toBeNull();
});

test('when a stranger, a service or nobody asks, then 404, 403 or 401; an admin may extend anyone\'s hold; a bad body is 400', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 30, maxHoldExtensions: 2, seats: seatGrid(['A'], 1, 1) });
  const buyer = rid('buyer');
  const hold = await holdSeats(suite.api, event.id, buyer, [seats[0]!.id]);
  const stranger = await extend(suite.api, hold.id, suite.api.token('customer', rid('stranger')));
  expect([stranger.status, stranger.body.error?.code]).toEqual([404, 'HOLD_NOT_FOUND']);
  expect((await extend(suite.api, hold.id, suite.api.token('service'))).status).toBe(403);
  expect((await suite.api.call('POST', `/v1/holds/${hold.id}/extend`)).status).toBe(401);
  const bad = await suite.api.call('POST', `/v1/holds/${hold.id}/extend`, { token: suite.api.token('customer', buyer), body: { seconds: 60 } });
  expect([bad.status, bad.body.error?.code]).toEqual([400, 'VALIDATION_FAILED']);
  const unknown = await extend(suite.api, 'hld_nothing', suite.api.token('customer', buyer));
  expect([unknown.status, unknown.body.error?.code]).toEqual([404, 'HOLD_NOT_FOUND']);
  expect((await stateOf(suite.api, event.id, hold.id, [seats[0]!.id])).row?.extensions).toBe(0);
  await sleep(20); // a later now, so an extension moves expiresAt
  const admin = await extend(suite.api, hold.id, suite.api.token('admin'));
  expect([admin.status, admin.body.hold?.extensions]).toEqual([200, 1]);
});

test('when ten extends of one hold run at once, then exactly maxHoldExtensions succeed and both stores agree on the last expiry', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 30, maxHoldExtensions: 1, seats: seatGrid(['A'], 1, 2) });
  const buyer = rid('buyer');
  const hold = await holdSeats(suite.api, event.id, buyer, [seats[0]!.id, seats[1]!.id]);
  await sleep(20); // a later now, so an extension moves expiresAt
  const token = suite.api.token('customer', buyer);
  const replies = await Promise.all(Array.from({ length: 10 }, () => extend(suite.api, hold.id, token)));
  const ok = replies.filter((r) => r.status === 200);
  expect(ok).toHaveLength(1);
  expect(replies.filter((r) => r.body.error?.code === 'HOLD_EXTENSION_LIMIT')).toHaveLength(9);
  const s = await stateOf(suite.api, event.id, hold.id, [seats[0]!.id, seats[1]!.id]);
  const exp = Date.parse(ok[0]!.body.hold.expiresAt);
  expect(s.row).toEqual({ status: 'ACTIVE', expiresAt: new Date(exp), extensions: 1 });
  expect(s.record).toMatchObject({ expiresAt: String(exp), extensions: '1' });
  expect(s.seats).toEqual([{ owner: hold.id, pexpireAt: exp }, { owner: hold.id, pexpireAt: exp }]);
});

test('when the expiry runs right at expiresAt while the owner extends, then the hold is either extended in both stores or expired in both, never half', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 1, maxHoldExtensions: 1, seats: seatGrid(['A'], 1, 12) });
  const ctx = suite.api.rt.ctx;
  const outcomes: string[] = [];
  for (let round = 0; round < 12; round++) {
    const buyer = rid('racer');
    const seatId = seats[round]!.id;
    const hold = await holdSeats(suite.api, event.id, buyer, [seatId]);
    await ctx.persister.flush();
    // Aim the extend from 150 ms before to 15 ms after the hold's time.
    const offset = -150 + round * 15;
    await sleepUntil(hold.expiresAt, offset);
    let extendDone = false;
    const ext = extend(suite.api, hold.id, suite.api.token('customer', buyer)).finally(() => { extendDone = true; });
    const expiry = (async () => {
      for (;;) {
        const r = await expireHold(ctx, hold.id, new Date());
        if (r.kind !== 'not_due' || (extendDone && Date.now() > Date.parse(hold.expiresAt) + 50)) return r.kind;
        await sleep(3); // the expiry tries again and again, racing the extend
      }
    })();
    const [res, expiryKind] = await Promise.all([ext, expiry]);
    const s = await stateOf(suite.api, event.id, hold.id, [seatId]);
    if (res.status === 200) {
      const exp = Date.parse(res.body.hold.expiresAt);
      expect(expiryKind).toBe('not_due');
      expect(s.row).toEqual({ status: 'ACTIVE', expiresAt: new Date(exp), extensions: 1 });
      expect(s.seats[0]).toEqual({ owner: hold.id, pexpireAt: exp });
      expect(s.record.status).toBe('active');
      outcomes.push('extended');
    } else {
      expect(res.body.error?.code).toBe('HOLD_EXPIRED');
      expect(s.row).toMatchObject({ status: 'EXPIRED', extensions: 0 });
      expect(s.seats[0]!.owner).toBeNull();
      expect(s.record.status).toBe('expired');
      outcomes.push('expired');
    }
  }
  // Both outcomes were seen across the rounds (the early ones extend, the late ones expire).
  expect(outcomes).toContain('extended');
  expect(outcomes).toContain('expired');
});
