// Issue 29: the waiting room when Redis goes away and comes back empty. Joins,
// queue/me, the seller's view and holds with a pass answer 503 within 2 seconds
// meanwhile; afterwards a place that was lost joins again at the back and a pass
// that was lost lets nobody hold. Also the event stream's queue message.
import { useTestApi, waitFor } from '@holdfast/test-kit';

const { api, redis, newEvent } = useTestApi({}, { privateRedis: true });
const run = `${process.pid}-${Date.now().toString(36)}`;

async function roomEvent(maxActive: number) {
  const { event } = await newEvent({
    ticketTypes: [{ name: 'GA', priceCents: 500, capacity: 100 }],
    waitingRoom: { admitPerMinute: 1_000_000, maxActive, passSeconds: 600, preQueueSeconds: 0 },
  });
  return { event, ga: event.ticketTypes[0].id as string };
}
const join = (eventId: string, customer: string) =>
  api.call('POST', `/v1/events/${eventId}/queue`, { token: api.token('customer', customer) });
const me = (eventId: string, customer: string) =>
  api.call('GET', `/v1/events/${eventId}/queue/me`, { token: api.token('customer', customer) });

test('when the waiting room admits places, then the event stream says how far admission has got, one message per admission', async () => {
  const { event } = await roomEvent(1);
  await api.call('PATCH', `/v1/admin/events/${event.id}/queue`, { token: api.token('admin'), body: { paused: true } });
  for (let i = 0; i < 3; i++) await join(event.id, `s${i}-${run}`);
  const abort = new AbortController();
  const res = await fetch(`${api.url}/v1/events/${event.id}/stream`, { signal: abort.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(': connected')) text += decoder.decode((await reader.read()).value, { stream: true });
  await api.call('PATCH', `/v1/admin/events/${event.id}/queue`, { token: api.token('admin'), body: { paused: false } });
  while (!text.includes('event: queue')) text += decoder.decode((await reader.read()).value, { stream: true });
  abort.abort();
  const data = /event: queue\ndata: (.+)\n/.exec(text)![1]!;
  // maxActive 1: one place admitted, two wait.
  expect(JSON.parse(data)).toEqual({ admitted: 1, waiting: 2 });
});

test('when Redis dies and comes back empty, then queue calls answer 503 within 2 seconds meanwhile, and after it a lost place joins again at the back', async () => {
  const { event, ga } = await roomEvent(1);
  const a = `out-a-${run}`;
  const pass = (await join(event.id, a)).body.queue.pass as string;
  expect(pass).toEqual(expect.any(String));
  expect((await join(event.id, `out-b-${run}`)).body.queue.position).toBe(1);

  await redis.kill();
  const calls = [
    () => join(event.id, `out-c-${run}`),
    () => me(event.id, a),
    () => api.call('GET', `/v1/admin/events/${event.id}/queue`, { token: api.token('admin') }),
    () => api.call('POST', `/v1/events/${event.id}/holds`, {
      token: api.token('customer', a), body: { ticketTypeId: ga, quantity: 1 }, headers: { 'Holdfast-Queue-Pass': pass },
    }),
  ];
  for (const call of calls) {
    const started = Date.now();
    const r = await call();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { dependency: 'Redis' } });
  }

  await redis.start();
  await waitFor('Redis answering again', async () => (await me(event.id, a)).status === 200, { timeoutMs: 10_000, intervalMs: 100 });
  // Every place and pass was lost with Redis's data: the old pass holds nothing.
  const refused = await api.call('POST', `/v1/events/${event.id}/holds`, {
    token: api.token('customer', a), body: { ticketTypeId: ga, quantity: 1 }, headers: { 'Holdfast-Queue-Pass': pass },
  });
  expect(refused.status).toBe(403);
  expect(refused.body.error.details.reason).toBe('forged');
  expect((await me(event.id, a)).body.queue.state).toBe('none');
  // Joining again: a new place, behind whoever joined first after the loss.
  expect((await join(event.id, `out-d-${run}`)).body.queue.state).toBe('admitted');
  expect((await join(event.id, a)).body.queue).toMatchObject({ state: 'waiting', position: 1 });
});
