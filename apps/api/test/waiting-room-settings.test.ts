// Issue 29: an event's waiting room is a setting of the event, off by default,
// given on creation or by PATCH, read back in Event, refused out of its ranges.
import { useTestApi } from '@holdfast/test-kit';

const { api, newEvent } = useTestApi();

const room = { admitPerMinute: 600, maxActive: 2000, passSeconds: 600, preQueueSeconds: 1800 };

test('when an event is created without a waiting room, then Event says waitingRoom null', async () => {
  const { event } = await newEvent({ ticketTypes: [{ name: 'GA', priceCents: 100, capacity: 5 }] });
  expect(event.waitingRoom).toBeNull();
});

test('when an event is created with a waiting room, then it reads back with challengeBits 0 by default', async () => {
  const { event } = await newEvent({ ticketTypes: [{ name: 'GA', priceCents: 100, capacity: 5 }], waitingRoom: room });
  expect(event.waitingRoom).toEqual({ ...room, challengeBits: 0 });
  const read = await api.call('GET', `/v1/events/${event.id}`);
  expect(read.body.event.waitingRoom).toEqual({ ...room, challengeBits: 0 });
});

test('when an admin sets, changes and clears the waiting room by PATCH, then Event follows and the audit log has each change', async () => {
  const { event } = await newEvent({ ticketTypes: [{ name: 'GA', priceCents: 100, capacity: 5 }] });
  const admin = api.token('admin');
  const set = await api.call('PATCH', `/v1/admin/events/${event.id}`, { token: admin, body: { waitingRoom: { ...room, challengeBits: 12 } } });
  expect(set.status).toBe(200);
  expect(set.body.event.waitingRoom).toEqual({ ...room, challengeBits: 12 });
  const other = await api.call('PATCH', `/v1/admin/events/${event.id}`, { token: admin, body: { name: 'Renamed' } });
  expect(other.body.event.waitingRoom).toEqual({ ...room, challengeBits: 12 });
  const cleared = await api.call('PATCH', `/v1/admin/events/${event.id}`, { token: admin, body: { waitingRoom: null } });
  expect(cleared.body.event.waitingRoom).toBeNull();
  const audit = await api.rt.db.auditEntry.findMany({ where: { eventId: event.id, action: 'event.updated' }, orderBy: { at: 'asc' } });
  expect(audit.map((a) => a.details)).toEqual([{ waitingRoom: { ...room, challengeBits: 12 } }, { name: 'Renamed' }, { waitingRoom: null }]);
});

test.each([
  ['admitPerMinute', 0], ['admitPerMinute', 1_000_001], ['maxActive', 0], ['maxActive', 1_000_001],
  ['passSeconds', 29], ['passSeconds', 7201], ['preQueueSeconds', -1], ['preQueueSeconds', 86_401],
  ['challengeBits', -1], ['challengeBits', 25], ['admitPerMinute', 1.5],
])('when waitingRoom.%s is %p, then creating and patching answer 400 VALIDATION_FAILED naming it', async (field, value) => {
  const admin = api.token('admin');
  const body = { ...room, [field]: value };
  const created = await api.call('POST', '/v1/admin/events', { token: admin, body: { name: 'x', startsAt: '2027-01-01T19:00:00Z', waitingRoom: body } });
  expect(created.status).toBe(400);
  expect(created.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(`waitingRoom.${field}`);
  const { event } = await newEvent({ ticketTypes: [{ name: 'GA', priceCents: 100, capacity: 5 }] });
  const patched = await api.call('PATCH', `/v1/admin/events/${event.id}`, { token: admin, body: { waitingRoom: body } });
  expect(patched.status).toBe(400);
  expect((await api.call('GET', `/v1/events/${event.id}`)).body.event.waitingRoom).toBeNull();
});

test('when waitingRoom lacks a field or has an unknown one, then 400 VALIDATION_FAILED', async () => {
  const admin = api.token('admin');
  const { passSeconds: _, ...missing } = room;
  for (const waitingRoom of [missing, { ...room, extra: 1 }]) {
    const r = await api.call('POST', '/v1/admin/events', { token: admin, body: { name: 'x', startsAt: '2027-01-01T19:00:00Z', waitingRoom } });
    expect(r.status).toBe(400);
  }
});
