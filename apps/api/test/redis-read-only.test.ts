// Redis demoted to a read-only replica under the API (a primary replaced by a failover, the
// API still connected to the old one) refuses writes with READONLY. A hold then answers 503,
// names Redis, and leaves nothing behind; once Redis takes writes again, the same seat is held.
import Redis from 'ioredis';
import { eventKeys } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, freePort, seatGrid, useTestApi } from '@holdfast/test-kit';

const { api, redis } = useTestApi({}, { privateRedis: true });

test('when Redis has become a read-only replica, then a hold answers 503 SERVICE_UNAVAILABLE naming Redis and holds nothing; as a primary again it is held', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['R'], 1, 4) });
  const admin = new Redis(redis.url);
  try {
    // A replica of a primary that is not there: it keeps its data and refuses every write.
    await admin.replicaof('127.0.0.1', await freePort());
    const seat = seats[0]!.id;
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seat] } });
    expect({ status: res.status, code: res.body.error?.code, details: res.body.error?.details })
      .toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE', details: { dependency: 'Redis' } });
    expect(await admin.exists(eventKeys(event.id).seat(seat))).toBe(0);
    expect(await api.rt.db.hold.count({ where: { eventId: event.id } })).toBe(0);

    await admin.replicaof('NO', 'ONE');
    const held = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seat] } });
    expect(held.status).toBe(201);
  } finally {
    await admin.replicaof('NO', 'ONE');
    admin.disconnect();
    await dropTestEvent(api, event.id);
  }
});
