// Measures the Redis hold script alone, in one run: one Redis node, a Redis
// Cluster of 3 masters and 3 replicas, and the cluster with HOLD_REPLICA_ACKS=1
// (WAIT 1 after each hold). C concurrent callers in this process take 1-seat
// holds on several events (no HTTP, no PostgreSQL): the cost of the replica ack
// is the ratio to the cluster without it, measured here, not its absolute time.
//
//   npx tsx scripts/measure-cluster.ts   (env: REDIS_URL for the one node; HOLDS, CONCURRENCY)
import { randomUUID } from 'node:crypto';
import { createRedisClient, HoldStore, masters, type RedisClient } from '@holdfast/hold-store';
import { RedisCluster } from '@holdfast/test-kit';

const HOLDS = Number(process.env.HOLDS ?? 20000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 50);
const EVENTS = 12;

interface Row { label: string; holdsPerS: number; p50: number; p99: number; refused: number }

async function measure(label: string, redis: RedisClient, acks: number): Promise<Row> {
  const store = new HoldStore(redis, acks ? { replicas: acks, timeoutMs: 200 } : null);
  const events = Array.from({ length: EVENTS }, () => randomUUID());
  for (const eventId of events) await store.primeEvent({ eventId, ticketTypes: [], bought: [], soldSeatIds: [] });
  const lat: number[] = [];
  let n = 0;
  let refused = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (n < HOLDS) {
      const i = n++;
      const t = performance.now();
      const r = await store.holdSeats({
        eventId: events[i % EVENTS]!, holdId: `h${i}`, customerId: `c${i}`, ttlMs: 60_000, maxPerCustomer: 10,
        rateLimit: 0, rateWindowMs: 60_000, outboxMaxPending: 1_000_000, candidates: [{ seatIds: [`s${i}`], recordJson: '{}' }],
      }).catch((err: Error) => {
        if (err.name !== 'ReplicaAckError') throw err;
        return null; // not acknowledged in time: given back, answered 503
      });
      if (!r) refused++;
      else if (r.kind !== 'ok') throw new Error(`hold refused: ${r.kind}`);
      lat.push(performance.now() - t);
    }
  }));
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  // This run's keys: every key of an event carries its tag, and all of them live on one node.
  for (const eventId of events) {
    for (const node of masters(redis)) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `{ev:${eventId}}*`, 'COUNT', 1000);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  }
  return { refused, label, holdsPerS: Math.round(HOLDS / secs), p50: +lat[Math.floor(lat.length / 2)]!.toFixed(2), p99: +lat[Math.floor(lat.length * 0.99)]!.toFixed(2) };
}

async function main(): Promise<void> {
  const cluster = await RedisCluster.start();
  const one = createRedisClient({ redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', redisClusterNodes: null });
  const onCluster = createRedisClient({ redisUrl: '', redisClusterNodes: cluster.nodes });
  try {
    const rows = [];
    for (let round = 0; round < 2; round++) {
      rows.push(await measure('one node', one, 0));
      rows.push(await measure('cluster (3 masters)', onCluster, 0));
      rows.push(await measure('cluster, HOLD_REPLICA_ACKS=1', onCluster, 1));
    }
    const base = rows.filter((r) => r.label.startsWith('cluster (')).reduce((t, r) => t + r.holdsPerS, 0) / 2;
    process.stdout.write(`${HOLDS} holds, ${CONCURRENCY} concurrent callers, 2 interleaved rounds\n\n`);
    process.stdout.write('| setup | holds/s | p50 ms | p99 ms | not acknowledged (503) | vs cluster without acks |\n| --- | ---: | ---: | ---: | ---: | ---: |\n');
    for (const r of rows) process.stdout.write(`| ${r.label} | ${r.holdsPerS} | ${r.p50} | ${r.p99} | ${r.refused} | ${(r.holdsPerS / base).toFixed(2)}× |\n`);
  } finally {
    // The one node's test keys: each event's keys carry its tag; the hold keys expire in 60 s.
    one.disconnect();
    onCluster.disconnect();
    await cluster.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
