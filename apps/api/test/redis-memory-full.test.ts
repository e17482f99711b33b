// Redis at its maxmemory with the noeviction policy (holdfast's keys must not be evicted)
// refuses writes ("OOM command not allowed"). A hold then answers 503, names Redis, and leaves
// nothing behind; once Redis has room again, the same seat is held.
import Redis from 'ioredis';
import { eventKeys } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, seatGrid, useTestApi } from '@holdfast/test-kit';

const { api, redis } = useTestApi({}, { privateRedis: true });

test('when Redis is full (maxmemory, noeviction), then a hold answers 503 SERVICE_UNAVAILABLE naming Redis and holds nothing; with room again it is held', async () => {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['M'], 1, 4) });
  const admin = new Redis(redis.url);
  try {
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
    await admin.config('SET', 'maxmemory', String(used - 1024)); // already past it: every write is refused
    const seat = seats[0]!.id;
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seat] } });
    expect({ status: res.status, code: res.body.error?.code, details: res.body.error?.details })
      .toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE', details: { dependency: 'Redis' } });
    expect(await admin.exists(eventKeys(event.id).seat(seat))).toBe(0);
    expect(await api.rt.db.hold.count({ where: { eventId: event.id } })).toBe(0);

    await admin.config('SET', 'maxmemory', '0');
    const held = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seat] } });
    expect(held.status).toBe(201);
  } finally {
    await admin.config('SET', 'maxmemory', '0');
    admin.disconnect();
    await dropTestEvent(api, event.id);
  }
});
