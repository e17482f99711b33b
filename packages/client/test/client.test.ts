import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventKeys } from '@holdfast/hold-store';
import { seatGrid, startRelay, useTestApi, waitFor } from '@holdfast/test-kit';
import { createHoldfastClient, isHoldfastError, type HoldfastClientOptions, type StreamItem } from '../src';
import { caught } from './caught';

// A small hold rate (a customer's fourth hold in a minute is refused 429) and a confirm queue of one
// (a confirm that finds another waiting is refused 503 OVERLOADED, Retry-After: 1).
const suite = useTestApi({ HOLD_RATE_LIMIT_PER_MINUTE: '3', CONFIRM_MAX_WAITING: '1' });
const run = randomUUID().slice(0, 8);

/** What went over the wire: each attempt's method, path, Idempotency-Key and status. */
interface Sent { method: string; path: string; key: string | null; status: number; retryAfter: string | null }

function clientAs(role: 'customer' | 'service' | 'admin', sub = `${role}-${run}-${randomUUID().slice(0, 6)}`, more: Partial<HoldfastClientOptions> = {}) {
  const sent: Sent[] = [];
  const token = suite.api.token(role, sub);
  const client = createHoldfastClient({
    baseUrl: suite.api.url,
    token,
    fetch: async (request) => {
      const key = request.headers.get('Idempotency-Key');
      if (key) suite.api.trackIdempotencyKey(token, key);
      const response = await fetch(request);
      sent.push({
        method: request.method, path: new URL(request.url).pathname, key: request.headers.get('Idempotency-Key'),
        status: response.status, retryAfter: response.headers.get('Retry-After'),
      });
      return response;
    },
    ...more,
  });
  return { client, sent, sub };
}

test('when a storefront holds a seat and its backend confirms it through the client, then the order has the seat and the hold is confirmed', async () => {
  const { event, seats } = await suite.newEvent({ seats: seatGrid(['A'], 1, 3, 'premium', 12000) });
  const buyer = clientAs('customer');
  const backend = clientAs('service');

  const hold = await buyer.client.hold(event.id, { seatIds: [seats[0]!.id] });
  expect(hold).toMatchObject({ eventId: event.id, status: 'active', totalCents: 12000, items: [{ seatId: seats[0]!.id, label: 'A-1-1' }] });
  const { order, created } = await backend.client.confirm(hold.id, `pi_${run}`);
  expect(created).toBe(true);
  expect(order).toMatchObject({ holdId: hold.id, status: 'confirmed', paymentReference: `pi_${run}`, totalCents: 12000 });
  expect((await buyer.client.getHold(hold.id)).status).toBe('confirmed');
  expect((await buyer.client.getOrder(order.id)).number).toBe(order.number);
  expect((await buyer.client.listSeats(event.id)).find((s) => s.id === seats[0]!.id)?.status).toBe('sold');
  // Every call to an endpoint that takes an Idempotency-Key carried a fresh one; the others none.
  const keyed = [...buyer.sent, ...backend.sent].filter((s) => s.key !== null);
  expect(keyed.map((s) => `${s.method} ${s.path}`)).toEqual([`POST /v1/events/${event.id}/holds`, `POST /v1/holds/${hold.id}/confirm`]);
  expect(keyed[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
  expect(keyed[0]!.key).not.toBe(keyed[1]!.key);
  // Confirming again answers the same order, not a new one.
  const again = await backend.client.confirm(hold.id, `pi_${run}`);
  expect({ id: again.order.id, created: again.created }).toEqual({ id: order.id, created: false });
});

test('when a hold is not valid, or the tickets are sold out, then the client throws a HoldfastError with the documented code and details', async () => {
  const { event } = await suite.newEvent({ ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 2 }] });
  const ticketTypeId = event.ticketTypes[0].id as string;
  const { client } = clientAs('customer');

  const invalid = await caught(client.hold(event.id, { ticketTypeId, quantity: 0 }));
  expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  expect(invalid.requestId).toEqual(expect.any(String));
  expect(JSON.stringify(invalid.details)).toContain('quantity');

  const soldOut = await caught(client.hold(event.id, { ticketTypeId, quantity: 3 }));
  expect(soldOut).toMatchObject({ status: 409, code: 'SOLD_OUT', details: { available: 2 } });
  expect(soldOut.is('SOLD_OUT', 'SEATS_UNAVAILABLE')).toBe(true);
  expect(isHoldfastError(soldOut, 'VALIDATION_FAILED')).toBe(false);

  const missing = await caught(client.GET('/v1/events/{eventId}', { params: { path: { eventId: randomUUID() } } }));
  expect(missing).toMatchObject({ status: 404, code: 'EVENT_NOT_FOUND' });
  // The paths API without throwing: the error body as the document types it.
  const raw = await client.raw.POST('/v1/events/{eventId}/holds', { params: { path: { eventId: event.id } }, body: { ticketTypeId, quantity: 3 } });
  expect(raw.error?.error.code).toBe('SOLD_OUT');
  // Nothing was held by the refusals.
  expect((await client.getEvent(event.id)).ticketTypes[0]!.available).toBe(2);
});

test('when a hold is sent twice with the same Idempotency-Key, then the second answer is the first hold replayed, and another body with it is refused', async () => {
  const { event, seats } = await suite.newEvent({ seats: seatGrid(['B'], 1, 3) });
  const { client, sent } = clientAs('customer');
  const key = `order-${randomUUID()}`;
  const first = await client.hold(event.id, { seatIds: [seats[0]!.id] }, { idempotencyKey: key });
  const second = await client.raw.POST('/v1/events/{eventId}/holds', {
    params: { path: { eventId: event.id } }, body: { seatIds: [seats[0]!.id] }, headers: { 'Idempotency-Key': key },
  });
  expect(second.response.status).toBe(201);
  expect(second.response.headers.get('Idempotent-Replayed')).toBe('true');
  expect(second.data?.hold).toEqual(first);
  expect(sent.map((s) => s.key)).toEqual([key, key]);
  const reused = await caught(client.hold(event.id, { seatIds: [seats[1]!.id] }, { idempotencyKey: key }));
  expect(reused.code).toBe('IDEMPOTENCY_KEY_REUSED');
  expect((await client.listSeats(event.id)).filter((s) => s.status === 'held').map((s) => s.id)).toEqual([seats[0]!.id]);
});

test('when holds are refused 429 RATE_LIMITED, then the client waits Retry-After and sends the hold again with the same Idempotency-Key, or throws at once when the wait is too long or retries are off', async () => {
  const { event, seats } = await suite.newEvent({ seats: seatGrid(['C'], 1, 6) });
  const sub = `rate-${run}`;
  const patient = clientAs('customer', sub, { retry: { maxRetries: 1, maxDelaySeconds: 5 } });
  for (let i = 0; i < 3; i++) await patient.client.hold(event.id, { seatIds: [seats[i]!.id] });

  // The window's end is a minute away: longer than the client will wait, so the refusal is thrown at once.
  const tooLong = await caught(patient.client.hold(event.id, { seatIds: [seats[3]!.id] }));
  expect(tooLong).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  expect(tooLong.retryAfterSeconds).toBeGreaterThan(5);
  const off = clientAs('customer', sub, { retry: false });
  expect((await caught(off.client.hold(event.id, { seatIds: [seats[3]!.id] }))).code).toBe('RATE_LIMITED');
  expect(off.sent.map((s) => s.status)).toEqual([429]);

  // The customer's window now ends in about 1.5 s: the client waits for it, then the hold goes through.
  await suite.api.rt.redis.pexpire(eventKeys(event.id).rateLimit(sub), 1500);
  patient.sent.length = 0;
  const startedAt = Date.now();
  const hold = await patient.client.hold(event.id, { seatIds: [seats[3]!.id] });
  const waited = Date.now() - startedAt;
  expect(hold.items).toEqual([expect.objectContaining({ seatId: seats[3]!.id })]);
  expect(patient.sent.map((s) => s.status)).toEqual([429, 201]);
  const [refused, accepted] = patient.sent;
  expect(['1', '2']).toContain(refused!.retryAfter);
  expect(waited).toBeGreaterThanOrEqual(Number(refused!.retryAfter) * 1000 - 20);
  expect(refused!.key).toMatch(/^[0-9a-f-]{36}$/);
  expect(accepted!.key).toBe(refused!.key);
});

test('when confirms arrive together past CONFIRM_MAX_WAITING, then the client waits out each 503 OVERLOADED and every hold becomes one order', async () => {
  const { event, seats } = await suite.newEvent({ seats: seatGrid(['D'], 1, 12) });
  const holds = await Promise.all(seats.map((s, i) => clientAs('customer', `d${i}-${run}`).client.hold(event.id, { seatIds: [s.id] })));
  const backend = clientAs('service', undefined, { retry: { maxRetries: 10 } });
  const orders = await Promise.all(holds.map((h) => backend.client.confirm(h.id, `pi_${h.id}`)));
  expect(new Set(orders.map((o) => o.order.holdId))).toEqual(new Set(holds.map((h) => h.id)));
  expect(orders.every((o) => o.created)).toBe(true);
  const overloaded = backend.sent.filter((s) => s.status === 503);
  expect(overloaded.length).toBeGreaterThan(0);
  expect(overloaded.every((s) => s.retryAfter === '1')).toBe(true);
  // Each confirm kept its key across its retries.
  const keysByHold = new Map<string, Set<string | null>>();
  for (const s of backend.sent) (keysByHold.get(s.path) ?? keysByHold.set(s.path, new Set()).get(s.path)!).add(s.key);
  expect([...keysByHold.values()].every((keys) => keys.size === 1)).toBe(true);
  expect(new Set([...keysByHold.values()].map((keys) => [...keys][0])).size).toBe(holds.length);
});

test('when the event stream is read through the client, then changes arrive as typed items, and after a dropped connection it reconnects and says so', async () => {
  const { event, seats } = await suite.newEvent({ seats: seatGrid(['E'], 1, 3), ticketTypes: [{ name: 'GA', priceCents: 500, capacity: 10 }] });
  const relay = await startRelay(suite.api.url);
  const viewer = createHoldfastClient({ baseUrl: relay.url });
  const buyer = clientAs('customer');
  const abort = new AbortController();
  const items: StreamItem[] = [];
  const reading = (async () => {
    for await (const item of viewer.events(event.id, { signal: abort.signal, delayMs: 200 })) items.push(item);
  })();
  try {
    await waitFor('the stream to open', () => items.length > 0);
    expect(items[0]).toEqual({ type: 'open', reconnected: false });
    await buyer.client.hold(event.id, { seatIds: [seats[0]!.id] });
    await buyer.client.hold(event.id, { ticketTypeId: event.ticketTypes[0].id, quantity: 2 });
    await waitFor('the seat and availability changes', () => items.length >= 3);
    expect(items.slice(1, 3)).toEqual(expect.arrayContaining([
      { type: 'seat', seatId: seats[0]!.id, status: 'held' },
      { type: 'availability', ticketTypeId: event.ticketTypes[0].id, available: 8 },
    ]));

    relay.cut();
    await relay.restore();
    await waitFor('the stream to open again', () => items.some((i) => i.type === 'open' && i.reconnected));
    const dropped = items.findIndex((i) => i.type === 'reconnecting');
    expect(dropped).toBeGreaterThan(0);
    // The wait is spread between the delay and twice it (so dropped pages do not all come back at once).
    const wait = (items[dropped] as { retryInMs: number }).retryInMs;
    expect(items[dropped]).toEqual({ type: 'reconnecting', retryInMs: wait });
    expect(wait).toBeGreaterThanOrEqual(200);
    expect(wait).toBeLessThanOrEqual(400);
    expect(dropped).toBeLessThan(items.findIndex((i) => i.type === 'open' && i.reconnected));
    await buyer.client.hold(event.id, { seatIds: [seats[1]!.id] });
    await waitFor('a change after the reconnection', () => items.some((i) => i.type === 'seat' && i.seatId === seats[1]!.id));
  } finally {
    abort.abort();
    await reading;
    await relay.close();
  }
  // An event that does not exist: the iterator throws its 404 instead of retrying.
  const missing = createHoldfastClient({ baseUrl: suite.api.url }).events(randomUUID());
  await expect(missing.next()).rejects.toMatchObject({ status: 404, code: 'EVENT_NOT_FOUND' });
});

test('when the stream keeps being cut just after it opens, or refused, then each wait doubles from the delay and is spread between it and twice it', async () => {
  // A server whose stream opens and ends at once (a proxy's timeout), then one that refuses with 503.
  let mode: 'cut' | 'refuse' = 'cut';
  const server = http.createServer((_req, res) => {
    if (mode === 'refuse') {
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'down' } }));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.end(': opened\n\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const waits = async (count: number, options: { delayMs: number; maxDelayMs: number }) => {
    const abort = new AbortController();
    const out: number[] = [];
    for await (const item of createHoldfastClient({ baseUrl }).events(randomUUID(), { ...options, signal: abort.signal })) {
      if (item.type !== 'reconnecting') continue;
      out.push(item.retryInMs);
      if (out.length === count) abort.abort();
    }
    return out;
  };
  try {
    // Cut at once each time: 5, 10, 20, 40 ms, each spread up to twice.
    const cut = await waits(4, { delayMs: 5, maxDelayMs: 40 });
    cut.forEach((w, i) => {
      expect(w).toBeGreaterThanOrEqual(5 * 2 ** i);
      expect(w).toBeLessThanOrEqual(10 * 2 ** i);
    });
    mode = 'refuse';
    const refused = await waits(30, { delayMs: 20, maxDelayMs: 20 });
    for (const w of refused) {
      expect(w).toBeGreaterThanOrEqual(20);
      expect(w).toBeLessThanOrEqual(40);
    }
    expect(new Set(refused).size).toBeGreaterThan(1);
  } finally {
    await new Promise((r) => server.close(r));
  }
});
