// An API process loads an event's seat catalog before the sale's first hold: when a
// buyer reads the event there, and it keeps the seats when an admin changes settings.
// Every SQL statement sent to PostgreSQL is seen on the way (a pass-through spy).
import { holdPost, startApi, useTestApi, type TestApi } from '@holdfast/test-kit';
import { statementsDuring } from './sql-statements';

const { api, newEvent } = useTestApi();
/** A second API process (its own catalogs) on the same PostgreSQL and Redis. */
let second: TestApi;
beforeAll(async () => {
  second = await startApi();
});
afterAll(async () => {
  await second?.close();
});

async function waitFor(done: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!done() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

/** Statements that read seats with their labels: the seat map, whichever way it is read. */
const seatMapReads = (statements: readonly string[]) => statements.filter((t) => /\bseats\b/i.test(t) && /\blabel\b/i.test(t));

const seats = [
  { section: 'A', row: '1', number: 1, tier: 'front', priceCents: 9000 },
  { section: 'A', row: '1', number: 2, tier: 'front', priceCents: 9000 },
  { section: 'A', row: '2', number: 1, tier: 'main', priceCents: 4000 },
  { section: 'A', row: '2', number: 2, tier: 'main', priceCents: 4000 },
  { section: 'A', row: '2', number: 3, tier: 'main', priceCents: 4000 },
];

test('when a buyer reads an event on a process before holding, then that process\'s first hold of it does not read the seat map', async () => {
  const { event: read } = await newEvent({ seats, ticketTypes: [] });
  const { event: unread } = await newEvent({ seats, ticketTypes: [] });

  const viewed = await statementsDuring(async (seen) => {
    expect((await second.call('GET', `/v1/events/${read.id}`)).status).toBe(200);
    // The read answered; the catalog's load goes on in the background (its seat map read is awaited here).
    await waitFor(() => seatMapReads(seen).length > 0, 10_000);
  });
  expect(seatMapReads(viewed.statements)).toHaveLength(1);
  const first = await statementsDuring(() => holdPost(second, read.id, `buyer-${process.pid}-1`, { tier: 'main', quantity: 2 }));
  expect(first.result.status).toBe(201);
  expect(first.result.body.hold.items.map((i: { label: string }) => i.label)).toEqual(['A-2-1', 'A-2-2']);
  expect(seatMapReads(first.statements)).toEqual([]);

  // An event this process was never asked about is loaded by its first hold, as before.
  const cold = await statementsDuring(() => holdPost(second, unread.id, `buyer-${process.pid}-2`, { tier: 'front', quantity: 1 }));
  expect(cold.result.status).toBe(201);
  expect(seatMapReads(cold.statements)).toHaveLength(1);
});

test('when an unknown event is read, then 404 and no catalog is kept for it', async () => {
  const id = '00000000-0000-4000-8000-00000000c0de';
  expect((await second.call('GET', `/v1/events/${id}`)).status).toBe(404);
  expect(await second.rt.ctx.catalog.get(id)).toBeNull();
});

test('when an admin changes an event\'s settings, then its next hold follows them without reading the seat map again', async () => {
  const { event } = await newEvent({ seats, ticketTypes: [] });
  const patched = await api.call('PATCH', `/v1/admin/events/${event.id}`, { token: api.token('admin'), body: { maxTicketsPerCustomer: 1 } });
  expect(patched.status).toBe(200);
  const over = await statementsDuring(() => holdPost(api, event.id, `buyer-${process.pid}-3`, { tier: 'main', quantity: 2 }));
  expect(over.result.status).toBe(422);
  expect(over.result.body.error.code).toBe('LIMIT_EXCEEDED');
  const one = await statementsDuring(() => holdPost(api, event.id, `buyer-${process.pid}-4`, { tier: 'main', quantity: 1 }));
  expect(one.result.status).toBe(201);
  expect(seatMapReads([...over.statements, ...one.statements])).toEqual([]);
});
