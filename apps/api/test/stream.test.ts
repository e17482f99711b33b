import { createTestEvent, dropTestEvent, seatGrid, useTestApi } from '@holdfast/test-kit';

const { api } = useTestApi();

/** Reads a Server-Sent Events stream until `until` says it has seen enough. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any field of any answer
async function readStream(url: string, signal: AbortSignal, onOpen: () => Promise<void>, until: (events: { event: string; data: any }[]) => boolean) {
  const res = await fetch(url, { signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any field of any answer
  const events: { event: string; data: any }[] = [];
  let buffer = '';
  let opened = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let i: number;
    while ((i = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      if (block.includes(': connected') && !opened) {
        opened = true;
        await onOpen();
      }
      const ev = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (ev && data) events.push({ event: ev, data: JSON.parse(data) });
    }
    if (until(events)) break;
  }
  return events;
}

test('when seats are held and released and tickets held, then the stream announces each change', async () => {
  const { event, seats } = await createTestEvent(api, {
    seats: seatGrid(['A'], 1, 2), ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10 }],
  });
  const ac = new AbortController();
  try {
    const token = api.token('customer');
    const events = await readStream(`${api.url}/v1/events/${event.id}/stream`, ac.signal, async () => {
      const hold = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { seatIds: [seats[0]!.id] } });
      expect(hold.status).toBe(201);
      await api.call('DELETE', `/v1/holds/${hold.body.hold.id}`, { token });
      const ga = await api.call('POST', `/v1/events/${event.id}/holds`, { token, body: { ticketTypeId: event.ticketTypes[0].id, quantity: 3 } });
      expect(ga.status).toBe(201);
    }, (evs) => evs.some((e) => e.event === 'availability'));
    expect(events).toEqual([
      { event: 'seat', data: { seatId: seats[0]!.id, status: 'held' } },
      { event: 'seat', data: { seatId: seats[0]!.id, status: 'available' } },
      { event: 'availability', data: { ticketTypeId: event.ticketTypes[0].id, available: 7 } },
    ]);
  } finally {
    ac.abort();
    await dropTestEvent(api, event.id);
  }
});

test('when the event does not exist, then the stream answers 404 EVENT_NOT_FOUND', async () => {
  const res = await api.call('GET', '/v1/events/00000000-0000-4000-8000-000000000000/stream');
  expect(res.status).toBe(404);
  expect(res.body.error.code).toBe('EVENT_NOT_FOUND');
});
