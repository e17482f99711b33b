// The hold path's HTTP baselines run on equal footing with holdfast's API (the
// node flags `npm start` gives it) and do what they say: one SET NX EX on the
// real Redis per request, JSON in and out, over one keep-alive connection.
import { readFileSync } from 'node:fs';
import Redis from 'ioredis';

import { BASELINE_SERVERS, baselineNodeFlags, launchBaseline, type BaselineServer } from '../src/baselines/baseline-servers';
import type { ChildServer } from '../src/baselines/child-server.launcher';
import { startNodeFlags } from '../src/holdfast/start-node-flags';
import { HttpConnection } from '../src/http-connection.client';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let redis: Redis;
beforeAll(() => {
  redis = new Redis(redisUrl);
});
afterAll(() => redis.disconnect());

test('when the bench names its baselines\' node flags, then they are holdfast\'s API\'s (npm start\'s)', () => {
  expect(baselineNodeFlags()).toEqual(startNodeFlags());
  expect(baselineNodeFlags().length).toBeGreaterThan(0);
});

describe.each(Object.keys(BASELINE_SERVERS) as BaselineServer[])('the %s baseline', (kind) => {
  let server: ChildServer;
  const prefix = `bench:test:${kind}:${process.pid}:${Date.now()}:`;
  beforeAll(async () => {
    server = await launchBaseline(kind, { BENCH_REDIS_URL: redisUrl, BENCH_KEY_PREFIX: prefix });
  }, 60_000);
  afterAll(async () => {
    await server.stop();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  });

  test('when it starts, then its process runs with npm start\'s node flags', () => {
    const argv = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0');
    for (const flag of startNodeFlags()) expect(argv).toContain(flag);
  });

  test('when a seat is asked for twice and with no seat, then it answers 201, 409 and 400 in JSON on one connection, and Redis holds the seat with a TTL', async () => {
    const url = new URL(server.baseUrl);
    const connection = new HttpConnection(url.hostname, Number(url.port));
    try {
      const post = (body: string) => connection.send({ method: 'POST', path: '/hold', body });
      const first = await post(JSON.stringify({ seatId: 's1', customerId: 'c1' }));
      const again = await post(JSON.stringify({ seatId: 's1', customerId: 'c2' }));
      const none = await post(JSON.stringify({ customerId: 'c3' }));
      expect([first.status, again.status, none.status]).toEqual([201, 409, 400]);
      expect(JSON.parse(first.body.toString())).toEqual({ hold: { seatId: 's1' } });
      expect(JSON.parse(again.body.toString()).error.code).toBe('SEATS_UNAVAILABLE');
      expect(JSON.parse(none.body.toString()).error.code).toBe('VALIDATION_FAILED');
      expect(await redis.get(`${prefix}s1`)).toBe('c1');
      const ttl = await redis.ttl(`${prefix}s1`);
      expect(ttl).toBeGreaterThan(590);
      expect(ttl).toBeLessThanOrEqual(600);
    } finally {
      connection.close();
    }
  });
});
