// Who may call what (the 401/403 matrix, demo tokens) and what is refused as
// invalid: every refusal has the contract's error body and writes nothing.
import jwt from 'jsonwebtoken';
import { holdIdOf } from '@holdfast/contracts';
import { createTestEvent, dropTestEvent, seatGrid, startApi, useTestApi, holdKeyCount, holdPost, holdRowIds, type Reply } from '@holdfast/test-kit';

const { api } = useTestApi();

const run = `${process.pid}-${Date.now().toString(36)}`;

/** The contract's error body, as JSON, with this status and code. */
function expectError(res: Reply, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(Object.keys(res.body.error).every((k) => ['code', 'message', 'details'].includes(k))).toBe(true);
  expect(res.body.error.code).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  expect(JSON.stringify(res.body)).not.toMatch(/ at .*\.(ts|js):\d+/); // no stack trace
}

/** A VALIDATION_FAILED whose details name this field. */
function expectInvalid(res: Reply, field?: string): void {
  expectError(res, 400, 'VALIDATION_FAILED');
  expect(Array.isArray(res.body.error.details?.fields)).toBe(true);
  for (const f of res.body.error.details.fields) {
    expect(typeof f.path).toBe('string');
    expect(typeof f.message).toBe('string');
  }
  if (field !== undefined) expect(res.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(field);
}

async function eventsNamed(name: string): Promise<number> {
  const rows = await api.rt.db.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM events WHERE name = ${name}`;
  return Number(rows[0]!.n);
}

/** Nothing of a hold was written for this event: no rows, no hold/seat/customer keys, no outbox entry. */
async function expectNoHoldWritten(eventId: string): Promise<void> {
  await api.rt.ctx.persister.flush();
  expect(await holdRowIds(api, eventId)).toEqual([]);
  expect(await holdKeyCount(api, eventId)).toBe(0);
}

describe('authentication and roles', () => {
  const otherSecret = 'another-secret-that-is-long-enough';
  const badTokens = (): [string, Record<string, string>, string][] => [
    ['no token', {}, 'missing'],
    ['a malformed header', { authorization: 'Token abc' }, 'malformed'],
    ['a token that is not a JWT', { authorization: 'Bearer not-a-jwt' }, 'malformed'],
    ['a bad signature', { authorization: `Bearer ${jwt.sign({ sub: 'x', role: 'admin' }, otherSecret, { algorithm: 'HS256' })}` }, 'bad_signature'],
    ['an unsigned token', { authorization: `Bearer ${jwt.sign({ sub: 'x', role: 'admin' }, '', { algorithm: 'none' })}` }, 'algorithm_not_allowed'],
    ['an HS512 token of the secret', { authorization: `Bearer ${jwt.sign({ sub: 'x', role: 'admin' }, api.config.jwtSecret!, { algorithm: 'HS512' })}` }, 'algorithm_not_allowed'],
    ['an expired token', {
      authorization: `Bearer ${jwt.sign({ sub: 'x', role: 'admin', exp: Math.floor(Date.now() / 1000) - 60 }, api.config.jwtSecret!, { algorithm: 'HS256' })}`,
    }, 'token_expired'],
    ['a token not valid yet', {
      authorization: `Bearer ${jwt.sign({ sub: 'x', role: 'admin', nbf: Math.floor(Date.now() / 1000) + 60 }, api.config.jwtSecret!, { algorithm: 'HS256' })}`,
    }, 'token_not_yet_valid'],
    ['a token without a role', { authorization: `Bearer ${jwt.sign({ sub: 'x' }, api.config.jwtSecret!, { algorithm: 'HS256' })}` }, 'unknown_role'],
    ['a token with an unknown role', { authorization: `Bearer ${jwt.sign({ sub: 'x', role: 'root' }, api.config.jwtSecret!, { algorithm: 'HS256' })}` }, 'unknown_role'],
    ['a token without a sub', { authorization: `Bearer ${jwt.sign({ role: 'admin' }, api.config.jwtSecret!, { algorithm: 'HS256' })}` }, 'invalid_claims'],
  ];

  test('when an HS256 token is refused, then 401 UNAUTHORIZED says why in details.reason, on the fast path and through Express alike', async () => {
    for (const [label, headers, reason] of badTokens()) {
      for (const [method, path] of [['POST', '/v1/events/00000000-0000-4000-8000-000000000000/holds'], ['GET', '/v1/admin/holds']] as const) {
        const res = await api.call(method, path, { headers, body: method === 'POST' ? { seatIds: ['x'] } : undefined });
        expect({ label, method, status: res.status, code: res.body.error?.code, reason: res.body.error?.details?.reason }).toEqual({ label, method, status: 401, code: 'UNAUTHORIZED', reason });
      }
    }
  });

  test('when POST /v1/admin/events comes without a valid admin token, then 401 or 403 and no event is created', async () => {
    const name = `auth-event-${run}`;
    const body = { name, startsAt: '2027-01-01T19:00:00Z', seats: seatGrid(['A'], 1, 2) };
    for (const [, headers] of badTokens()) {
      expectError(await api.call('POST', '/v1/admin/events', { headers, body }), 401, 'UNAUTHORIZED');
    }
    for (const role of ['customer', 'service'] as const) {
      expectError(await api.call('POST', '/v1/admin/events', { token: api.token(role), body }), 403, 'FORBIDDEN');
    }
    expect(await eventsNamed(name)).toBe(0);
    const ok = await api.call('POST', '/v1/admin/events', { token: api.token('admin'), body });
    expect(ok.status).toBe(201);
    expect(await eventsNamed(name)).toBe(1);
    await dropTestEvent(api, ok.body.event.id);
  });

  test('when a hold is asked for without a valid customer token, then 401 or 403 and nothing is held', async () => {
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
    try {
      const body = { seatIds: [seats[0]!.id] };
      const path = `/v1/events/${event.id}/holds`;
      for (const [, headers] of badTokens()) expectError(await api.call('POST', path, { headers, body }), 401, 'UNAUTHORIZED');
      for (const role of ['service', 'admin'] as const) {
        expectError(await api.call('POST', path, { token: api.token(role), body }), 403, 'FORBIDDEN');
      }
      await expectNoHoldWritten(event.id);
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when a hold is read, then its owner, a service and an admin may; a stranger gets 404 and a bad token 401', async () => {
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
    try {
      const owner = `reader-${run}`;
      const held = await holdPost(api, event.id, owner, { seatIds: [seats[0]!.id] });
      const path = `/v1/holds/${held.body.hold.id}`;
      for (const token of [api.token('customer', owner), api.token('service'), api.token('admin')]) {
        const res = await api.call('GET', path, { token });
        expect(res.status).toBe(200);
        expect(res.body.hold.id).toBe(held.body.hold.id);
      }
      expectError(await api.call('GET', path, { token: api.token('customer', `stranger-${run}`) }), 404, 'HOLD_NOT_FOUND');
      for (const [, headers] of badTokens()) expectError(await api.call('GET', path, { headers }), 401, 'UNAUTHORIZED');
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when a hold is released by anyone but its owner, then 401, 403 or 404 and it stays active', async () => {
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
    try {
      const owner = `releaser-${run}`;
      const held = await holdPost(api, event.id, owner, { seatIds: [seats[0]!.id] });
      const path = `/v1/holds/${held.body.hold.id}`;
      for (const [, headers] of badTokens()) expectError(await api.call('DELETE', path, { headers }), 401, 'UNAUTHORIZED');
      for (const role of ['service', 'admin'] as const) {
        expectError(await api.call('DELETE', path, { token: api.token(role) }), 403, 'FORBIDDEN');
      }
      expectError(await api.call('DELETE', path, { token: api.token('customer', `other-${run}`) }), 404, 'HOLD_NOT_FOUND');
      const get = await api.call('GET', path, { token: api.token('customer', owner) });
      expect(get.body.hold.status).toBe('active');
      const mine = await api.call('DELETE', path, { token: api.token('customer', owner) });
      expect(mine.body.hold.status).toBe('released');
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when the customer id is put in a hold body, then it is refused: the customer is always the token\'s sub', async () => {
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
    try {
      const res = await holdPost(api, event.id, `me-${run}`, { seatIds: [seats[0]!.id], customerId: 'someone-else' });
      expectInvalid(res, 'customerId');
      const ok = await holdPost(api, event.id, `me-${run}`, { seatIds: [seats[0]!.id] });
      expect(ok.body.hold.customerId).toBe(`me-${run}`);
    } finally {
      await dropTestEvent(api, event.id);
    }
  });
});

describe('demo tokens', () => {
  test('when demo mode is on, then a demo token is issued and works for holds', async () => {
    expect(api.config.demoMode).toBe(true);
    const customerId = `demo-${run}`;
    const res = await api.call('POST', '/v1/auth/demo-token', { body: { customerId, role: 'customer' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(['token']);
    const claims = jwt.verify(res.body.token, api.config.jwtSecret!) as { sub: string; role: string };
    expect(claims).toMatchObject({ sub: customerId, role: 'customer' });
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 1) });
    try {
      const held = await api.call('POST', `/v1/events/${event.id}/holds`, { token: res.body.token, body: { seatIds: [seats[0]!.id] } });
      expect(held.status).toBe(201);
      expect(held.body.hold.customerId).toBe(customerId);
    } finally {
      await dropTestEvent(api, event.id);
    }
  });

  test('when a demo token request is not valid, then 400 VALIDATION_FAILED', async () => {
    expectInvalid(await api.call('POST', '/v1/auth/demo-token', { body: {} }), 'customerId');
    expectInvalid(await api.call('POST', '/v1/auth/demo-token', { body: { customerId: 'x', role: 'root' } }), 'role');
    expectInvalid(await api.call('POST', '/v1/auth/demo-token', { body: { customerId: 'x', extra: 1 } }), 'extra');
    expectInvalid(await api.call('POST', '/v1/auth/demo-token', { raw: '{"customerId":' }));
  });

  test('when DEMO_MODE=false, then the demo token path answers 404', async () => {
    const strict = await startApi({
      DEMO_MODE: 'false', JWT_SECRET: 'a-real-secret-for-this-test-only', STRIPE_WEBHOOK_SECRET: 'whsec_test_only_secret',
    });
    try {
      expect(strict.config.demoMode).toBe(false);
      const res = await strict.call('POST', '/v1/auth/demo-token', { body: { customerId: 'x', role: 'customer' } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.error.code).toMatch(/^[A-Z_]+$/);
      expect(res.body.token).toBeUndefined();
      // And tokens signed with the development secret are not accepted there.
      const dev = await strict.call('POST', '/v1/admin/events', {
        token: api.token('admin'), body: { name: `strict-${run}`, startsAt: '2027-01-01T19:00:00Z' },
      });
      expectError(dev, 401, 'UNAUTHORIZED');
      expect(await eventsNamed(`strict-${run}`)).toBe(0);
    } finally {
      await strict.close();
    }
  });
});

describe('validation of POST /v1/admin/events', () => {
  const name = `invalid-event-${run}`;
  const valid = { name, startsAt: '2027-01-01T19:00:00Z' };
  const seat = { section: 'A', row: '1', number: 1, tier: 'std', priceCents: 1000 };
  const ga = { name: 'GA', priceCents: 1000, capacity: 10 };
  const cases: [string, unknown, string | undefined][] = [
    ['an empty body', {}, 'name'],
    ['a missing startsAt', { name }, 'startsAt'],
    ['a name of the wrong type', { ...valid, name: 42 }, 'name'],
    ['an empty name', { ...valid, name: '  ' }, 'name'],
    ['a startsAt that is not ISO time', { ...valid, startsAt: 'next friday' }, 'startsAt'],
    ['a lower-case currency', { ...valid, currency: 'usd' }, 'currency'],
    ['holdTtlSeconds 0', { ...valid, holdTtlSeconds: 0 }, 'holdTtlSeconds'],
    ['holdTtlSeconds 3601', { ...valid, holdTtlSeconds: 3601 }, 'holdTtlSeconds'],
    ['holdTtlSeconds as a string', { ...valid, holdTtlSeconds: '600' }, 'holdTtlSeconds'],
    ['holdTtlSeconds not whole', { ...valid, holdTtlSeconds: 1.5 }, 'holdTtlSeconds'],
    ['maxTicketsPerCustomer 0', { ...valid, maxTicketsPerCustomer: 0 }, 'maxTicketsPerCustomer'],
    ['maxTicketsPerCustomer 101', { ...valid, maxTicketsPerCustomer: 101 }, 'maxTicketsPerCustomer'],
    ['an unknown field', { ...valid, venue: 'Hall' }, 'venue'],
    ['seats that are not a list', { ...valid, seats: { A: 1 } }, 'seats'],
    ['a seat with an unknown field', { ...valid, seats: [{ ...seat, color: 'red' }] }, 'seats.0.color'],
    ['a seat without a tier', { ...valid, seats: [{ ...seat, tier: undefined }] }, 'seats.0.tier'],
    ['a seat number 0', { ...valid, seats: [{ ...seat, number: 0 }] }, 'seats.0.number'],
    ['a seat number as a string', { ...valid, seats: [{ ...seat, number: '1' }] }, 'seats.0.number'],
    ['a negative price', { ...valid, seats: [{ ...seat, priceCents: -1 }] }, 'seats.0.priceCents'],
    ['a price in fractions of a cent', { ...valid, seats: [{ ...seat, priceCents: 10.5 }] }, 'seats.0.priceCents'],
    ['a section with a dash', { ...valid, seats: [{ ...seat, section: 'A-B' }] }, 'seats.0.section'],
    ['a ticket type of capacity 0', { ...valid, ticketTypes: [{ ...ga, capacity: 0 }] }, 'ticketTypes.0.capacity'],
    ['a ticket type without a price', { ...valid, ticketTypes: [{ name: 'GA', capacity: 10 }] }, 'ticketTypes.0.priceCents'],
    ['the same seat twice', { ...valid, seats: [seat, { ...seat, tier: 'vip', priceCents: 2000 }] }, 'seats.1'],
    ['a list for a body', [valid], undefined],
  ];

  test.each(cases)('when the body has %s, then 400 VALIDATION_FAILED naming the field and no event is written', async (_what, body, field) => {
    const res = await api.call('POST', '/v1/admin/events', { token: api.token('admin'), body });
    expectInvalid(res, field);
    expect(await eventsNamed(name)).toBe(0);
  });

  test.each([
    ['malformed JSON', '{"name": "x", "startsAt": '],
    ['JSON null', 'null'],
    ['a JSON string', '"an event"'],
    ['no body at all', ''],
  ])('when the body is %s, then 400 VALIDATION_FAILED and no event is written', async (_what, raw) => {
    const res = await api.call('POST', '/v1/admin/events', { token: api.token('admin'), raw });
    expectInvalid(res);
    expect(await eventsNamed(name)).toBe(0);
  });

  test('when the body is not sent as JSON, then 400 VALIDATION_FAILED', async () => {
    const res = await api.call('POST', '/v1/admin/events', {
      token: api.token('admin'), raw: JSON.stringify(valid), headers: { 'content-type': 'text/plain' },
    });
    expectInvalid(res);
    expect(await eventsNamed(name)).toBe(0);
  });

  test('when the same seat comes twice, then the details name both places and nothing is written', async () => {
    const seats = [...seatGrid(['A'], 2, 5), { section: 'A', row: '2', number: 3, tier: 'other', priceCents: 1 }];
    const res = await api.call('POST', '/v1/admin/events', { token: api.token('admin'), body: { ...valid, seats } });
    expectInvalid(res, 'seats.10');
    expect(res.body.error.details.fields).toEqual([{ path: 'seats.10', message: expect.stringContaining('seats.7 (A-2-3') }]);
    expect(await eventsNamed(name)).toBe(0);
  });
});

describe('validation of POST /v1/events/{id}/holds', () => {
  let event: { id: string; ticketTypes: { id: string }[] };
  let seats: { id: string }[];
  beforeAll(async () => {
    ({ event, seats } = await createTestEvent(api, {
      seats: seatGrid(['A'], 1, 4, 'std'), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10 }],
    }));
  });
  afterAll(async () => { await dropTestEvent(api, event.id); });

  const cases = (): [string, unknown, string | undefined][] => {
    const [s1, s2] = [seats[0]!.id, seats[1]!.id];
    const tt = event.ticketTypes[0]!.id;
    return [
      ['an empty body', {}, undefined],
      ['empty seatIds', { seatIds: [] }, 'seatIds'],
      ['duplicate seat ids', { seatIds: [s1, s2, s1] }, 'seatIds.2'],
      ['seat ids of the wrong type', { seatIds: [1, 2] }, 'seatIds.0'],
      ['seatIds as a string', { seatIds: s1 }, 'seatIds'],
      ['an unknown field', { seatIds: [s1], note: 'window please' }, 'note'],
      ['seatIds and a tier', { seatIds: [s1], tier: 'std', quantity: 1 }, undefined],
      ['a tier and a ticket type', { tier: 'std', ticketTypeId: tt, quantity: 1 }, undefined],
      ['seatIds with a quantity', { seatIds: [s1], quantity: 1 }, 'quantity'],
      ['a tier without quantity', { tier: 'std' }, 'quantity'],
      ['a ticket type without quantity', { ticketTypeId: tt }, 'quantity'],
      ['quantity 0', { ticketTypeId: tt, quantity: 0 }, 'quantity'],
      ['a negative quantity', { tier: 'std', quantity: -2 }, 'quantity'],
      ['a quantity not whole', { ticketTypeId: tt, quantity: 1.5 }, 'quantity'],
      ['a quantity as a string', { ticketTypeId: tt, quantity: '2' }, 'quantity'],
      ['a quantity of 101', { ticketTypeId: tt, quantity: 101 }, 'quantity'],
      ['a list for a body', [{ seatIds: [s1] }], undefined],
    ];
  };

  test('when a hold body is invalid in any of many ways, then each answers 400 VALIDATION_FAILED naming the field and nothing is held', async () => {
    for (const [what, body, field] of cases()) {
      const res = await holdPost(api, event.id, `v-${run}`, body);
      try {
        expectInvalid(res, field);
      } catch (err) {
        throw new Error(`${what}: ${(err as Error).message}`);
      }
    }
    for (const raw of ['{"seatIds": [', 'null', '[]', '']) {
      const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer', `v-${run}`), raw });
      expectInvalid(res);
    }
    const seatIds = Array.from({ length: 6000 }, (_, i) => `${seats[0]!.id}-${i}`);
    const big = await holdPost(api, event.id, `v-${run}`, { seatIds });
    expect([400, 413]).toContain(big.status);
    expectError(big, big.status, big.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_FAILED');
    await expectNoHoldWritten(event.id);
  });

  test('when a hold names seats, ticket types or tiers the event does not have, then 404 or 400 and nothing is held', async () => {
    const token = api.token('customer', `nf-${run}`);
    const path = `/v1/events/${event.id}/holds`;
    const unknownSeat = await api.call('POST', path, { token, body: { seatIds: [seats[0]!.id, '00000000-0000-4000-8000-000000000000', 'x'] } });
    expectError(unknownSeat, 404, 'SEAT_NOT_FOUND');
    expect(unknownSeat.body.error.details.seatIds).toEqual(['00000000-0000-4000-8000-000000000000', 'x']);
    expectError(await api.call('POST', path, { token, body: { ticketTypeId: 'x', quantity: 1 } }), 404, 'TICKET_TYPE_NOT_FOUND');
    expectError(await api.call('POST', path, { token, body: { ticketTypeId: seats[0]!.id, quantity: 1 } }), 404, 'TICKET_TYPE_NOT_FOUND');
    expectInvalid(await api.call('POST', path, { token, body: { tier: 'balcony', quantity: 1 } }), 'tier');
    await expectNoHoldWritten(event.id);
  });
});

describe('malformed and unknown ids', () => {
  const unknownEvent = '7b0c3d7e-6b1f-4c55-9a53-0d7e9b5d2f11';
  const unknownHold = holdIdOf(unknownEvent, 'ab'.repeat(12));
  const malformedEvents = ['abc', '1', `${unknownEvent}x`, unknownEvent.toUpperCase().replace(/-/g, ''), "x'--", '%E0%A4%A', '%00', 'a'.repeat(300)];
  const malformedHolds = ['x', 'hld_', `hld_abc_def`, `${unknownHold}0`, '%E0%A4%A', '..%2F..', 'a'.repeat(300)];

  test('when an event id is malformed, then it answers the same 404 EVENT_NOT_FOUND as an unknown one, never a 500', async () => {
    const token = api.token('customer', `ids-${run}`);
    const unknown = await api.call('GET', `/v1/events/${unknownEvent}`);
    expectError(unknown, 404, 'EVENT_NOT_FOUND');
    for (const id of [unknownEvent, ...malformedEvents]) {
      for (const [method, path, opts] of [
        ['GET', `/v1/events/${id}`, {}],
        ['GET', `/v1/events/${id}/seats`, {}],
        ['POST', `/v1/events/${id}/holds`, { token, body: { ticketTypeId: 'x', quantity: 1 } }],
      ] as const) {
        const res = await api.call(method, path, opts);
        try {
          expectError(res, 404, 'EVENT_NOT_FOUND');
          expect(res.body).toEqual(unknown.body);
        } catch (err) {
          throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)} ${(err as Error).message}`);
        }
      }
    }
  });

  test('when a hold id is malformed, then it answers the same 404 HOLD_NOT_FOUND as an unknown one, never a 500', async () => {
    const token = api.token('customer', `ids-${run}`);
    const unknown = await api.call('GET', `/v1/holds/${unknownHold}`, { token });
    expectError(unknown, 404, 'HOLD_NOT_FOUND');
    for (const id of [unknownHold, ...malformedHolds]) {
      for (const method of ['GET', 'DELETE']) {
        const res = await api.call(method, `/v1/holds/${id}`, { token });
        try {
          expectError(res, 404, 'HOLD_NOT_FOUND');
          expect(res.body).toEqual(unknown.body);
        } catch (err) {
          throw new Error(`${method} /v1/holds/${id}: ${res.status} ${JSON.stringify(res.body)} ${(err as Error).message}`);
        }
      }
    }
  });

  test('when a path or query is unknown, then the answer is still the contract\'s JSON error body', async () => {
    expectError(await api.call('GET', '/v1/nothing-here'), 404, 'NOT_FOUND');
    expectError(await api.call('GET', `/v1/events/${unknownEvent}?limit=5`), 400, 'VALIDATION_FAILED');
    expectInvalid(await api.call('GET', '/v1/events?limit=0'), 'limit');
    expectInvalid(await api.call('GET', '/v1/events?cursor=bm9wZQ'), 'cursor');
  });
});
