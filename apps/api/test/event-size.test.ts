// An arena is created through the API: POST /v1/admin/events reads a body as
// large as its largest valid one (100,000 seats at their longest), refuses one
// byte more with 413 and writes nothing; every other endpoint, the hold and
// confirm path first, keeps its 100 KiB limit.
import {
  CREATE_EVENT_BODY_LIMIT_BYTES, longestEventEnvelope, longestJson, longestSeat, MAX_EVENT_SEATS, SEAT_LIMITS,
} from '@holdfast/contracts';
import { dropTestEvent, holdPost, seatGrid, useTestApi, type Reply } from '@holdfast/test-kit';

const { api } = useTestApi();
const run = `${process.pid}-${Date.now().toString(36)}`;
const SMALL_LIMIT = 100 * 1024;

async function eventsNamed(name: string): Promise<number> {
  const [row] = await api.rt.db.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM events WHERE name = ${name}`;
  return Number(row!.n);
}

async function seatCount(eventId: string): Promise<number> {
  const [row] = await api.rt.db.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM seats WHERE event_id = ${eventId}::uuid`;
  return Number(row!.n);
}

async function seatIdOf(eventId: string, label: string): Promise<string> {
  const [row] = await api.rt.db.$queryRaw<{ id: string }[]>`SELECT id::text FROM seats WHERE event_id = ${eventId}::uuid AND label = ${label}`;
  if (!row) throw new Error(`no seat ${label}`);
  return row.id;
}

function expectTooLarge(res: Reply, limitBytes: number): void {
  expect({ status: res.status, code: res.body?.error?.code, limitBytes: res.body?.error?.details?.limitBytes })
    .toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE', limitBytes });
}

/** A hold of exactly this one seat, by a new customer, answered 201. */
async function expectHeld(eventId: string, seatId: string): Promise<void> {
  const held = await holdPost(api, eventId, `arena-buyer-${run}`, { seatIds: [seatId] });
  expect(held.status).toBe(201);
  expect(held.body.hold.items.map((i: { seatId: string }) => i.seatId)).toEqual([seatId]);
}

const admin = () => api.token('admin');

test('when an event of 5,000 seats is created through the API, then it is created with every seat and its last seat can be held', async () => {
  const seats = seatGrid(['A', 'B', 'C', 'D', 'E'], 50, 20); // 5,000 seats: about 360 KiB of JSON
  const raw = JSON.stringify({ name: `arena-5k-${run}`, startsAt: '2027-01-01T19:00:00Z', seats });
  expect(raw.length).toBeGreaterThan(3 * SMALL_LIMIT);
  const res = await api.call('POST', '/v1/admin/events', { token: admin(), raw });
  expect(res.status).toBe(201);
  const eventId: string = res.body.event.id;
  try {
    expect(res.body.event.seatCount).toBe(5000);
    expect(await seatCount(eventId)).toBe(5000);
    await expectHeld(eventId, await seatIdOf(eventId, 'E-50-20'));
  } finally {
    await dropTestEvent(api, eventId);
  }
});

describe('the largest valid body', () => {
  // 100,000 distinct seats, each at its longest (20-character section and row, 50-character tier, the
  // largest number and price), every other field at its longest, every string character written as a
  // \uXXXX escape and a space after every colon and comma: exactly CREATE_EVENT_BODY_LIMIT_BYTES.
  const name = `arena-max-${run}`.padEnd(200, 'x');
  const pad = (prefix: string, n: number, chars: number) => `${prefix}${String(n).padStart(chars - 1, '0')}`;
  const last = { section: pad('S', 99, SEAT_LIMITS.sectionChars), row: pad('R', 999, SEAT_LIMITS.rowChars) };
  let largest = '';
  beforeAll(() => {
    const seats = Array.from({ length: MAX_EVENT_SEATS }, (_, i) =>
      longestSeat(pad('S', Math.floor(i / 1000), SEAT_LIMITS.sectionChars), pad('R', i % 1000, SEAT_LIMITS.rowChars)));
    largest = longestJson({ ...longestEventEnvelope('seats'), name, seats });
  });

  test('when it is sent, then it is exactly the documented limit and the event is created with its 100,000 seats, the last of which can be held', async () => {
    expect(Buffer.byteLength(largest)).toBe(CREATE_EVENT_BODY_LIMIT_BYTES);
    const res = await api.call('POST', '/v1/admin/events', { token: admin(), raw: largest });
    expect([res.status, res.status === 201 ? null : res.body]).toEqual([201, null]);
    const eventId: string = res.body.event.id;
    try {
      expect(res.body.event.seatCount).toBe(MAX_EVENT_SEATS);
      expect(res.body.event.ticketTypes).toHaveLength(100);
      expect(await seatCount(eventId)).toBe(MAX_EVENT_SEATS);
      // Its sale window is the longest one, in 2027, behind a waiting room: open the sale now, without the room, to hold.
      const opened = await api.call('PATCH', `/v1/admin/events/${eventId}`, { token: admin(), body: { salesStartAt: null, salesEndAt: null, waitingRoom: null } });
      expect(opened.status).toBe(200);
      await expectHeld(eventId, await seatIdOf(eventId, `${last.section}-${last.row}-${SEAT_LIMITS.maxNumber}`));
    } finally {
      await dropTestEvent(api, eventId);
    }
  }, 180_000);

  test('when it is one byte longer, then 413 PAYLOAD_TOO_LARGE with the limit and no event is written', async () => {
    const res = await api.call('POST', '/v1/admin/events', { token: admin(), raw: `${largest} ` });
    expectTooLarge(res, CREATE_EVENT_BODY_LIMIT_BYTES);
    expect(await eventsNamed(name)).toBe(0);
  }, 120_000);
});

describe('every other endpoint keeps its 100 KiB limit', () => {
  let eventId = '';
  let seatId = '';
  beforeAll(async () => {
    const res = await api.call('POST', '/v1/admin/events', {
      token: admin(), body: { name: `arena-small-${run}`, startsAt: '2027-01-01T19:00:00Z', seats: seatGrid(['A'], 1, 2) },
    });
    eventId = res.body.event.id;
    seatId = await seatIdOf(eventId, 'A-1-1');
  });
  afterAll(async () => {
    if (eventId) await dropTestEvent(api, eventId);
  });

  /** A JSON body of exactly `bytes` bytes. */
  const bodyOf = (fields: Record<string, unknown>, bytes: number) => {
    const start = JSON.stringify({ ...fields, pad: '' });
    return `${start.slice(0, -2)}${'x'.repeat(bytes - start.length)}"}`;
  };

  test('when a hold request is one byte over 100 KiB, then 413 on the fast path and through Express, and nothing is held', async () => {
    const raw = bodyOf({ seatIds: [seatId] }, SMALL_LIMIT + 1);
    expect(Buffer.byteLength(raw)).toBe(SMALL_LIMIT + 1);
    const token = api.token('customer', `arena-big-${run}`);
    const path = `/v1/events/${eventId}/holds`;
    expectTooLarge(await api.call('POST', path, { token, raw }), SMALL_LIMIT);
    // An Idempotency-Key sends it through the Express steps instead of the fast path.
    expectTooLarge(await api.call('POST', path, { token, raw, headers: { 'idempotency-key': `k-${run}` } }), SMALL_LIMIT);
    // A confirm too (its body is read after the role check, as any).
    expectTooLarge(await api.call('POST', `/v1/holds/hld_${'0'.repeat(32)}_${'0'.repeat(24)}/confirm`, {
      token: api.token('service'), raw: bodyOf({ paymentReference: 'p' }, SMALL_LIMIT + 1),
    }), SMALL_LIMIT);
    const seats = await api.call('GET', `/v1/events/${eventId}/seats`);
    expect(seats.body.seats.map((s: { status: string }) => s.status)).toEqual(['available', 'available']);
  });

  test('when an event\'s settings change with a body one byte over 100 KiB, then 413 and nothing changes', async () => {
    const raw = bodyOf({ name: 'renamed' }, SMALL_LIMIT + 1);
    expectTooLarge(await api.call('PATCH', `/v1/admin/events/${eventId}`, { token: admin(), raw }), SMALL_LIMIT);
    expect((await api.call('GET', `/v1/events/${eventId}`)).body.event.name).toBe(`arena-small-${run}`);
  });
});

test('when /openapi.json is read, then event creation documents its seats list, its layout and its own body limit, and a hold keeps 100 KiB', async () => {
  const doc = (await api.call('GET', '/openapi.json')).body;
  const create = doc.paths['/v1/admin/events'].post;
  expect(create.requestBody.description).toContain(String(CREATE_EVENT_BODY_LIMIT_BYTES));
  expect(create.responses['413'].description).toContain(String(CREATE_EVENT_BODY_LIMIT_BYTES));
  const schema = doc.components.schemas[create.requestBody.content['application/json'].schema.$ref.split('/').pop()];
  expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['seats', 'layout']));
  expect(schema.properties.seats.maxItems).toBe(MAX_EVENT_SEATS);
  expect(JSON.stringify(schema.properties.layout)).toMatch(/seatsPerRow/);
  expect(doc.paths['/v1/events/{eventId}/holds'].post.responses['413'].description).toContain(String(SMALL_LIMIT));
});
