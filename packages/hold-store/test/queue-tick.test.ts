// The waiting room's once-a-second tick (queue-tick-6.lua) on the real Redis: it never makes a
// room anew. A process may still tick a room whose event's keys were removed (or that Redis lost).
import { randomUUID } from 'node:crypto';
import { eventKeys, type QueueRoom } from '../src';
import { events, redis, store, useHoldStore } from './hold-store.fixture';

useHoldStore();

function room(): QueueRoom {
  const eventId = randomUUID();
  events.push(eventId);
  return { eventId, admitPerMinute: 60, maxActive: 10, passMs: 60_000, salesStartMs: null };
}

test('when a room has none of its keys, then its tick answers it empty and writes none of them', async () => {
  const r = room();
  const tick = await store.queue.tick(r);
  expect(tick).toMatchObject({ admitted: 0, waiting: 0, active: 0, admittedTotal: 0, admitPerMinute: 60, maxActive: 10, paused: false });
  expect(await redis.exists(...eventKeys(r.eventId).queue)).toBe(0);
});

test('when a room has a key (an admin paused it), then its tick keeps it: the bucket\'s time moves on and the keys get their expiry', async () => {
  const r = room();
  await store.queue.admin(r, { paused: true });
  const [cfg] = eventKeys(r.eventId).queue;
  const before = Number(await redis.hget(cfg!, 'at'));
  await new Promise((resolve) => setTimeout(resolve, 5));
  const tick = await store.queue.tick(r);
  expect(tick).toMatchObject({ paused: true, waiting: 0 });
  expect(Number(await redis.hget(cfg!, 'at'))).toBeGreaterThan(before);
  expect(await redis.pttl(cfg!)).toBeGreaterThan(86_400_000);
});
