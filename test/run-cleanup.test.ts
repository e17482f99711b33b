import {
  confirmVia, createTestEvent, describeLeftovers, holdPost, isolatedDatabaseUrl, leftovers, removeWhatTheRunMade, seatGrid, snapshot, useTestApi,
} from '@holdfast/test-kit';

// A database and a Redis of this suite's own: removeWhatTheRunMade removes everything new since
// the snapshot, so on the shared ones it would remove the other suites' events while they run.
const databaseUrl = isolatedDatabaseUrl('runcleanup');
const { api, redis, newEvent } = useTestApi({ DATABASE_URL: databaseUrl }, { privateRedis: true });

test('when a run made an event, paid a hold with an Idempotency-Key and left one held, then removeWhatTheRunMade removes its rows, keys and jobs, and keeps what was there before', async () => {
  // There before the run: an event with a held seat (useTestApi drops it after the suite).
  const earlier = await newEvent({ seats: seatGrid(['A'], 1, 2) });
  const earlierHold = await holdPost(api, earlier.event.id, 'c-earlier', { seatIds: [earlier.seats[0]!.id] });
  expect(earlierHold.status).toBe(201);
  await api.rt.ctx.persister.flush();
  const before = await snapshot(databaseUrl, redis.url);

  // The run: an event, a hold sent with an Idempotency-Key and paid, another left held (its expiry job waits).
  const made = await createTestEvent(api, { seats: seatGrid(['A'], 1, 3) });
  const paid = await holdPost(api, made.event.id, 'c-paid', { seatIds: [made.seats[0]!.id] }, { 'Idempotency-Key': 'run-cleanup-1' });
  expect(paid.status).toBe(201);
  expect((await confirmVia(api, paid.body.hold.id)).status).toBe(201);
  expect((await holdPost(api, made.event.id, 'c-held', { seatIds: [made.seats[1]!.id] })).status).toBe(201);
  await api.rt.ctx.persister.flush();

  const left = await leftovers(before, databaseUrl, redis.url);
  expect(left.events).toEqual([made.event.id]);
  for (const table of ['events', 'seats', 'holds', 'orders', 'order_items', 'payments']) expect(left.rows.get(table)).toBeGreaterThanOrEqual(1);
  expect(left.keys).toEqual(expect.arrayContaining([
    expect.stringMatching(new RegExp(`^\\{ev:${made.event.id}\\}`)),
    expect.stringMatching(/^idem:/),
    expect.stringMatching(/^bull:holdfast-expiry:(exp_)?hld_/),
  ]));

  await removeWhatTheRunMade(before, databaseUrl, redis.url);

  expect(describeLeftovers(await leftovers(before, databaseUrl, redis.url))).toEqual([]);
  // The expiry job is gone from its queue, not only its keys.
  for (const state of ['delayed', 'waiting'] as const) {
    const jobs = await api.rt.queues.expiry.getJobs([state]);
    expect(jobs.filter((j) => JSON.stringify(j.data).includes(made.event.id.replace(/-/g, '')))).toEqual([]);
  }
  // What was there before stays: the earlier event's row, its hold and its seat's lease.
  const kept = await api.call('GET', `/v1/holds/${earlierHold.body.hold.id}`, { token: api.token('customer', 'c-earlier') });
  expect(kept.status).toBe(200);
  expect(kept.body.hold.status).toBe('active');
  expect((await api.call('GET', `/v1/events/${made.event.id}`)).status).toBe(404);
});
