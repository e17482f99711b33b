// An API process that dies in the middle of a hold with an Idempotency-Key:
// its hold script ran in Redis (the seat is held), its buyer got no answer.
// The key's claim names the hold id every request holding it takes (its seed),
// so the buyer's retry with the key, once the dead request's lease has lapsed,
// gets that very hold instead of 409 for their own seat (and a hold nobody
// was told of, until it expires). API 1 is a process of its own, killed with
// SIGKILL; it reaches Redis through a relay that drops Redis's answers, so it
// dies after its script ran and before it could answer. API 2 runs in-process.
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { eventKeys } from '@holdfast/hold-store';
import {
  ApiProcess, confirmVia, expectInvariants, recordMeasurements, seatGrid, sleepUntil, startRelay, useTestApi, waitFor, type Relay,
} from '@holdfast/test-kit';

const LEASE_MS = 2000;
let api1: ApiProcess;
let relay: Relay;
let direct: Redis;
// Declared before useTestApi's own afterAll (which drops the events and closes API 2), so API 1 ends first.
afterAll(async () => {
  await api1?.endWith('SIGKILL');
  await relay?.close();
  direct?.disconnect();
});
const { api: api2, newEvent } = useTestApi({ HOLD_IDEMPOTENCY_LEASE_MS: String(LEASE_MS) });
beforeAll(async () => {
  const redisUrl = new URL(api2.config.redisUrl);
  relay = await startRelay(`http://${redisUrl.hostname}:${redisUrl.port || 6379}`);
  api1 = await ApiProcess.start({
    DATABASE_URL: api2.config.databaseUrl,
    REDIS_URL: `redis://127.0.0.1:${relay.port}${redisUrl.pathname}`,
    HOLD_IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
  });
  direct = new Redis(api2.config.redisUrl);
});

test('when the API process dies after its keyed hold ran and before it answered, then the retry with the key gets 409 while the lease runs, then that same hold, and the seat is held and sold once', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['K'], 1, 3) });
  const seatId = seats[0]!.id;
  const k = eventKeys(event.id);
  const customer = `killed-${randomUUID()}`;
  const token = api2.token('customer', customer);
  const key = `checkout-${randomUUID()}`;
  const body = { seatIds: [seatId] };
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': key };
  // A plain hold first, so API 1 has the event and its scripts loaded before its answers are dropped.
  const warm = await fetch(`${api1.url}/v1/events/${event.id}/holds`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${api2.token('customer')}` },
    body: JSON.stringify({ seatIds: [seats[2]!.id] }),
  });
  expect(warm.status).toBe(201);

  // Redis answers API 1's claim of the key; from the hold script on (it names the seat's key), nothing.
  relay.muteOnceSent(k.seat(seatId));
  const sentAt = Date.now();
  const lost = fetch(`${api1.url}/v1/events/${event.id}/holds`, { method: 'POST', headers, body: JSON.stringify(body) })
    .then((r) => r.status, (err: Error) => err.name);
  await waitFor('API 1\'s hold script to run', async () => (await direct.exists(k.seat(seatId))) === 1, { timeoutMs: 5000, intervalMs: 5 });
  await api1.endWith('SIGKILL');
  expect(await lost).toBe('TypeError'); // fetch failed: the connection closed without an answer
  const ghost = await direct.get(k.seat(seatId));
  expect(ghost).toMatch(/^hld_/);

  const retry = () => api2.call('POST', `/v1/events/${event.id}/holds`, { token, body, headers: { 'idempotency-key': key } });
  const early = await retry();
  const earlyAfterMs = Date.now() - sentAt;
  // The claim was written after sentAt: an answer within the lease of sentAt came while it ran.
  if (earlyAfterMs < LEASE_MS) expect({ status: early.status, code: early.body.error?.code }).toEqual({ status: 409, code: 'IDEMPOTENCY_IN_PROGRESS' });
  else expect({ status: early.status, id: early.body.hold?.id }).toEqual({ status: 201, id: ghost });

  await sleepUntil(sentAt + LEASE_MS, 100);
  const taken = await retry();
  expect({ status: taken.status, error: taken.body.error, replayed: taken.headers.get('idempotent-replayed') })
    .toEqual({ status: 201, error: undefined, replayed: earlyAfterMs < LEASE_MS ? null : 'true' });
  expect(taken.body.hold).toMatchObject({ id: ghost, status: 'active', customerId: customer });
  expect(taken.body.hold.items.map((i: { seatId: string }) => i.seatId)).toEqual([seatId]);
  // Its answer is now the key's: replayed from here on.
  const replay = await retry();
  expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: 'true' });
  expect(replay.body).toEqual(taken.body);

  // One hold of this customer, in Redis and in PostgreSQL, and it is the one answered.
  expect(Object.keys(await direct.hgetall(k.customer(customer))).filter((f) => f.startsWith('hld_'))).toEqual([ghost]);
  await api2.rt.ctx.persister.flush([event.id]);
  const rows = await api2.rt.db.hold.findMany({ where: { eventId: event.id, customerId: customer }, orderBy: { createdAt: 'asc' } });
  expect(rows.map((r) => ({ id: r.id, status: r.status }))).toEqual([{ id: ghost, status: 'ACTIVE' }]);
  const order = await confirmVia(api2, ghost!);
  expect(order.status).toBe(201);
  expect(await api2.rt.db.orderItem.count({ where: { seatId } })).toBe(1);
  await expectInvariants(api2.rt.db, event.id);
  recordMeasurements('api-kill-keyed-hold', { leaseMs: LEASE_MS, firstRetryAfterMs: earlyAfterMs, firstRetryStatus: early.status, holdsOfCustomer: rows.length });
});
