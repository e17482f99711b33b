import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { errors } from '@holdfast/domain';
import { IdempotencyStore } from '@holdfast/hold-store';
import { requireRole } from '../src/middleware/auth';
import { TokenVerifier } from '../src/middleware/token-verifier';
import { errorHandler } from '../src/middleware/errors';
import { idempotent } from '../src/middleware/idempotency';
import { expectInvariants, createTestEvent, dropTestEvent, seatGrid, useTestApi, sleep, waitFor } from '@holdfast/test-kit';

// One test keeps a confirm waiting on a row lock while its client hangs up: a statement budget
// well above the request default (1.5 s), so a loaded machine cannot turn that wait into a 503.
const { api } = useTestApi({ DATABASE_QUERY_TIMEOUT_MS: '30000' });

const holdCount = async (eventId: string) => {
  await api.rt.ctx.persister.flush([eventId]);
  const rows = await api.rt.db.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM holds WHERE event_id = ${eventId}::uuid`;
  return Number(rows[0]!.n);
};

test('when a hold request is retried with the same key and body, then the first answer is replayed with Idempotent-Replayed and nothing more is held', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 50 }] });
  try {
    const sub = `c-${randomUUID()}`;
    const token = api.token('customer', sub);
    const key = `order-${randomUUID()}`;
    const body = { ticketTypeId: event.ticketTypes[0].id, quantity: 2 };
    const first = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same body written with its fields in another order is the same request.
    const again = await api.call('POST', `/v1/events/${event.id}/holds`, {
      token, raw: JSON.stringify({ quantity: 2, ticketTypeId: event.ticketTypes[0].id }), headers: { 'idempotency-key': key },
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await holdCount(event.id)).toBe(1);
    const ev = await api.call('GET', `/v1/events/${event.id}`);
    expect(ev.body.event.ticketTypes[0].available).toBe(48);
    const ttl = await api.rt.redis.ttl(IdempotencyStore.redisKey(`customer:${sub}`, key));
    expect(ttl).toBeGreaterThan(86_000);
    expect(ttl).toBeLessThanOrEqual(86_400);

    const reused = await api.call('POST', `/v1/events/${event.id}/holds`, {
      token, body: { ticketTypeId: event.ticketTypes[0].id, quantity: 3 }, headers: { 'idempotency-key': key },
    });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const otherPath = await api.call('POST', `/v1/events/${randomUUID()}/holds`, { token, body, headers: { 'idempotency-key': key } });
    expect(otherPath.status).toBe(422);
    expect(await holdCount(event.id)).toBe(1);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when two customers use the same key, then each gets a request of their own', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 50 }] });
  try {
    const key = `shared-${randomUUID()}`;
    const body = { ticketTypeId: event.ticketTypes[0].id, quantity: 1 };
    const a = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body, headers: { 'idempotency-key': key } });
    const b = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body, headers: { 'idempotency-key': key } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(a.body.hold.id).not.toBe(b.body.hold.id);
    expect(await holdCount(event.id)).toBe(2);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when the first request with a key was refused with a 4xx, then a retry replays that refusal even after the seat is free', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
  try {
    const other = api.token('customer');
    const taken = await api.call('POST', `/v1/events/${event.id}/holds`, { token: other, body: { seatIds: [seats[0]!.id] } });
    const token = api.token('customer');
    const key = randomUUID();
    const first = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { seatIds: [seats[0]!.id] }, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(409);
    expect(first.body.error.code).toBe('SEATS_UNAVAILABLE');
    await api.call('DELETE', `/v1/holds/${taken.body.hold.id}`, { token: other });
    const again = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { seatIds: [seats[0]!.id] }, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when the Idempotency-Key is empty, too long or not printable ASCII, then it answers 400 and holds nothing', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 50 }] });
  try {
    const token = api.token('customer');
    const body = { ticketTypeId: event.ticketTypes[0].id, quantity: 1 };
    for (const key of ['', 'k'.repeat(256), 'caf\u00e9', 'a\tb']) {
      const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body, headers: { 'idempotency-key': key } });
      expect([JSON.stringify(key), res.status]).toEqual([JSON.stringify(key), 400]);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.fields[0].path).toBe('Idempotency-Key');
    }
    const longest = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body, headers: { 'idempotency-key': '~'.repeat(255) } });
    expect(longest.status).toBe(201);
    expect(await holdCount(event.id)).toBe(1);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when 10 requests with one key arrive at once, then exactly one hold exists and the rest are replays or 409 IDEMPOTENCY_IN_PROGRESS', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 100 }] });
  try {
    const token = api.token('customer');
    const key = randomUUID();
    const body = { ticketTypeId: event.ticketTypes[0].id, quantity: 1 };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api.call('POST', `/v1/events/${event.id}/holds`, { token, body, headers: { 'idempotency-key': key } })),
    );
    const fresh = results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    const replays = results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === 'true');
    const busy = results.filter((r) => r.status === 409 && r.body.error.code === 'IDEMPOTENCY_IN_PROGRESS');
    expect(fresh).toHaveLength(1);
    expect(replays.length + busy.length).toBe(9);
    for (const r of replays) expect(r.body).toEqual(fresh[0]!.body);
    expect(await holdCount(event.id)).toBe(1);
    const ev = await api.call('GET', `/v1/events/${event.id}`);
    expect(ev.body.event.ticketTypes[0].available).toBe(99);
    // Once the first has answered, a retry is a replay.
    const later = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body, headers: { 'idempotency-key': key } });
    expect(later.status).toBe(201);
    expect(later.body).toEqual(fresh[0]!.body);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when the first request with a key fails with a 5xx, then the key is released and a retry runs afresh', async () => {
  // A small app with the real middleware and the real Redis: the route fails once, then succeeds.
  const store = new IdempotencyStore(api.rt.redis);
  const app = express();
  let calls = 0;
  app.post('/thing', requireRole(new TokenVerifier({ jwtSecret: api.config.jwtSecret, auth: api.config.auth }), 'customer'), idempotent(store, api.rt.log), (_req, res) => {
    calls++;
    if (calls === 1) throw new Error('boom');
    if (calls === 2) throw errors.unavailable('PostgreSQL');
    res.status(201).json({ calls });
  });
  app.use(errorHandler(api.rt.log));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/thing`;
    const token = api.token('customer');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() };
    api.trackIdempotencyKey(token, headers['idempotency-key']);
    const send = () => fetch(url, { method: 'POST', headers, body: '{"a":1}' });
    const r1 = await send();
    expect(r1.status).toBe(500);
    const r2 = await send();
    expect(r2.status).toBe(503);
    expect(r2.headers.get('idempotent-replayed')).toBeNull();
    const r3 = await send();
    expect(r3.status).toBe(201);
    expect(await r3.json()).toEqual({ calls: 3 });
    const r4 = await send();
    expect(r4.status).toBe(201);
    expect(r4.headers.get('idempotent-replayed')).toBe('true');
    expect(await r4.json()).toEqual({ calls: 3 });
    expect(calls).toBe(3);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('when a confirm is retried with the same key, then the first 201 is replayed (not the 200 a second confirm answers) and one order exists', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 50 }] });
  try {
    const held = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { ticketTypeId: event.ticketTypes[0].id, quantity: 1 } });
    const token = api.token('service', 'integrator-idem');
    const key = randomUUID();
    const path = `/v1/holds/${held.body.hold.id}/confirm`;
    const first = await api.call('POST', path, { token, body: { paymentReference: 'pi_idem' }, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    const replay = await api.call('POST', path, { token, body: { paymentReference: 'pi_idem' }, headers: { 'idempotency-key': key } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const plain = await api.call('POST', path, { token, body: { paymentReference: 'pi_idem' } });
    expect(plain.status).toBe(200);
    const reused = await api.call('POST', path, { token, body: { paymentReference: 'pi_other' }, headers: { 'idempotency-key': key } });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const orders = await api.rt.db.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM orders WHERE event_id = ${event.id}::uuid`;
    expect(Number(orders[0]!.n)).toBe(1);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when the client hangs up while its first confirm waits on the hold row, then a retry with the key gets 409 IDEMPOTENCY_IN_PROGRESS until the first ends, then its stored 201, and one order exists', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 50 }] });
  // Another transaction (as a concurrent confirm or an admin's would) holds the hold's row, so the first confirm waits on it.
  const locker = new pg.Client({ connectionString: api.config.databaseUrl });
  await locker.connect();
  try {
    const held = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { ticketTypeId: event.ticketTypes[0].id, quantity: 1 } });
    expect(held.status).toBe(201);
    const holdId = held.body.hold.id as string;
    await api.rt.ctx.persister.flush([event.id]);
    await locker.query('BEGIN');
    expect((await locker.query('SELECT id FROM holds WHERE id = $1 FOR UPDATE', [holdId])).rowCount).toBe(1);
    const lockerPid = (await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

    const token = api.token('service', 'integrator-hangup');
    const key = randomUUID();
    api.trackIdempotencyKey(token, key);
    const send = (signal: AbortSignal) => fetch(`${api.url}/v1/holds/${holdId}/confirm`, {
      method: 'POST', signal,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ paymentReference: 'pi_hangup' }),
    });
    const hangUp = new AbortController();
    const first = send(hangUp.signal).then(() => 'answered', (err: Error) => err.name);
    // The first confirm is inside its transaction, waiting on the row.
    const waiting = async () => Number((await locker.query<{ n: string }>(
      'SELECT count(*) AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [lockerPid])).rows[0]!.n);
    await waitFor('the first confirm to wait on the locked row', async () => (await waiting()) > 0, { timeoutMs: 20_000, intervalMs: 20 });
    expect(await waiting()).toBe(1);
    hangUp.abort();
    expect(await first).toBe('AbortError');
    await sleep(200); // lets the server see the connection close (nothing to watch for: the first confirm keeps waiting)

    // The retry does not run a second confirm beside the first: it answers at once.
    const retry = await send(AbortSignal.timeout(10_000));
    expect(retry.status).toBe(409);
    expect(((await retry.json()) as { error: { code: string } }).error.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(await waiting()).toBe(1);

    await locker.query('COMMIT');
    // The first confirm ends on its own; its answer is stored and replayed.
    const replay = await waitFor('an answer other than 409 to the retry', async () => {
      const res = await send(AbortSignal.timeout(10_000));
      return res.status !== 409 && res;
    }, { timeoutMs: 20_000, intervalMs: 50 });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const body = (await replay.json()) as { order: { holdId: string } };
    expect(body.order.holdId).toBe(holdId);
    const orders = await api.rt.db.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM orders WHERE event_id = ${event.id}::uuid`;
    expect(Number(orders[0]!.n)).toBe(1);
    await expectInvariants(api.rt.db, event.id);
  } finally {
    await locker.query('ROLLBACK').catch(() => undefined);
    await locker.end();
    await dropTestEvent(api, event.id);
  }
});
