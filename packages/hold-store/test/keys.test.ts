// The key layout is written once (keys.ts): the builders, the SCAN patterns and
// the parser must agree on every kind of key, checked on the real Redis's MATCH.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { CHANGE_CHANNEL_PATTERN, eventKeyPattern, eventKeys, parseEventKey, type EventKeyKind } from '../src';

const eventId = randomUUID();
const k = eventKeys(eventId);

/** Every kind of key of the event, built by eventKeys, with the id a per-id kind was built with. */
const built: { kind: EventKeyKind; key: string; id: string | null }[] = [
  ...(['ready', 'sold', 'held', 'bought', 'outbox', 'outboxParked', 'channel', 'free', 'seatIndex'] as const)
    .map((kind) => ({ kind, key: k[kind], id: null })),
  ...(['seat', 'customer', 'rateLimit', 'hold', 'claim', 'ticketType', 'ticketTypeExpiry', 'ticketTypeHolds'] as const)
    .map((kind) => ({ kind, key: k[kind](`id:${kind}`), id: `id:${kind}` })),
];

test('when any key eventKeys builds is parsed, then its event, kind and id come back', () => {
  for (const { kind, key, id } of built) expect(parseEventKey(key)).toEqual({ eventId, kind, id });
  expect(k.seat('s1').startsWith(k.seatPrefix)).toBe(true);
  expect(parseEventKey('holdfast:stats:x')).toBeNull();
  expect(parseEventKey(`{ev:${eventId}}:nothing:1`)).toBeNull();
});

describe('patterns on the real Redis', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
  });
  afterAll(async () => {
    const keys = await redis.keys(eventKeyPattern(eventId));
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  test('when every kind of key exists, then each kind\'s pattern matches its keys only and the event\'s pattern all of them', async () => {
    for (const { key } of built) await redis.set(key, '1');
    const match = async (pattern: string) => (await redis.keys(pattern)).sort();
    expect(await match(eventKeyPattern(eventId))).toEqual(built.map((b) => b.key).sort());
    for (const { kind, key } of built) {
      expect(await match(eventKeyPattern(eventId, kind))).toEqual([key]);
      expect(await match(eventKeyPattern('*', kind))).toContain(key);
    }
    expect(await match(CHANGE_CHANNEL_PATTERN)).toContain(k.channel);
  });
});
