// Sale windows through HTTP: draft and closed events refuse holds, the window
// [salesStartAt, salesEndAt) opens and closes at its exact edges, and a hold
// taken inside it still confirms after it closed.
import { saleState } from '@holdfast/domain';
import { seatGrid, useTestApi, type TestApi, confirmVia, holdTickets, rid, sleep, sleepUntil } from '@holdfast/test-kit';

const suite = useTestApi();
const { newEvent } = suite;

const patchEvent = (api: TestApi, eventId: string, body: unknown) =>
  api.call('PATCH', `/v1/admin/events/${eventId}`, { token: api.token('admin', 'box-office'), body });

/** Holds one ticket for a new customer every few ms until `untilMs`; each reply with its send and receive times. */
/** Holds one ticket at a time until 400 ms past the edge and at least 11 answers were sent after it (a loaded machine answers slowly). */
async function hammer(api: TestApi, eventId: string, ticketTypeId: string, edgeMs: number) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any field of any answer
  const replies: { sentAt: number; receivedAt: number; status: number; body: any }[] = [];
  const giveUpAt = edgeMs + 20_000;
  const enough = () => Date.now() >= edgeMs + 400 && replies.filter((r) => r.sentAt >= edgeMs).length > 10;
  while (!enough() && Date.now() < giveUpAt) {
    const sentAt = Date.now();
    const res = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: api.token('customer', rid('edge')), body: { ticketTypeId, quantity: 1 },
    });
    replies.push({ sentAt, receivedAt: Date.now(), status: res.status, body: res.body });
    await sleep(4); // a few ms between requests, so the answers are spread across the edge
  }
  return replies;
}

test('when the sale is at its exact edges, then the start is inside the window and the end is not (to the millisecond)', () => {
  const start = new Date('2027-03-01T10:00:00.000Z');
  const end = new Date('2027-03-01T12:00:00.000Z');
  const ev = { salesStatus: 'on_sale' as const, salesStartAt: start, salesEndAt: end };
  expect(saleState(ev, start.getTime() - 1)).toBe('not_yet');
  expect(saleState(ev, start.getTime())).toBe('open');
  expect(saleState(ev, end.getTime() - 1)).toBe('open');
  expect(saleState(ev, end.getTime())).toBe('ended');
  expect(saleState({ ...ev, salesStatus: 'draft' }, start.getTime())).toBe('draft');
  expect(saleState({ ...ev, salesStatus: 'closed' }, start.getTime())).toBe('closed');
  expect(saleState({ salesStatus: 'on_sale', salesStartAt: null, salesEndAt: null }, 0)).toBe('open');
});

test('when an event is a draft or closed, then holds are 409 SALES_CLOSED with its status; on_sale lets them through; the change is audited', async () => {
  const { event, seats } = await newEvent({ salesStatus: 'draft', seats: seatGrid(['A'], 1, 2) });
  expect(event).toMatchObject({ salesStatus: 'draft', salesStartAt: null, salesEndAt: null, maxHoldExtensions: 1, maxHoldSeconds: 1800 });
  const hold = () => suite.api.call('POST', `/v1/events/${event.id}/holds`, { token: suite.api.token('customer', rid('c')), body: { seatIds: [seats[0]!.id] } });
  const draft = await hold();
  expect(draft.status).toBe(409);
  expect(draft.body.error).toMatchObject({ code: 'SALES_CLOSED', details: { salesStatus: 'draft', salesStartAt: null, salesEndAt: null } });
  expect(Math.abs(Date.parse(draft.body.error.details.serverTime) - Date.now())).toBeLessThan(2000);

  const opened = await patchEvent(suite.api, event.id, { salesStatus: 'on_sale' });
  expect([opened.status, opened.body.event?.salesStatus]).toEqual([200, 'on_sale']);
  const held = await hold();
  expect(held.status).toBe(201);

  expect((await patchEvent(suite.api, event.id, { salesStatus: 'closed' })).status).toBe(200);
  const closed = await suite.api.call('POST', `/v1/events/${event.id}/holds`, { token: suite.api.token('customer', rid('c')), body: { seatIds: [seats[1]!.id] } });
  expect(closed.body.error).toMatchObject({ code: 'SALES_CLOSED', details: { salesStatus: 'closed' } });

  const audit = await suite.api.call('GET', `/v1/admin/audit?eventId=${event.id}`, { token: suite.api.token('admin') });
  expect(audit.body.entries.map((e: { action: string; actor: string }) => `${e.action} ${e.actor}`)).toEqual([
    expect.stringMatching(/^event.created admin:/), 'event.updated admin:box-office', 'event.updated admin:box-office',
  ]);
});

test('when buyers hold right up to and past salesStartAt, then every refusal was decided before it and every hold after it', async () => {
  const start = new Date(Date.now() + 3000);
  const { event } = await newEvent({ salesStartAt: start.toISOString(), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10_000 }] });
  expect(event.salesStartAt).toBe(start.toISOString());
  const replies = await hammer(suite.api, event.id, event.ticketTypes[0].id, start.getTime());
  const refused = replies.filter((r) => r.status === 409);
  const held = replies.filter((r) => r.status === 201);
  expect(refused.length + held.length).toBe(replies.length);
  expect(refused.length).toBeGreaterThan(10);
  expect(held.length).toBeGreaterThan(10);
  for (const r of refused) {
    expect(r.body.error).toMatchObject({ code: 'SALES_CLOSED', details: { salesStatus: 'on_sale', salesStartAt: start.toISOString(), salesEndAt: null } });
    expect(r.sentAt).toBeLessThan(start.getTime());
    expect(Date.parse(r.body.error.details.serverTime)).toBeLessThan(start.getTime());
  }
  for (const r of held) {
    expect(r.receivedAt).toBeGreaterThanOrEqual(start.getTime());
    expect(Date.parse(r.body.hold.createdAt)).toBeGreaterThanOrEqual(start.getTime());
  }
  // Refusals first, then holds: the window opened once.
  const firstHeld = replies.findIndex((r) => r.status === 201);
  expect(replies.slice(firstHeld).every((r) => r.status === 201)).toBe(true);
});

test('when buyers hold right up to and past salesEndAt, then every hold was decided before it and every refusal after it', async () => {
  const end = new Date(Date.now() + 3000);
  const { event } = await newEvent({ salesEndAt: end.toISOString(), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10_000 }] });
  const replies = await hammer(suite.api, event.id, event.ticketTypes[0].id, end.getTime());
  const refused = replies.filter((r) => r.status === 409);
  const held = replies.filter((r) => r.status === 201);
  expect(refused.length + held.length).toBe(replies.length);
  expect(refused.length).toBeGreaterThan(10);
  expect(held.length).toBeGreaterThan(10);
  for (const r of held) expect(r.sentAt).toBeLessThan(end.getTime());
  for (const r of refused) {
    expect(r.body.error).toMatchObject({ code: 'SALES_CLOSED', details: { salesStatus: 'on_sale', salesEndAt: end.toISOString() } });
    expect(r.receivedAt).toBeGreaterThanOrEqual(end.getTime());
    expect(Date.parse(r.body.error.details.serverTime)).toBeGreaterThanOrEqual(end.getTime());
  }
  const firstRefused = replies.findIndex((r) => r.status === 409);
  expect(replies.slice(firstRefused).every((r) => r.status === 409)).toBe(true);
});

test('when the window closes (or the sale is closed) after a hold was taken inside it, then that hold still confirms', async () => {
  const { event } = await newEvent({ salesEndAt: new Date(Date.now() + 800).toISOString(), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 5 }] });
  const tt = event.ticketTypes[0].id;
  const a = await holdTickets(suite.api, event.id, rid('a'), tt, 2);
  const b = await holdTickets(suite.api, event.id, rid('b'), tt, 1);
  await sleepUntil(event.salesEndAt, 50);
  const late = await suite.api.call('POST', `/v1/events/${event.id}/holds`, { token: suite.api.token('customer', rid('c')), body: { ticketTypeId: tt, quantity: 1 } });
  expect(late.body.error?.code).toBe('SALES_CLOSED');
  expect((await confirmVia(suite.api, a.id)).status).toBe(201);
  expect((await patchEvent(suite.api, event.id, { salesStatus: 'closed' })).status).toBe(200);
  expect((await confirmVia(suite.api, b.id)).status).toBe(201);
});

test('when sale settings are not valid, then 400 VALIDATION_FAILED names the field and nothing changes', async () => {
  const bad = await suite.api.call('POST', '/v1/admin/events', {
    token: suite.api.token('admin'),
    body: { name: 'x', startsAt: '2027-01-01T19:00:00Z', salesStartAt: '2027-01-01T10:00:00Z', salesEndAt: '2027-01-01T10:00:00Z' },
  });
  expect(bad.status).toBe(400);
  expect(bad.body.error.details.fields).toEqual([{ path: 'salesEndAt', message: 'must be later than salesStartAt' }]);
  const cap = await suite.api.call('POST', '/v1/admin/events', {
    token: suite.api.token('admin'), body: { name: 'x', startsAt: '2027-01-01T19:00:00Z', holdTtlSeconds: 900, maxHoldSeconds: 600 },
  });
  expect(cap.body.error?.details.fields[0].path).toBe('maxHoldSeconds');
  const status = await suite.api.call('POST', '/v1/admin/events', {
    token: suite.api.token('admin'), body: { name: 'x', startsAt: '2027-01-01T19:00:00Z', salesStatus: 'open' },
  });
  expect(status.body.error?.code).toBe('VALIDATION_FAILED');

  const { event } = await newEvent({ salesStartAt: '2027-01-01T10:00:00.000Z' });
  const before = await suite.api.call('GET', `/v1/events/${event.id}`);
  for (const body of [{}, { salesEndAt: '2026-12-31T10:00:00Z' }, { seats: [] }, { maxHoldExtensions: 11 }, { salesStatus: 'OPEN' }]) {
    const r = await patchEvent(suite.api, event.id, body);
    expect([r.status, r.body.error?.code]).toEqual([400, 'VALIDATION_FAILED']);
  }
  expect((await suite.api.call('GET', `/v1/events/${event.id}`)).body).toEqual(before.body);
  expect((await patchEvent(suite.api, '00000000-0000-4000-8000-000000000000', { name: 'y' })).body.error?.code).toBe('EVENT_NOT_FOUND');
  expect((await suite.api.call('PATCH', `/v1/admin/events/${event.id}`, { token: suite.api.token('customer'), body: { name: 'y' } })).status).toBe(403);
  // null clears a bound.
  const cleared = await patchEvent(suite.api, event.id, { salesStartAt: null, holdTtlSeconds: 120, maxHoldExtensions: 2 });
  expect(cleared.body.event).toMatchObject({ salesStartAt: null, holdTtlSeconds: 120, maxHoldExtensions: 2 });
});
