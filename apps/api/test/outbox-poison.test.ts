// Issue 15, point 7: money is stored as bigint, and one hold record PostgreSQL refuses
// cannot block its event's outbox: it is parked with its error and the others go on.
import { randomBytes } from 'node:crypto';
import { holdIdOf } from '@holdfast/contracts';
import { eventKeys } from '@holdfast/hold-store';
import { expectInvariants, seatGrid, useTestApi, confirmVia, holdSeats, holdTickets } from '@holdfast/test-kit';

const suite = useTestApi();
const { newEvent } = suite;

const holdRows = (ids: string[]) =>
  suite.api.rt.db.$queryRaw<{ id: string; total: string }[]>`SELECT id, total_cents::text AS total FROM holds WHERE id = ANY(${ids}::text[]) ORDER BY id`;

async function parkedCount(): Promise<number> {
  const res = await fetch(`${suite.api.url}/metrics`);
  const line = (await res.text()).split('\n').find((l) => l.startsWith('holdfast_outbox_parked_total '));
  return Number(line?.split(' ')[1] ?? 'NaN');
}

test('when a hold’s total is above PostgreSQL’s integer, then it is persisted and confirmed, and the event’s later holds are persisted too', async () => {
  const { event, seats } = await newEvent({
    maxTicketsPerCustomer: 100, seats: seatGrid(['A'], 1, 2), ticketTypes: [{ name: 'Gold', priceCents: 100_000_000, capacity: 100 }],
  });
  const tt = event.ticketTypes[0].id as string;
  const big = await holdTickets(suite.api, event.id, 'whale', tt, 30);
  expect(big.totalCents).toBe(3_000_000_000);
  const after = await holdSeats(suite.api, event.id, 'next', [seats[0]!.id]);
  await suite.api.rt.ctx.persister.flush([event.id]);

  expect(await holdRows([big.id, after.id])).toEqual(
    [{ id: big.id, total: '3000000000' }, { id: after.id, total: '5000' }].sort((a, b) => a.id.localeCompare(b.id)),
  );
  expect(await suite.api.rt.ctx.store.outboxLength(event.id)).toBe(0);
  const read = await suite.api.call('GET', `/v1/holds/${big.id}`, { token: suite.api.token('service') });
  expect(read.body.hold.totalCents).toBe(3_000_000_000);

  const confirmed = await confirmVia(suite.api, big.id);
  expect(confirmed.status).toBe(201);
  expect(confirmed.body.order.totalCents).toBe(3_000_000_000);
  const order = await suite.api.call('GET', `/v1/orders/${confirmed.body.order.id}`, { token: suite.api.token('service') });
  expect(order.body.order.totalCents).toBe(3_000_000_000);
  await expectInvariants(suite.api.rt.db, event.id);
});

test('when PostgreSQL refuses one outbox record, then it is parked with its error and counted, and the event’s other holds are persisted', async () => {
  const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 4) });
  const k = eventKeys(event.id);
  const before = await parkedCount();
  const first = await holdSeats(suite.api, event.id, 'first', [seats[0]!.id]);
  // A record PostgreSQL cannot store (a total beyond bigint), between two good ones.
  const poisonId = holdIdOf(event.id, randomBytes(12).toString('hex'));
  const json = JSON.stringify({
    eventId: event.id, customerId: 'poison', currency: 'USD', totalCents: 1e20,
    items: [{ seatId: seats[3]!.id, label: 'A-1-4', tier: 'standard', priceCents: 5000, quantity: 1 }],
  });
  await suite.api.rt.redis.xadd(k.outbox, '*', 'holdId', poisonId, 'createdAt', Date.now(), 'expiresAt', Date.now() + 600_000, 'json', json);
  const second = await holdSeats(suite.api, event.id, 'second', [seats[1]!.id]);
  await suite.api.rt.ctx.persister.flush([event.id]);

  expect((await holdRows([first.id, second.id, poisonId])).map((r) => r.id).sort()).toEqual([first.id, second.id].sort());
  expect(await suite.api.rt.ctx.store.outboxLength(event.id)).toBe(0);
  const parked = await suite.api.rt.ctx.store.parkedOutbox(event.id);
  expect(parked).toHaveLength(1);
  expect(parked[0]).toMatchObject({ holdId: poisonId, json });
  expect(parked[0]!.error).toMatch(/SQLSTATE 22003/);
  expect(await parkedCount()).toBe(before + 1);

  // The outbox keeps draining afterwards.
  const third = await holdSeats(suite.api, event.id, 'third', [seats[2]!.id]);
  await suite.api.rt.ctx.persister.flush([event.id]);
  expect((await holdRows([third.id])).map((r) => r.id)).toEqual([third.id]);
  await expectInvariants(suite.api.rt.db, event.id);
});
