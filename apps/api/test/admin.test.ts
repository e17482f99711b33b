import { randomUUID } from 'node:crypto';
import { holdIdOf } from '@holdfast/contracts';
import { createTestEvent, dropTestEvent, seatGrid, useTestApi } from '@holdfast/test-kit';

const { api } = useTestApi();
let adminToken: string;
beforeAll(() => { adminToken = api.token('admin', 'admin-ann'); });

async function hold(eventId: string, seatId: string, customer = `c-${randomUUID()}`) {
  const token = api.token('customer', customer);
  const res = await api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds: [seatId] } });
  if (res.status !== 201) throw new Error(`hold failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { hold: res.body.hold, token };
}

/** Reads every page of an admin list, limit at a time; `between` runs after each page. */
async function allPages(path: string, key: string, limit: number, between?: () => Promise<void>) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any field of any answer
  const seen: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api.call('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: adminToken });
    expect(res.status).toBe(200);
    expect(res.body[key].length).toBeLessThanOrEqual(limit);
    seen.push(...res.body[key]);
    cursor = res.body.nextCursor;
    pages++;
    if (between) await between();
  } while (cursor && pages < 1000);
  return seen;
}

test('when an admin lists holds by status, then an active hold past its time reads expired and filters as expired', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 4) });
  try {
    const a = await hold(event.id, seats[0]!.id);
    const b = await hold(event.id, seats[1]!.id);
    const c = await hold(event.id, seats[2]!.id);
    await api.call('DELETE', `/v1/holds/${c.hold.id}`, { token: c.token });
    await api.rt.ctx.persister.flush([event.id]);
    // b's time has passed but nothing has marked the row expired yet.
    await api.rt.db.$executeRaw`UPDATE holds SET expires_at = now() - interval '1 second' WHERE id = ${b.hold.id}`;

    const ids = async (status?: string) => {
      const res = await api.call('GET', `/v1/admin/holds?eventId=${event.id}${status ? `&status=${status}` : ''}`, { token: adminToken });
      expect(res.status).toBe(200);
      expect(res.body.nextCursor).toBeNull();
      return res.body.holds.map((h: { id: string; status: string }) => `${h.id}:${h.status}`).sort();
    };
    expect(await ids('active')).toEqual([`${a.hold.id}:active`]);
    expect(await ids('expired')).toEqual([`${b.hold.id}:expired`]);
    expect(await ids('released')).toEqual([`${c.hold.id}:released`]);
    expect(await ids('confirmed')).toEqual([]);
    expect(await ids()).toEqual([`${a.hold.id}:active`, `${b.hold.id}:expired`, `${c.hold.id}:released`].sort());
    const full = await api.call('GET', `/v1/admin/holds?eventId=${event.id}&status=active`, { token: adminToken });
    expect(Object.keys(full.body.holds[0]).sort()).toEqual(
      ['id', 'eventId', 'customerId', 'status', 'createdAt', 'expiresAt', 'items', 'totalCents', 'currency', 'orderId', 'releasedBy', 'extensions'].sort(),
    );
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an admin force-releases a hold with a reason, then its seat is free, it reads released by admin and the audit log says who and why', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
  try {
    const { hold: h } = await hold(event.id, seats[0]!.id);
    const res = await api.call('DELETE', `/v1/admin/holds/${h.id}`, { token: adminToken, body: { reason: 'customer called: card declined twice' } });
    expect(res.status).toBe(200);
    expect(res.body.hold).toMatchObject({ id: h.id, status: 'released', releasedBy: 'admin' });
    const map = await api.call('GET', `/v1/events/${event.id}/seats`);
    expect(map.body.seats.find((s: { id: string }) => s.id === seats[0]!.id).status).toBe('available');
    // Someone else can take it at once.
    await hold(event.id, seats[0]!.id);

    const again = await api.call('DELETE', `/v1/admin/holds/${h.id}`, { token: adminToken, body: { reason: 'twice' } });
    expect(again.status).toBe(200);
    expect(again.body.hold.status).toBe('released');

    const audit = await api.call('GET', `/v1/admin/audit?eventId=${event.id}`, { token: adminToken });
    expect(audit.status).toBe(200);
    const releases = audit.body.entries.filter((e: { action: string }) => e.action === 'hold.released');
    expect(releases).toHaveLength(1); // the second release changed nothing and records nothing
    const [entry] = releases;
    expect(entry).toEqual({
      at: expect.any(String), actor: 'admin:admin-ann', action: 'hold.released', holdId: h.id, orderId: null,
      reason: 'customer called: card declined twice',
    });
    expect(Math.abs(Date.parse(entry.at) - Date.now())).toBeLessThan(60_000);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an admin release is malformed or aimed at a confirmed or unknown hold, then it answers 400, 409 or 404 and records nothing', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
  try {
    const { hold: h } = await hold(event.id, seats[0]!.id);
    const bad = [undefined, {}, { reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(501) }, { reason: 7 }, { reason: 'ok', extra: 1 }, { reason: 'a\u0000b' }];
    for (const body of bad) {
      const res = await api.call('DELETE', `/v1/admin/holds/${h.id}`, { token: adminToken, body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.fields.length).toBeGreaterThan(0);
    }
    const notJson = await api.call('DELETE', `/v1/admin/holds/${h.id}`, { token: adminToken, raw: '{"reason": ' });
    expect(notJson.status).toBe(400);
    const unknown = await api.call('DELETE', `/v1/admin/holds/${holdIdOf(randomUUID(), '0'.repeat(24))}`, { token: adminToken, body: { reason: 'x' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('HOLD_NOT_FOUND');
    const garbage = await api.call('DELETE', '/v1/admin/holds/nonsense', { token: adminToken, body: { reason: 'x' } });
    expect(garbage.status).toBe(404);

    const get = await api.call('GET', `/v1/holds/${h.id}`, { token: adminToken });
    expect(get.body.hold.status).toBe('active');

    await api.rt.ctx.persister.flush([event.id]);
    await api.rt.db.$executeRaw`UPDATE holds SET status = 'CONFIRMED' WHERE id = ${h.id}`;
    const confirmed = await api.call('DELETE', `/v1/admin/holds/${h.id}`, { token: adminToken, body: { reason: 'x' } });
    expect(confirmed.status).toBe(409);
    expect(confirmed.body.error.code).toBe('HOLD_ALREADY_CONFIRMED');

    const audit = await api.call('GET', `/v1/admin/audit?eventId=${event.id}`, { token: adminToken });
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(['event.created']);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an admin creates an event, then the audit log records who did it and when', async () => {
  const res = await api.call('POST', '/v1/admin/events', { token: api.token('admin', 'admin-bo'), body: { name: 'Audited', startsAt: '2027-03-01T19:00:00Z' } });
  expect(res.status).toBe(201);
  try {
    const audit = await api.call('GET', `/v1/admin/audit?eventId=${res.body.event.id}`, { token: adminToken });
    expect(audit.body.entries).toEqual([
      { at: expect.any(String), actor: 'admin:admin-bo', action: 'event.created', holdId: null, orderId: null, reason: null },
    ]);
  } finally {
    await dropTestEvent(api, res.body.event.id);
  }
});

test('when an admin confirms a hold, then the audit log records the order as theirs; a service confirm is not an admin action', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 2) });
  try {
    const a = await hold(event.id, seats[0]!.id);
    const b = await hold(event.id, seats[1]!.id);
    const byAdmin = await api.call('POST', `/v1/holds/${a.hold.id}/confirm`, { token: adminToken, body: { paymentReference: 'pi_phone' } });
    expect(byAdmin.status).toBe(201);
    const byService = await api.call('POST', `/v1/holds/${b.hold.id}/confirm`, { token: api.token('service'), body: { paymentReference: 'pi_int' } });
    expect(byService.status).toBe(201);
    const again = await api.call('POST', `/v1/holds/${a.hold.id}/confirm`, { token: adminToken, body: { paymentReference: 'pi_phone' } });
    expect(again.status).toBe(200);
    const audit = await api.call('GET', `/v1/admin/audit?eventId=${event.id}`, { token: adminToken });
    expect(audit.body.entries.filter((e: { action: string }) => e.action === 'order.confirmed')).toEqual([
      { at: expect.any(String), actor: 'admin:admin-ann', action: 'order.confirmed', holdId: a.hold.id, orderId: byAdmin.body.order.id, reason: 'payment reference pi_phone' },
    ]);
    const orders = await api.call('GET', `/v1/admin/orders?eventId=${event.id}`, { token: adminToken });
    expect(orders.body.orders.map((o: { id: string }) => o.id).sort()).toEqual([byAdmin.body.order.id, byService.body.order.id].sort());
    expect(orders.body.orders[0].number).toMatch(/^[A-Z]+-\d{4}-\d{6,}$/);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an admin lists orders of an event, then each reads as the contract\'s Order with its items', async () => {
  const { event, seats } = await createTestEvent(api, {
    seats: seatGrid(['A'], 1, 2, 'premium', 12000), ticketTypes: [{ name: 'GA', priceCents: 5000, capacity: 10 }],
  });
  try {
    const orderId = randomUUID();
    const holdId = holdIdOf(event.id, orderId.replace(/-/g, '').slice(0, 24));
    const number = `HF-2099-${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
    const db = api.rt.db;
    await db.$executeRaw`INSERT INTO orders (id, number, event_id, customer_id, hold_id, total_cents, currency, payment_reference)
      VALUES (${orderId}::uuid, ${number}, ${event.id}::uuid, 'cust-1', ${holdId}, 22000, 'USD', 'pi_123')`;
    await db.$executeRaw`INSERT INTO order_items (id, order_id, seat_id, ticket_type_id, label, tier, price_cents, quantity, position) VALUES
      (${randomUUID()}::uuid, ${orderId}::uuid, ${seats[0]!.id}::uuid, NULL, 'A-1-1', 'premium', 12000, 1, 0),
      (${randomUUID()}::uuid, ${orderId}::uuid, NULL, ${event.ticketTypes[0].id}::uuid, 'GA', NULL, 5000, 2, 1)`;
    const res = await api.call('GET', `/v1/admin/orders?eventId=${event.id}`, { token: adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      orders: [{
        id: orderId, number, eventId: event.id, customerId: 'cust-1', holdId, status: 'confirmed',
        items: [
          { seatId: seats[0]!.id, label: 'A-1-1', tier: 'premium', priceCents: 12000, quantity: 1 },
          { ticketTypeId: event.ticketTypes[0].id, name: 'GA', priceCents: 5000, quantity: 2 },
        ],
        totalCents: 22000, currency: 'USD', paymentReference: 'pi_123', createdAt: expect.any(String),
      }],
      nextCursor: null,
    });
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an admin lists payments, then refund-required ones come first, the status filter holds and paging repeats none', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 5000, capacity: 10 }] });
  try {
    const mine: { id: string; status: string }[] = [];
    for (let i = 0; i < 7; i++) {
      const id = randomUUID();
      const status = i % 3 === 0 ? 'REFUND_REQUIRED' : 'APPLIED';
      await api.rt.db.$executeRaw`INSERT INTO payments (id, provider, provider_event_id, reference, hold_id, amount_cents, currency, status, reason, event_id)
        VALUES (${id}::uuid, 'stripe', ${`evt_${id}`}, ${`pi_${i}`}, NULL, 5000, 'usd', ${status}::"PaymentStatus",
                ${status === 'APPLIED' ? null : 'hold expired and its seats are gone'}, ${event.id}::uuid)`;
      mine.push({ id, status: status.toLowerCase() });
    }
    const all = await allPages('/v1/admin/payments', 'payments', 2);
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    const lastRefund = all.map((p) => p.status).lastIndexOf('refund_required');
    const firstApplied = all.map((p) => p.status).indexOf('applied');
    expect(lastRefund).toBeLessThan(firstApplied);
    const ours = all.filter((p) => mine.some((m) => m.id === p.id));
    expect(ours).toHaveLength(7);
    const refund = ours.find((p) => p.status === 'refund_required');
    expect(refund).toEqual({
      id: refund.id, provider: 'stripe', reference: refund.reference, holdId: null, amountCents: 5000, currency: 'usd',
      status: 'refund_required', reason: 'hold expired and its seats are gone', orderId: null, receivedAt: expect.any(String), refund: null,
    });
    const onlyRefunds = await allPages('/v1/admin/payments?status=refund_required', 'payments', 1);
    expect(onlyRefunds.every((p) => p.status === 'refund_required')).toBe(true);
    expect(onlyRefunds.filter((p) => mine.some((m) => m.id === p.id))).toHaveLength(3);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when holds are taken while an admin pages through them, then every earlier hold appears exactly once', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A', 'B'], 2, 10) });
  try {
    const before: string[] = [];
    for (let i = 0; i < 9; i++) before.push((await hold(event.id, seats[i]!.id)).hold.id);
    let next = 9;
    const added: string[] = [];
    const seen = await allPages(`/v1/admin/holds?eventId=${event.id}`, 'holds', 2, async () => {
      if (next < 20) {
        // Two new holds arrive at once between pages.
        const got = await Promise.all([hold(event.id, seats[next]!.id), hold(event.id, seats[next + 1]!.id)]);
        added.push(...got.map((g) => g.hold.id));
        next += 2;
      }
    });
    const ids = seen.map((h) => h.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of before) expect(ids.filter((x) => x === id)).toHaveLength(1);
    expect(ids.length).toBeGreaterThanOrEqual(before.length);
    expect(added.length).toBeGreaterThan(0);
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when an admin list gets unknown params, a bad limit, a forged cursor or a bad filter, then it answers 400 naming the field', async () => {
  const cases: [string, string][] = [
    ['/v1/admin/holds?foo=1', 'foo'],
    ['/v1/admin/holds?limit=0', 'limit'],
    ['/v1/admin/holds?limit=1001', 'limit'],
    ['/v1/admin/holds?limit=abc', 'limit'],
    ['/v1/admin/holds?status=pending', 'status'],
    ['/v1/admin/holds?eventId=not-a-uuid', 'eventId'],
    ['/v1/admin/holds?cursor=garbage', 'cursor'],
    [`/v1/admin/holds?cursor=${Buffer.from(`2026-01-01T00:00:00.000Z|x'; DROP TABLE holds;--`).toString('base64url')}`, 'cursor'],
    ['/v1/admin/orders?eventId=1', 'eventId'],
    [`/v1/admin/orders?cursor=${Buffer.from('2026-01-01T00:00:00.000Z|not-uuid').toString('base64url')}`, 'cursor'],
    ['/v1/admin/orders?status=x', 'status'],
    ['/v1/admin/payments?status=paid', 'status'],
    [`/v1/admin/payments?cursor=${Buffer.from(`2026-01-01T00:00:00.000Z|${randomUUID()}`).toString('base64url')}`, 'cursor'],
    ['/v1/admin/audit?limit=-5', 'limit'],
    ['/v1/admin/audit?eventId=a&eventId=b', 'eventId'],
  ];
  for (const [path, field] of cases) {
    const res = await api.call('GET', path, { token: adminToken });
    expect([path, res.status]).toEqual([path, 400]);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.fields.map((f: { path: string }) => f.path).join(' ')).toContain(field);
  }
  const ok = await api.call('GET', '/v1/admin/audit?limit=1000', { token: adminToken });
  expect(ok.status).toBe(200);
});

test('when admins release holds while another pages through the audit log, then every earlier entry appears exactly once', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 8) });
  try {
    const holds: string[] = [];
    for (let i = 0; i < 8; i++) holds.push((await hold(event.id, seats[i]!.id)).hold.id);
    for (const id of holds.slice(0, 3)) await api.call('DELETE', `/v1/admin/holds/${id}`, { token: adminToken, body: { reason: `r-${id}` } });
    const before = (await api.call('GET', `/v1/admin/audit?eventId=${event.id}`, { token: adminToken })).body.entries;
    expect(before).toHaveLength(4); // event.created and three releases
    let next = 3;
    const seen = await allPages(`/v1/admin/audit?eventId=${event.id}`, 'entries', 1, async () => {
      if (next < 8) {
        await Promise.all(holds.slice(next, next + 2).map((id) =>
          api.call('DELETE', `/v1/admin/holds/${id}`, { token: adminToken, body: { reason: `r-${id}` } })));
        next += 2;
      }
    });
    const key = (e: { action: string; holdId: string | null }) => `${e.action}:${e.holdId}`;
    const keys = seen.map(key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const e of before) expect(keys.filter((k) => k === key(e))).toHaveLength(1);
    expect(keys.length).toBe(9); // the entries added while paging come after the cursor: none is lost
  } finally {
    await dropTestEvent(api, event.id);
  }
});
