import { randomUUID } from 'node:crypto';
import { eventKeyPattern } from '@holdfast/hold-store';
import { seatGrid, useTestApi, holdPost, seatStatuses, tally, type Reply } from '@holdfast/test-kit';

// The documented default: more than 30 hold requests of one customer in a minute are refused.
const suite = useTestApi({ HOLD_RATE_LIMIT_PER_MINUTE: '30' });
const run = randomUUID().slice(0, 8);
const customer = (name: string) => `${name}-${run}`;

/** Sends `n` hold requests one after another (so their order is the order they are counted in). */
async function sequential(n: number, send: (i: number) => Promise<Reply>): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < n; i++) replies.push(await send(i));
  return replies;
}

function expectLimitedFrom31st(replies: Reply[], firstAnswer: string): void {
  expect(tally(replies.slice(0, 30))).toEqual({ [firstAnswer]: 30 });
  expect(tally(replies.slice(30))).toEqual({ '429 RATE_LIMITED': replies.length - 30 });
  for (const r of replies.slice(30)) {
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(r.body.error.details).toEqual({ retryAfterSeconds: retryAfter });
  }
}

test('when a customer sends 45 hold requests for an unknown seat within a minute, then the 31st and later answer 429 RATE_LIMITED with Retry-After, and other customers are not affected', async () => {
  const { event, seats } = await suite.newEvent({ seats: seatGrid(['A'], 1, 2) });
  const prober = customer('prober');
  const replies = await sequential(45, (i) => holdPost(suite.api, event.id, prober, { seatIds: [`no-such-seat-${i}`] }));
  expectLimitedFrom31st(replies, '404 SEAT_NOT_FOUND');
  // The prober is slowed down on real seats too: the window is the customer's, whatever they ask for.
  expect((await holdPost(suite.api, event.id, prober, { seatIds: [seats[0]!.id] })).status).toBe(429);
  // Another customer probing or holding is counted on their own.
  const other = customer('other');
  expect((await holdPost(suite.api, event.id, other, { seatIds: ['no-such-seat'] })).body.error.code).toBe('SEAT_NOT_FOUND');
  const held = await holdPost(suite.api, event.id, other, { seatIds: [seats[0]!.id] });
  expect(held.status).toBe(201);
  expect((await seatStatuses(suite.api, event.id)).get(seats[1]!.id)).toBe('available');
});

test('when a customer keeps sending hold requests that are not valid, then they count too and the 31st answers 429', async () => {
  const { event } = await suite.newEvent({ seats: seatGrid(['A'], 1, 2) });
  const c = customer('invalid');
  const bodies = [
    { seatIds: [] }, { tier: 'standard' }, { quantity: 0, tier: 'standard' }, { seatIds: ['a', 'a'] }, { nope: true },
    { tier: 'no-such-tier', quantity: 1 },
  ];
  const replies = await sequential(35, (i) =>
    i % 7 === 6
      ? suite.api.call('POST', `/v1/events/${event.id}/holds`, { token: suite.api.token('customer', c), raw: '{not json' })
      : holdPost(suite.api, event.id, c, bodies[i % 7]!),
  );
  expectLimitedFrom31st(replies, '400 VALIDATION_FAILED');
});

test('when a customer keeps asking for an unknown ticket type, then the 31st request answers 429', async () => {
  const { event } = await suite.newEvent({ ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 5 }] });
  const c = customer('tickets');
  const replies = await sequential(33, () => holdPost(suite.api, event.id, c, { ticketTypeId: randomUUID(), quantity: 1 }));
  expectLimitedFrom31st(replies, '404 TICKET_TYPE_NOT_FOUND');
});

test('when a customer keeps asking for seats another holds or a sold-out tier, then those refusals count and the 31st answers 429', async () => {
  const { event, seats } = await suite.newEvent({ seats: seatGrid(['A'], 1, 1), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 1 }] });
  expect((await holdPost(suite.api, event.id, customer('owner'), { seatIds: [seats[0]!.id] })).status).toBe(201);
  const gaType = (await suite.api.call('GET', `/v1/events/${event.id}`)).body.event.ticketTypes[0].id;
  expect((await holdPost(suite.api, event.id, customer('owner'), { ticketTypeId: gaType, quantity: 1 })).status).toBe(201);
  const c = customer('late');
  const replies = await sequential(32, (i) =>
    holdPost(suite.api, event.id, c, i % 2 ? { seatIds: [seats[0]!.id] } : { ticketTypeId: gaType, quantity: 1 }),
  );
  expect(tally(replies.slice(0, 30))).toEqual({ '409 SEATS_UNAVAILABLE': 15, '409 SOLD_OUT': 15 });
  expect(tally(replies.slice(30))).toEqual({ '429 RATE_LIMITED': 2 });
});

test('when a request names an event that does not exist, then it answers 404 EVENT_NOT_FOUND every time (there is no event to count it in)', async () => {
  const c = customer('no-event');
  const missing = randomUUID();
  const replies = await sequential(32, () => holdPost(suite.api, missing, c, { seatIds: ['x'] }));
  expect(tally(replies)).toEqual({ '404 EVENT_NOT_FOUND': 32 });
  const keys = await suite.api.rt.redis.keys(eventKeyPattern(missing));
  expect(keys).toEqual([]);
});
