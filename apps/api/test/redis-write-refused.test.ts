// Redis refusing writes under the API: at its maxmemory with the noeviction policy (holdfast's
// keys must not be evicted: "OOM command not allowed"), or demoted to a read-only replica (a
// primary replaced by a failover, the API still connected to the old one: READONLY). A hold
// then answers 503, names Redis, and leaves nothing behind; once Redis takes writes again, the
// same seat is held.
import Redis from 'ioredis';
import { eventKeys } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, freePort, seatGrid, useTestApi, waitFor } from '@holdfast/test-kit';

const { api, redis } = useTestApi({}, { privateRedis: true });

/** A hold while `refuse` makes Redis refuse writes: 503 naming Redis, nothing held; after `allow`, 201. */
async function holdWhileRefused(refuse: (admin: Redis) => Promise<unknown>, allow: (admin: Redis) => Promise<unknown>) {
  const { event, seats } = await createTestEvent(api, { seats: seatGrid(['R'], 1, 4) });
  const admin = new Redis(redis.url);
  try {
    await refuse(admin);
    const seat = seats[0]!.id;
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seat] } });
    expect({ status: res.status, code: res.body.error?.code, details: res.body.error?.details })
      .toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE', details: { dependency: 'Redis' } });
    expect(await admin.exists(eventKeys(event.id).seat(seat))).toBe(0);
    expect(await api.rt.db.hold.count({ where: { eventId: event.id } })).toBe(0);

    await allow(admin);
    // A 503 meanwhile says retry (the API may be reconnecting: it does on READONLY); then it is held.
    const statuses: number[] = [];
    await waitFor('a hold once Redis takes writes', async () => {
      const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seat] } });
      statuses.push(res.status);
      return res.status === 201;
    }, { timeoutMs: 5000, intervalMs: 100 });
    expect(statuses.filter((s) => s !== 503)).toEqual([201]);
  } finally {
    await allow(admin);
    await waitFor('the API connected to Redis', () => api.rt.redis.status === 'ready', { timeoutMs: 5000, intervalMs: 20 });
    admin.disconnect();
    await dropTestEvent(api, event.id);
  }
}

test('when Redis is full (maxmemory, noeviction), then a hold answers 503 SERVICE_UNAVAILABLE naming Redis and holds nothing; with room again it is held', async () => {
  await holdWhileRefused(async (admin) => {
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
    await admin.config('SET', 'maxmemory', String(used - 1024)); // already past it: every write is refused
  }, (admin) => admin.config('SET', 'maxmemory', '0'));
});

test('when Redis has become a read-only replica, then a hold answers 503 SERVICE_UNAVAILABLE naming Redis and holds nothing; as a primary again it is held', async () => {
  // A replica of a primary that is not there: it keeps its data and refuses every write.
  await holdWhileRefused(async (admin) => admin.replicaof('127.0.0.1', await freePort()), (admin) => admin.replicaof('NO', 'ONE'));
});
