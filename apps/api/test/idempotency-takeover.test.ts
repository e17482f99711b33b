// A hold request with an Idempotency-Key that never answered: its claim's lease
// lapses and the buyer's retry takes the claim over. The claim's seed names the
// hold id every request holding it takes, so the retry answers the hold the
// earlier request took (live or bought), takes that id itself when there is
// none, and holds afresh under a new seed when that hold has ended otherwise.
// The earlier request is played here by its own steps (the key's claim, then
// the hold use-case, or not), without an answer: fault-api-kill-keyed-hold
// kills a real API process instead.
import { randomUUID } from 'node:crypto';
import { createHold, holdIdOf } from '@holdfast/domain';
import { eventKeys } from '@holdfast/hold-store';
import { confirmVia, expectInvariants, seatGrid, sleep, useTestApi } from '@holdfast/test-kit';
import { requestFingerprint } from '../src/middleware/idempotency';

const LEASE_MS = 1000;
const { api, newEvent } = useTestApi({ HOLD_IDEMPOTENCY_LEASE_MS: String(LEASE_MS) });

/** The takeovers /metrics has counted with this outcome. */
async function takeovers(outcome: string): Promise<number> {
  const m = new RegExp(`^holdfast_hold_key_takeovers_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(await api.rt.metrics.registry.metrics());
  return Number(m?.[1] ?? 0);
}

/** An event of two seats, a buyer and a key: `earlier` plays a request that claimed the key and never answered. */
async function keyedBuyer() {
  const { event, seats } = await newEvent({ seats: seatGrid(['T'], 1, 2) });
  const customer = `takeover-${randomUUID()}`;
  const key = `checkout-${randomUUID()}`;
  const body = { seatIds: [seats[0]!.id] };
  const path = `/v1/events/${event.id}/holds`;
  const earlier = async (runs: 'its hold' | 'nothing') => {
    const claim = await api.rt.ctx.idempotency.begin(`customer:${customer}`, key, requestFingerprint('POST', path, body), LEASE_MS);
    if (claim.kind !== 'started') throw new Error(claim.kind);
    const keyClaim = { seed: claim.seed, takenOver: false, reseed: async () => null };
    const hold = runs === 'its hold'
      ? await createHold(api.rt.ctx, { eventId: event.id, customerId: customer, selector: { kind: 'seats', seatIds: body.seatIds }, keyClaim })
      : null;
    return { holdId: holdIdOf(event.id, claim.seed), hold, keyClaim };
  };
  const send = () => api.call('POST', path, { token: api.token('customer', customer), body, headers: { 'idempotency-key': key } });
  const retry = async () => {
    await sleep(LEASE_MS + 100); // the earlier request's lease lapses
    return send();
  };
  const seatHolder = () => api.rt.redis.get(eventKeys(event.id).seat(body.seatIds[0]!));
  return { event, customer, key, body, path, earlier, retry, send, seatHolder };
}

test('when the earlier request died before its hold script ran, then the retry holds under the claim\'s hold id, and that script run late takes nothing more', async () => {
  const { event, customer, earlier, retry, seatHolder } = await keyedBuyer();
  const { holdId, keyClaim } = await earlier('nothing');
  const counted = await takeovers('took_its_id');
  const res = await retry();
  expect(await takeovers('took_its_id')).toBe(counted + 1);
  expect({ status: res.status, id: res.body.hold?.id, replayed: res.headers.get('idempotent-replayed') }).toEqual({ status: 201, id: holdId, replayed: null });
  expect(await seatHolder()).toBe(holdId);
  // The earlier request's script, arriving after the retry's (a process frozen, not dead), answers the same hold.
  const late = await createHold(api.rt.ctx, { eventId: event.id, customerId: customer, selector: { kind: 'seats', seatIds: res.body.hold.items.map((i: { seatId: string }) => i.seatId) }, keyClaim });
  expect({ id: late.id, createdAt: late.createdAt, expiresAt: late.expiresAt }).toEqual({ id: holdId, createdAt: res.body.hold.createdAt, expiresAt: res.body.hold.expiresAt });
  await api.rt.ctx.persister.flush([event.id]);
  expect(await api.rt.db.hold.count({ where: { eventId: event.id } })).toBe(1);
});

test('when the earlier request\'s hold is live, then the retry answers that hold as it is, and nothing more is held', async () => {
  const { event, earlier, retry, seatHolder } = await keyedBuyer();
  const { holdId, hold } = await earlier('its hold');
  const counted = await takeovers('answered');
  const res = await retry();
  expect(res.status).toBe(201);
  expect(res.body.hold).toEqual({ ...hold, status: 'active' });
  expect(await takeovers('answered')).toBe(counted + 1);
  expect(await seatHolder()).toBe(holdId);
  await api.rt.ctx.persister.flush([event.id]);
  expect(await api.rt.db.hold.count({ where: { eventId: event.id } })).toBe(1);
});

test('when the earlier request\'s hold was bought before the retry, then the retry answers the confirmed hold with its order, and nothing more is held or sold', async () => {
  const { event, earlier, retry } = await keyedBuyer();
  const { holdId } = await earlier('its hold');
  const order = await confirmVia(api, holdId);
  expect(order.status).toBe(201);
  const res = await retry();
  expect(res.status).toBe(201);
  expect(res.body.hold).toMatchObject({ id: holdId, status: 'confirmed', orderId: order.body.order.id });
  expect(await api.rt.db.hold.count({ where: { eventId: event.id } })).toBe(1);
  expect(await api.rt.db.order.count({ where: { eventId: event.id } })).toBe(1);
  await expectInvariants(api.rt.db, event.id);
});

test('when the earlier request\'s hold was given back (it answered 503) and the key\'s release never reached Redis, then the retry holds the seat afresh under a new hold id', async () => {
  const { event, customer, earlier, retry, send, seatHolder } = await keyedBuyer();
  const { holdId } = await earlier('its hold');
  expect((await api.rt.ctx.store.giveBackHold({ eventId: event.id, holdId, customerId: customer, ticketTypeId: null })).kind).toBe('given');
  const counted = await takeovers('afresh');
  const res = await retry();
  expect(res.status).toBe(201);
  expect(await takeovers('afresh')).toBe(counted + 1);
  expect(res.body.hold.id).not.toBe(holdId);
  expect(res.body.hold.status).toBe('active');
  expect(await seatHolder()).toBe(res.body.hold.id);
  // The key's answer is the new hold.
  const replay = await send();
  expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: 'true' });
  expect(replay.body).toEqual(res.body);
});

test('when the earlier request\'s hold was given back before its script ran (only the tombstone is there), then the retry holds the seat under a new hold id', async () => {
  const { event, customer, earlier, retry, seatHolder } = await keyedBuyer();
  const { holdId } = await earlier('nothing');
  expect((await api.rt.ctx.store.giveBackHold({ eventId: event.id, holdId, customerId: customer, ticketTypeId: null })).kind).toBe('none');
  const res = await retry();
  expect(res.status).toBe(201);
  expect(res.body.hold.id).not.toBe(holdId);
  expect(await seatHolder()).toBe(res.body.hold.id);
});

test('when the request that took the claim over fails with a 5xx, then the next retry still answers the earlier request\'s hold, and nothing more is held', async () => {
  const { event, customer, key, body, path, earlier, send, seatHolder } = await keyedBuyer();
  const { holdId, hold } = await earlier('its hold');
  await sleep(LEASE_MS + 100);
  // The retry that takes the claim over fails (PostgreSQL away while it looked for the hold: a 503), so its key is released.
  const principal = `customer:${customer}`;
  const over = await api.rt.ctx.idempotency.begin(principal, key, requestFingerprint('POST', path, body), LEASE_MS);
  expect(over).toMatchObject({ kind: 'started', takenOver: true });
  if (over.kind !== 'started') return;
  expect(await api.rt.ctx.idempotency.release(principal, key, over.token, LEASE_MS)).toBe(true);

  const res = await send();
  expect(res.status).toBe(201);
  expect(res.body.hold).toEqual({ ...hold, status: 'active' });
  expect(await seatHolder()).toBe(holdId);
  await api.rt.ctx.persister.flush([event.id]);
  expect(await api.rt.db.hold.count({ where: { eventId: event.id } })).toBe(1);
  await expectInvariants(api.rt.db, event.id);
});
