// The outbox is drained by a consumer group: processes side by side never get
// the same entry, a drainer's own unacknowledged entries come back to it, and
// the entries of a drainer that died are taken over once idle (XAUTOCLAIM).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { sleep } from '@holdfast/test-kit';
import { eventKeys, HoldStore } from '../src';

let redis: Redis;
let store: HoldStore;
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL!);
  store = new HoldStore(redis);
});
afterAll(() => redis.disconnect());

async function eventWithHolds(n: number): Promise<string> {
  const eventId = randomUUID();
  await store.primeEvent({ eventId, ticketTypes: [{ id: 'tt', capacity: 100, sold: 0 }], bought: [], soldSeatIds: [] });
  for (let i = 0; i < n; i++) {
    const r = await store.holdTickets({
      eventId, holdId: `h${i}`, customerId: `c${i}`, ttlMs: 60_000, maxPerCustomer: 10, rateLimit: 0, rateWindowMs: 60_000, outboxMaxPending: 100_000,
      ticketTypeId: 'tt', quantity: 1, recordJson: '{}',
    });
    expect(r.kind).toBe('ok');
  }
  return eventId;
}

async function drop(eventId: string): Promise<void> {
  const keys = await redis.keys(`{ev:${eventId}}*`);
  if (keys.length) await redis.del(...keys);
}

test('when two drainers claim an outbox side by side, then each entry goes to one of them and acknowledged entries leave the stream', async () => {
  const eventId = await eventWithHolds(10);
  try {
    const a = await store.claimOutbox(eventId, 'a', 5);
    const b = await store.claimOutbox(eventId, 'b', 5);
    expect(a).toHaveLength(5);
    expect(b).toHaveLength(5);
    const ids = new Set([...a, ...b].map((e) => e.holdId));
    expect(ids.size).toBe(10);
    expect(await store.claimOutbox(eventId, 'c', 5)).toEqual([]);
    await store.ackClaimedOutbox(eventId, a.map((e) => e.entryId));
    await store.ackClaimedOutbox(eventId, b.map((e) => e.entryId));
    expect(await redis.xlen(eventKeys(eventId).outbox)).toBe(0);
  } finally {
    await drop(eventId);
  }
});

test('when a drainer could not write its entries, then it gets them again first, and nobody else does while it lives', async () => {
  const eventId = await eventWithHolds(3);
  try {
    const first = await store.claimOutbox(eventId, 'a', 500);
    expect(first.map((e) => e.holdId)).toEqual(['h0', 'h1', 'h2']);
    expect(await store.claimOutbox(eventId, 'b', 500, 60_000)).toEqual([]);
    expect((await store.claimOutbox(eventId, 'a', 500)).map((e) => e.holdId)).toEqual(['h0', 'h1', 'h2']);
  } finally {
    await drop(eventId);
  }
});

test('when a drainer dies holding entries, then another takes them over once they are idle', async () => {
  const eventId = await eventWithHolds(4);
  try {
    const dead = await store.claimOutbox(eventId, 'dead', 500);
    expect(dead).toHaveLength(4);
    expect(await store.claimOutbox(eventId, 'heir', 500, 200)).toEqual([]);
    await sleep(300); // the dead drainer's entries idle past the 200 ms takeover threshold
    const taken = await store.claimOutbox(eventId, 'heir', 500, 200);
    expect(taken.map((e) => e.holdId).sort()).toEqual(['h0', 'h1', 'h2', 'h3']);
    await store.ackClaimedOutbox(eventId, taken.map((e) => e.entryId));
    expect(await redis.xlen(eventKeys(eventId).outbox)).toBe(0);
  } finally {
    await drop(eventId);
  }
});

test('when the outbox stream was lost (Redis lost its data), then claiming creates the group again and finds new entries', async () => {
  const eventId = await eventWithHolds(1);
  try {
    expect(await store.claimOutbox(eventId, 'a', 500)).toHaveLength(1);
    await redis.del(eventKeys(eventId).outbox);
    await redis.del(eventKeys(eventId).ready);
    await store.primeEvent({ eventId, ticketTypes: [{ id: 'tt', capacity: 100, sold: 0 }], bought: [], soldSeatIds: [] });
    await store.holdTickets({
      eventId, holdId: 'h9', customerId: 'c9', ttlMs: 60_000, maxPerCustomer: 10, rateLimit: 0, rateWindowMs: 60_000, outboxMaxPending: 100_000,
      ticketTypeId: 'tt', quantity: 1, recordJson: '{}',
    });
    expect((await store.claimOutbox(eventId, 'a', 500)).map((e) => e.holdId)).toEqual(['h9']);
  } finally {
    await drop(eventId);
  }
});
