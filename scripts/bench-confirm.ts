// Confirm throughput: rounds of 50 concurrent confirms of distinct holds through the real
// use-case, then pgbench running the same transaction shape (per-year row, then a sequence).
//
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/holdfast_bench REDIS_URL=redis://127.0.0.1:6379/3 \
//     npx tsx scripts/bench-confirm.ts [rounds=6] [concurrency=50]
//
// Use a database and Redis index of your own: it creates (and at the end drops) a bench event.
/* eslint-disable no-console */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createApiRuntime } from '@holdfast/api';
import { loadConfig } from '@holdfast/config';
import { createDb, ensureDatabase, migrateDatabase } from '@holdfast/db';
import { confirmHold, createEvent, createHold } from '@holdfast/domain';

const rounds = Number(process.argv[2] ?? 6);
const concurrency = Number(process.argv[3] ?? 50);
const PGBENCH_TX_PER_CLIENT = 40;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn', HOLD_RATE_LIMIT_PER_MINUTE: '100000' });
  await ensureDatabase(config.databaseUrl);
  await migrateDatabase(config.databaseUrl);
  const rt = await createApiRuntime(config);
  const { ctx, db } = rt;
  const total = rounds * concurrency;

  // --- 1. The use-case: rounds of `concurrency` confirms at once, each of its own hold.
  const event = await createEvent(ctx, {
    name: 'confirm bench', startsAt: new Date('2030-01-01T00:00:00Z'), currency: 'USD',
    holdTtlSeconds: 3600, maxTicketsPerCustomer: 10,
    seats: Array.from({ length: total }, (_, i) => ({ section: 'N', row: '1', number: i + 1, tier: 'std', priceCents: 1000 })),
    ticketTypes: [],
  });
  const catalog = await ctx.catalog.get(event.id);
  const holds: string[] = [];
  for (const seat of catalog!.seats) {
    const h = await createHold(ctx, { eventId: event.id, customerId: `bench-${seat.number}`, selector: { kind: 'seats', seatIds: [seat.id] } });
    holds.push(h.id);
  }
  await ctx.persister.flush([event.id]);

  // Samples, on a connection of its own, how many confirms wait on a lock (the year row, mostly).
  const probe = createDb(config.databaseUrl, { poolSize: 1 });
  const waiting: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const [row] = await probe.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
      waiting.push(row!.n);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();

  const latencies: number[] = [];
  const roundRates: number[] = [];
  let wall = 0;
  for (let r = 0; r < rounds; r++) {
    const batch = holds.slice(r * concurrency, (r + 1) * concurrency);
    const start = performance.now();
    await Promise.all(batch.map(async (holdId) => {
      const t0 = performance.now();
      const res = await confirmHold(ctx, { holdId, payment: { provider: 'service', reference: 'bench' } });
      if (!res.created) throw new Error('bench hold was confirmed already');
      latencies.push(performance.now() - t0);
    }));
    const ms = performance.now() - start;
    wall += ms;
    roundRates.push((batch.length / ms) * 1000);
  }
  sampling = false;
  await sampler;
  await probe.$disconnect();
  latencies.sort((a, b) => a - b);
  const sold = await db.seat.count({ where: { eventId: event.id, status: 'SOLD' } });
  console.log(`confirmHold (Node, Prisma pool 20, ${concurrency} concurrent, ${rounds} rounds, ${total} confirms, ${sold} seats sold):`);
  console.log(`  ${((total / wall) * 1000).toFixed(0)} confirms/s overall; per round ${roundRates.map((x) => x.toFixed(0)).join(', ')}`);
  console.log(`  confirms waiting on a row lock, sampled every ~10 ms: mean ${(waiting.reduce((a, b) => a + b, 0) / waiting.length).toFixed(1)}, max ${Math.max(...waiting)}`);
  console.log(`  latency ms p50 ${percentile(latencies, 50).toFixed(1)}  p95 ${percentile(latencies, 95).toFixed(1)}  max ${latencies[latencies.length - 1]!.toFixed(1)}`);

  // --- 2. pgbench, same transaction shape on the same tables, in the same run.
  const benchEvent = crypto.randomUUID();
  const year = 9000 + Math.floor(Math.random() * 900);
  const slots = 4 * 50 * PGBENCH_TX_PER_CLIENT + 100;
  await db.$executeRawUnsafe(`INSERT INTO events (id, name, starts_at, currency, hold_ttl_seconds, max_tickets_per_customer, seat_count)
    VALUES ('${benchEvent}', 'pgbench confirm', now(), 'USD', 600, 10, ${slots})`);
  await db.$executeRawUnsafe(`INSERT INTO seats (id, event_id, section, "row", number, label, tier, price_cents)
    SELECT gen_random_uuid(), '${benchEvent}', 'P', '1', n, 'P-1-' || n, 'std', 1000 FROM generate_series(1, ${slots}) n`);
  await db.$executeRawUnsafe(`INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
    SELECT 'bench_' || n, '${benchEvent}', 'bench', 'ACTIVE', now(), now() + interval '1 hour', '[]', 1000, 'USD' FROM generate_series(1, ${slots}) n`);
  await db.$executeRawUnsafe('DROP SEQUENCE IF EXISTS bench_confirm_n');
  await db.$executeRawUnsafe('CREATE SEQUENCE bench_confirm_n');
  await db.$executeRawUnsafe('DROP SEQUENCE IF EXISTS bench_order_number_seq');
  await db.$executeRawUnsafe('CREATE SEQUENCE bench_order_number_seq');
  await db.$executeRawUnsafe(`DELETE FROM order_sequences WHERE year IN (${year}, ${year + 1})`);

  const url = new URL(config.databaseUrl);
  const runs: [string, string, number, number][] = [
    ['per-year row', 'confirm-year-row.sql', 20, year],
    ['per-year row', 'confirm-year-row.sql', 50, year],
    ['sequence', 'confirm-sequence.sql', 20, year + 1],
    ['sequence', 'confirm-sequence.sql', 50, year + 1],
  ];
  for (const [label, file, clients, y] of runs) {
    const out = spawnSync('pgbench', [
      '-n', '-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres'),
      '-c', String(clients), '-j', '2', '-t', String(PGBENCH_TX_PER_CLIENT),
      '-D', `event=${benchEvent}`, '-D', `year=${y}`,
      '-f', path.join(__dirname, 'pgbench', file), url.pathname.slice(1),
    ], { encoding: 'utf8' });
    const tps = /tps = ([\d.]+)/.exec(out.stdout)?.[1];
    const lat = /latency average = ([\d.]+ ms)/.exec(out.stdout)?.[1];
    const failed = /number of failed transactions: (\d+)/.exec(out.stdout)?.[1];
    console.log(`pgbench ${label}, ${clients} clients x ${PGBENCH_TX_PER_CLIENT}: ${tps ?? '?'} tps, latency avg ${lat ?? '?'}, failed ${failed ?? '?'}`);
    if (out.status !== 0) console.log(out.stdout, out.stderr);
  }

  // --- Clean up both bench events.
  for (const id of [event.id, benchEvent]) {
    await db.$executeRawUnsafe(`DELETE FROM payments WHERE event_id = '${id}'`);
    await db.$executeRawUnsafe(`DELETE FROM events WHERE id = '${id}'`);
  }
  await db.$executeRawUnsafe(`DELETE FROM order_sequences WHERE year IN (${year}, ${year + 1})`);
  await db.$executeRawUnsafe('DROP SEQUENCE IF EXISTS bench_confirm_n');
  await db.$executeRawUnsafe('DROP SEQUENCE IF EXISTS bench_order_number_seq');
  const keys = await rt.redis.keys(`{ev:${event.id}}*`);
  if (keys.length) await rt.redis.del(...keys);
  await rt.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
