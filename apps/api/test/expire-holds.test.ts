// An expiry job's holds expire together: one transaction marks the due ones expired with their
// events, and every hold named gets its own outcome, whatever became of it meanwhile.
import { expireHolds, newHoldId } from '@holdfast/domain';
import { eventKeys } from '@holdfast/hold-store';
import { dropTestWebhooks, holdPost, seatGrid, sleep, sleepUntil, useTestApi } from '@holdfast/test-kit';

const { api, newEvent } = useTestApi();
const run = `${process.pid}-${Date.now().toString(36)}`;

async function holdSeat(eventId: string, seatId: string, who: string) {
  const res = await holdPost(api, eventId, `${who}-${run}`, { seatIds: [seatId] });
  expect(res.status).toBe(201);
  return res.body.hold as { id: string; expiresAt: string };
}

test('when a job\'s holds are expired together, then the due ones expire once with their seats freed and a hold.expired event each, and a later one, a released one and a missing one each get their own outcome', async () => {
  const hooks = await Promise.all([1, 2].map((n) => api.call('POST', '/v1/admin/webhooks', {
    token: api.token('admin'), body: { url: `https://203.0.113.10/holdfast-expiry-${n}`, events: ['hold.expired'] },
  })));
  expect(hooks.map((h) => h.status)).toEqual([201, 201]);
  try {
    await expireTogether();
  } finally {
    await dropTestWebhooks(api, hooks.map((h) => h.body.webhook.id));
  }
});

async function expireTogether() {
  const { event, seats } = await newEvent({ holdTtlSeconds: 3, seats: seatGrid(['A'], 1, 5) });
  const k = eventKeys(event.id);
  const [a, b] = [await holdSeat(event.id, seats[0]!.id, 'a'), await holdSeat(event.id, seats[1]!.id, 'b')];
  const released = await holdSeat(event.id, seats[2]!.id, 'r');
  expect((await api.call('DELETE', `/v1/holds/${released.id}`, { token: api.token('customer', `r-${run}`) })).status).toBe(200);
  const later = await holdSeat(event.id, seats[3]!.id, 'l');
  // Extended a while later, the last hold falls due well after a and b.
  await sleep(1500);
  const extended = await api.call('POST', `/v1/holds/${later.id}/extend`, { token: api.token('customer', `l-${run}`) });
  expect(extended.status).toBe(200);
  const dueAt = Math.max(Date.parse(a.expiresAt), Date.parse(b.expiresAt));
  expect(Date.parse(extended.body.hold.expiresAt) - dueAt).toBeGreaterThan(1000);
  const missing = newHoldId(event.id);
  await api.rt.ctx.persister.flush([event.id]);
  await sleepUntil(dueAt, 100);

  const outcomes = await expireHolds(api.rt.ctx, [later.id, b.id, missing, released.id, a.id, a.id]);
  expect(Object.fromEntries(outcomes)).toEqual({
    [a.id]: { kind: 'expired' },
    [b.id]: { kind: 'expired' },
    [later.id]: { kind: 'not_due', expiresAt: expect.any(Date) },
    [released.id]: { kind: 'already_ended', status: 'RELEASED' },
    [missing]: { kind: 'missing' },
  });
  const rows = await api.rt.db.hold.findMany({ where: { eventId: event.id } });
  expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
    [a.id]: 'EXPIRED', [b.id]: 'EXPIRED', [later.id]: 'ACTIVE', [released.id]: 'RELEASED',
  });
  const endedAt = rows.find((r) => r.id === a.id)!.endedAt!.getTime();
  expect(endedAt).toBeGreaterThanOrEqual(dueAt);
  expect(rows.find((r) => r.id === b.id)!.endedAt!.getTime()).toBe(endedAt);
  // The expired holds' seats are free; the later hold keeps its lease.
  expect(await api.rt.redis.exists(k.seat(seats[0]!.id), k.seat(seats[1]!.id))).toBe(0);
  expect(await api.rt.redis.get(k.seat(seats[3]!.id))).toBe(later.id);

  // Again: nothing changes, and the expired ones are reported ended.
  const again = await expireHolds(api.rt.ctx, [a.id, b.id, later.id]);
  expect(Object.fromEntries(again)).toEqual({
    [a.id]: { kind: 'already_ended', status: 'EXPIRED' }, [b.id]: { kind: 'already_ended', status: 'EXPIRED' },
    [later.id]: { kind: 'not_due', expiresAt: expect.any(Date) },
  });
  const after = await api.rt.db.hold.findMany({ where: { id: { in: [a.id, b.id] } } });
  expect(after.map((r) => r.endedAt!.getTime())).toEqual([endedAt, endedAt]);

  // One hold.expired event for each expired hold (none for the others), with a delivery to each endpoint.
  const events = await api.rt.db.$queryRawUnsafe<{ key: string; type: string; status: string; deliveries: number }[]>(`
    SELECT ev.ordering_key AS key, ev.type, ev.data->'hold'->>'status' AS status, count(d.id)::int AS deliveries
    FROM webhook_events ev JOIN webhook_deliveries d ON d.event_id = ev.id
    WHERE ev.ordering_key = ANY($1::text[]) GROUP BY ev.id ORDER BY ev.ordering_key`, [a.id, b.id, later.id, released.id]);
  expect(events).toEqual([a.id, b.id].sort().map((key) => ({ key, type: 'hold.expired', status: 'expired', deliveries: 2 })));
}

test('when two runs expire the same holds at once, named in opposite orders, then each hold is expired by exactly one of them and neither fails', async () => {
  const { event, seats } = await newEvent({ holdTtlSeconds: 2, seats: seatGrid(['A'], 4, 25) });
  const held = await Promise.all(seats.map((s, i) => holdSeat(event.id, s.id, `p${i}`)));
  await api.rt.ctx.persister.flush([event.id]);
  const ids = held.map((h) => h.id);
  await sleepUntil(Math.max(...held.map((h) => Date.parse(h.expiresAt))), 100);
  const [one, two] = await Promise.all([expireHolds(api.rt.ctx, ids), expireHolds(api.rt.ctx, [...ids].reverse())]);
  for (const id of ids) {
    expect([one.get(id)!.kind, two.get(id)!.kind].sort()).toEqual(['already_ended', 'expired']);
  }
  const [counts] = await api.rt.db.$queryRaw<{ expired: bigint }[]>`
    SELECT count(*) FILTER (WHERE status = 'EXPIRED') AS expired FROM holds WHERE event_id = ${event.id}::uuid`;
  expect(Number(counts!.expired)).toBe(ids.length);
  expect(await api.rt.redis.exists(...seats.map((s) => eventKeys(event.id).seat(s.id)))).toBe(0);
});
