// Waiting-list offers run out like any hold: the expiry job the persister schedules
// for an offer ends it on time, and its seats go to the next entry in the same step.
import { isolatedDatabaseUrl, seatGrid, useTestApi, waitFor } from '@holdfast/test-kit';
import { startWorker, type WorkerHandle } from '../src';

let worker: WorkerHandle;
// Declared before useTestApi's, so it runs first: the worker closes before the API and its Redis.
afterAll(async () => { await worker?.close(); });
const { api, newEvent } = useTestApi({ DATABASE_URL: isolatedDatabaseUrl('waitlist') }, { privateRedis: true });
beforeAll(async () => {
  worker = await startWorker(api.config, { sweepEveryMs: 60_000, reconcileEveryMs: 3_600_000, metricsPort: 0 });
});

const entries = async (eventId: string, who: string) =>
  (await api.call('GET', `/v1/events/${eventId}/waitlist/me`, { token: api.token('customer', who) })).body.entries as
    { state: string; offer: { holdId: string; expiresAt: string } | null }[];

test('when an offer runs out, then the worker\'s expiry job ends it and the next entry gets the seats, each offer lasting waitlistOfferSeconds', async () => {
  const { event } = await newEvent({ waitlistOfferSeconds: 2, seats: seatGrid(['A'], 1, 2, 'floor') });
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const [a, first, second] = ['a', 'first', 'second'].map((n) => `${n}-${run}`) as [string, string, string];
  const held = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer', a), body: { tier: 'floor', quantity: 2 } });
  expect(held.status).toBe(201);
  for (const w of [first, second]) {
    expect((await api.call('POST', `/v1/events/${event.id}/waitlist`, { token: api.token('customer', w), body: { tier: 'floor', quantity: 2 } })).status).toBe(201);
  }
  await api.call('DELETE', `/v1/holds/${held.body.hold.id}`, { token: api.token('customer', a) });
  const [offer] = await entries(event.id, first);
  expect(offer!.state).toBe('offered');

  // No request touches the event: the expiry job alone moves the offer on.
  const next = await waitFor('the second entry offered', async () => {
    const [e] = await entries(event.id, second);
    return e?.state === 'offered' && e;
  }, { timeoutMs: 20_000, intervalMs: 200 });
  expect((await entries(event.id, first))[0]!.state).toBe('expired');
  const hold = (await api.call('GET', `/v1/holds/${next.offer!.holdId}`, { token: api.token('customer', second) })).body.hold;
  expect(hold.items).toHaveLength(2);
  expect(Date.parse(hold.expiresAt) - Date.parse(hold.createdAt)).toBe(2000);
  expect(Date.parse(hold.createdAt)).toBeGreaterThanOrEqual(Date.parse(offer!.offer!.expiresAt));
});
