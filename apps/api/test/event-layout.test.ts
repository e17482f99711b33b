// An event's seats given as a layout (sections × rows × seats per row, a tier and
// price by range of rows): the server makes the seats, labelled as the admin form
// labels them; a layout that is not valid is VALIDATION_FAILED and writes nothing.
import { createEvent } from '@holdfast/domain';
import { dropTestEvent, holdPost, useTestApi, type Reply } from '@holdfast/test-kit';

const { api } = useTestApi();
const run = `${process.pid}-${Date.now().toString(36)}`;

const range = (from: number, to: number, seatsPerRow: number, tier = 'standard', priceCents = 5000) => ({ from, to, seatsPerRow, tier, priceCents });

async function create(name: string, body: Record<string, unknown>): Promise<Reply> {
  return api.call('POST', '/v1/admin/events', { token: api.token('admin'), body: { name, startsAt: '2027-01-01T19:00:00Z', ...body } });
}

async function seatRows(eventId: string) {
  return api.rt.db.$queryRaw<{ label: string; section: string; row: string; number: number; tier: string; price: bigint }[]>`
    SELECT label, section, "row", number, tier, price_cents AS price FROM seats WHERE event_id = ${eventId}::uuid`;
}

async function written(name: string): Promise<{ events: number; seats: number }> {
  const [row] = await api.rt.db.$queryRaw<{ events: bigint; seats: bigint }[]>`
    SELECT count(*)::bigint AS events, (SELECT count(*) FROM seats s JOIN events e ON e.id = s.event_id WHERE e.name = ${name})::bigint AS seats
    FROM events WHERE name = ${name}`;
  return { events: Number(row!.events), seats: Number(row!.seats) };
}

test('when an event is created with a layout, then its seats are the layout\'s, labelled section-row-number with each range\'s tier and price', async () => {
  const res = await create(`layout-${run}`, {
    layout: {
      sections: [
        // Ranges in any order, with a gap (row 3 has no seats), seats per row by range.
        { name: 'Floor', rows: [range(4, 5, 3, 'back', 4500), range(1, 2, 2, 'front', 9000)] },
        { name: 'B', rows: [range(10, 10, 1, 'box', 25000)] },
      ],
    },
    ticketTypes: [{ name: 'Standing', priceCents: 3000, capacity: 50 }],
  });
  expect(res.status).toBe(201);
  const eventId: string = res.body.event.id;
  try {
    expect(res.body.event.seatCount).toBe(2 * 2 + 2 * 3 + 1);
    const expected = [
      ['Floor', '1', 1, 'front', 9000], ['Floor', '1', 2, 'front', 9000], ['Floor', '2', 1, 'front', 9000], ['Floor', '2', 2, 'front', 9000],
      ['Floor', '4', 1, 'back', 4500], ['Floor', '4', 2, 'back', 4500], ['Floor', '4', 3, 'back', 4500],
      ['Floor', '5', 1, 'back', 4500], ['Floor', '5', 2, 'back', 4500], ['Floor', '5', 3, 'back', 4500],
      ['B', '10', 1, 'box', 25000],
    ].map(([section, row, number, tier, price]) => ({ label: `${section}-${row}-${number}`, section, row, number, tier, price: BigInt(price!) }));
    const rows = await seatRows(eventId);
    const byLabel = (a: { label: string }, b: { label: string }) => a.label.localeCompare(b.label);
    expect(rows.sort(byLabel)).toEqual(expected.sort(byLabel));
    // The seat map says the same, and best available sells from the layout's tiers.
    const map = await api.call('GET', `/v1/events/${eventId}/seats`);
    expect(map.body.seats.map((s: { label: string }) => s.label).sort()).toEqual(expected.map((s) => s.label).sort());
    const held = await holdPost(api, eventId, `layout-buyer-${run}`, { tier: 'front', quantity: 2 });
    expect(held.status).toBe(201);
    expect(held.body.hold.items.map((i: { label: string; priceCents: number }) => [i.label, i.priceCents])).toEqual([['Floor-1-1', 9000], ['Floor-1-2', 9000]]);
  } finally {
    await dropTestEvent(api, eventId);
  }
});

test('when a layout of 100,000 seats is created through the API, then PostgreSQL has every seat and the last one can be held', async () => {
  const sections = Array.from({ length: 10 }, (_, s) => ({
    name: `S${s + 1}`, rows: [range(1, 20, 100, 'floor', 12000), range(21, 100, 100, 'upper', 6000)],
  }));
  const res = await create(`layout-100k-${run}`, { layout: { sections } });
  expect(res.status).toBe(201);
  const eventId: string = res.body.event.id;
  try {
    expect(res.body.event.seatCount).toBe(100_000);
    const [counts] = await api.rt.db.$queryRaw<{ n: bigint; labels: bigint; floor: bigint }[]>`
      SELECT count(*)::bigint AS n, count(DISTINCT label)::bigint AS labels,
             count(*) FILTER (WHERE tier = 'floor' AND price_cents = 12000)::bigint AS floor
      FROM seats WHERE event_id = ${eventId}::uuid`;
    expect(counts).toEqual({ n: 100_000n, labels: 100_000n, floor: 20_000n });
    const [last] = await api.rt.db.$queryRaw<{ id: string; tier: string }[]>`
      SELECT id::text, tier FROM seats WHERE event_id = ${eventId}::uuid AND label = 'S10-100-100'`;
    expect(last!.tier).toBe('upper');
    const held = await holdPost(api, eventId, `layout-100k-buyer-${run}`, { seatIds: [last!.id] });
    expect(held.status).toBe(201);
    expect(held.body.hold.items.map((i: { label: string }) => i.label)).toEqual(['S10-100-100']);
  } finally {
    await dropTestEvent(api, eventId);
  }
}, 180_000);

describe('a layout that is not valid is VALIDATION_FAILED and writes nothing', () => {
  const one = { sections: [{ name: 'A', rows: [range(1, 2, 10)] }] };
  const rowsOf = (...rows: unknown[]) => ({ sections: [{ name: 'A', rows }] });
  const cases: [string, Record<string, unknown>, string, RegExp | null][] = [
    ['both seats and a layout', { seats: [{ section: 'A', row: '1', number: 1, tier: 't', priceCents: 1 }], layout: one }, 'layout', /not both/],
    ['an empty seats list beside a layout', { seats: [], layout: one }, 'layout', /not both/],
    ['no sections', { layout: { sections: [] } }, 'layout.sections', null],
    ['a section with no rows', { layout: rowsOf() }, 'layout.sections.0.rows', /at least one range/],
    ['overlapping row ranges', { layout: rowsOf(range(1, 5, 10), range(8, 9, 10), range(5, 6, 10)) }, 'layout.sections.0.rows.2', /overlap rows 1-5/],
    ['the same row twice', { layout: rowsOf(range(3, 3, 10), range(3, 3, 10)) }, 'layout.sections.0.rows.1', /overlap/],
    ['a range ending before it starts', { layout: rowsOf(range(5, 4, 10)) }, 'layout.sections.0.rows.0.to', null],
    ['row 0', { layout: rowsOf(range(0, 4, 10)) }, 'layout.sections.0.rows.0.from', null],
    ['no seats per row', { layout: rowsOf(range(1, 4, 0)) }, 'layout.sections.0.rows.0.seatsPerRow', null],
    ['100,001 seats', { layout: { sections: [{ name: 'A', rows: [range(1, 1000, 100)] }, { name: 'B', rows: [range(1, 1, 1)] }] } }, 'layout', /100,001 seats; an event has at most 100,000/],
    ['ten billion seats', { layout: rowsOf(range(1, 100_000, 100_000)) }, 'layout', /10,000,000,000 seats/],
    ['an empty tier', { layout: rowsOf(range(1, 2, 10, ' ')) }, 'layout.sections.0.rows.0.tier', null],
    ['a tier of 51 characters', { layout: rowsOf(range(1, 2, 10, 't'.repeat(51))) }, 'layout.sections.0.rows.0.tier', null],
    ['a negative price', { layout: rowsOf(range(1, 2, 10, 't', -1)) }, 'layout.sections.0.rows.0.priceCents', null],
    ['a price with a fraction', { layout: rowsOf(range(1, 2, 10, 't', 10.5)) }, 'layout.sections.0.rows.0.priceCents', null],
    ['a price over the maximum', { layout: rowsOf(range(1, 2, 10, 't', 100_000_001)) }, 'layout.sections.0.rows.0.priceCents', null],
    ['a section named twice', { layout: { sections: [{ name: 'A', rows: [range(1, 1, 1)] }, { name: 'A', rows: [range(2, 2, 1)] }] } }, 'layout.sections.1.name', null],
    ['a section name with a dash', { layout: { sections: [{ name: 'A-1', rows: [range(1, 1, 1)] }] } }, 'layout.sections.0.name', null],
    ['an unknown field in a range', { layout: rowsOf({ ...range(1, 1, 1), label: 'x' }) }, 'layout.sections.0.rows.0.label', null],
  ];

  test.each(cases)('when the body has %s, then 400 VALIDATION_FAILED naming the field, and nothing is written', async (what, body, path, message) => {
    const name = `layout-bad-${run}-${what}`;
    const res = await create(name, body);
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    const fields: { path: string; message: string }[] = res.body.error.details.fields;
    const field = fields.find((f) => f.path === path);
    expect([what, field ? 'named' : fields]).toEqual([what, 'named']);
    if (message) expect(field!.message).toMatch(message);
    expect(await written(name)).toEqual({ events: 0, seats: 0 });
  });

  test('when the domain is given a layout of ten billion seats, then it is refused before any seat is made', async () => {
    const name = `layout-domain-${run}`;
    const started = process.memoryUsage().heapUsed;
    await expect(createEvent(api.rt.ctx, {
      name, startsAt: new Date('2027-01-01T19:00:00Z'), currency: 'USD', holdTtlSeconds: 600, maxTicketsPerCustomer: 10,
      layout: { sections: [{ name: 'A', rows: [range(1, 100_000, 100_000)] }] }, ticketTypes: [],
    })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: { fields: [{ path: 'layout', message: expect.stringMatching(/10,000,000,000 seats/) }] } });
    expect(process.memoryUsage().heapUsed - started).toBeLessThan(50 * 1024 * 1024);
    expect(await written(name)).toEqual({ events: 0, seats: 0 });
  });
});
