/**
 * `npx tsx apps/bench/src/catalog-load.cli.ts [--rounds N] [--sizes 10000,40000,100000]`
 *
 * An event's seat catalog load (EventCatalog, packages/domain/src/event-catalog.ts)
 * against the loader it replaced (Prisma's seat rows, each tier sorted one string
 * comparison at a time, copied below), in one process, in alternating rounds:
 * the process's CPU, the wall time and the longest the event loop stood still
 * (monitorEventLoopDelay's max) while each loads; then a first hold (best
 * available, one seat) on a new DomainContext whose catalog loads with the old
 * loader, with the new one, and after a preload, the event already in Redis.
 * Medians over the rounds, and new/old ratios. Needs BENCH_DATABASE_URL and
 * BENCH_REDIS_URL (a database and a Redis db of its own: it creates events there
 * and flushes that Redis db at the end).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import {
  createDb, ensureDatabase, findEvent, insertEvent, listSeatMap, migrateDatabase, runTransaction, type Db, type NewSeat, type SeatRow,
} from '@holdfast/db';
import { compareSeat, createDomain, createHold, EventCatalog, primeEvent, type Catalog, type DomainContext } from '@holdfast/domain';
import { HoldStore } from '@holdfast/hold-store';

/** The catalog load as it was: Prisma's rows, then the maps, then each tier sorted with compareSeat per comparison. */
async function oldLoad(db: Db, eventId: string): Promise<Catalog | null> {
  const readAt = Date.now();
  const event = await findEvent(db, eventId);
  if (!event) return null;
  const seats = event.seatCount > 0 ? await listSeatMap(db, eventId) : [];
  const tiers = new Map<string, SeatRow[]>();
  for (const s of seats) {
    let t = tiers.get(s.tier);
    if (!t) tiers.set(s.tier, (t = []));
    t.push(s);
  }
  for (const t of tiers.values()) t.sort((a, b) => a.priceCents - b.priceCents || compareSeat(a, b));
  return { event, readAt, seats, seatById: new Map(seats.map((s) => [s.id, s])), tiers, ticketTypeById: new Map(event.ticketTypes.map((t) => [t.id, t])) };
}

interface Sample { cpuMs: number; wallMs: number; blockMs: number }

const gc = (globalThis as { gc?: () => void }).gc;

/** CPU, wall time and the event loop's longest stand-still while `fn` runs. */
async function measure(fn: () => Promise<unknown>): Promise<Sample> {
  gc?.();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  // One more turn, so a stand-still at the very end is sampled too.
  await new Promise((r) => setTimeout(r, 2));
  loop.disable();
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs, blockMs: loop.max / 1e6 };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r1 = (x: number) => Math.round(x * 10) / 10;

/** Ten sections of 50 rows (numbered) in two tiers, the front rows dearer by section: `count` seats. */
function venue(count: number): NewSeat[] {
  const perRow = Math.ceil(count / 500);
  const seats: NewSeat[] = [];
  for (let s = 0; s < 10; s += 1)
    for (let row = 1; row <= 50; row += 1)
      for (let number = 1; number <= perRow; number += 1) {
        const front = row <= 10;
        seats.push({ section: `Section ${String.fromCharCode(65 + s)}`, row: String(row), number, tier: front ? 'front' : 'main', priceCents: front ? 9000 + 100 * (s % 3) : 4000 });
      }
  return seats.slice(0, count);
}

function context(db: Db, redis: Redis, loader: 'old' | 'new'): DomainContext {
  const ctx = createDomain({ db, store: new HoldStore(redis), settings: { holdRateLimitPerMinute: 1_000_000 } });
  if (loader === 'old') {
    // The bench's stand-in for the old code: this context's catalog loads the old way.
    Object.defineProperty(ctx.catalog, 'load', { value: (eventId: string) => oldLoad(db, eventId) });
  }
  return ctx;
}

async function closeContext(ctx: DomainContext): Promise<void> {
  ctx.queueTicker.stop();
  ctx.confirms.stop();
  await ctx.persister.flush().catch(() => undefined);
  ctx.persister.stop();
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const rounds = Number(arg('--rounds') ?? 5);
  const sizes = (arg('--sizes') ?? '10000,40000,100000').split(',').map(Number);
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (!databaseUrl || !redisUrl) throw new Error('set BENCH_DATABASE_URL and BENCH_REDIS_URL (a database and a Redis db of the bench\'s own)');
  await ensureDatabase(databaseUrl);
  await migrateDatabase(databaseUrl);
  const db = createDb(databaseUrl, { queryTimeoutMillis: 1500 });
  const redis = new Redis(redisUrl);
  const events: string[] = [];
  process.stdout.write(`node ${process.version}, ${rounds} rounds, gc between samples: ${gc ? 'yes' : 'no (run with NODE_OPTIONS=--expose-gc)'}\n`);
  try {
    for (const size of sizes) {
      const eventId = await runTransaction(db, (tx) => insertEvent(tx, {
        name: `catalog bench ${size}`, startsAt: new Date('2027-01-01T19:00:00Z'), currency: 'USD', holdTtlSeconds: 600, maxTicketsPerCustomer: 10,
        maxHoldExtensions: 1, maxHoldSeconds: 1800, waitlistOfferSeconds: 1800, salesStatus: 'on_sale', salesStartAt: null, salesEndAt: null,
        waitingRoom: null, seats: venue(size), ticketTypes: [{ name: 'Standing', priceCents: 3000, capacity: 100 }],
      }), { timeoutMs: 120_000 });
      events.push(eventId);
      // The same catalog either way (checked once per size).
      const [before, after] = [await oldLoad(db, eventId), await new EventCatalog(db).get(eventId)];
      const same = JSON.stringify([before!.seats, [...before!.tiers]]) === JSON.stringify([after!.seats, [...after!.tiers]]);
      if (!same) throw new Error(`the new catalog of ${size} seats differs from the old one`);
      // In Redis once, so each first hold below pays its catalog's load and not the event's priming.
      const primer = context(db, redis, 'new');
      await primeEvent(primer, eventId);
      await closeContext(primer);

      const load: Record<'old' | 'new', Sample[]> = { old: [], new: [] };
      const hold: Record<'old' | 'new' | 'preloaded', Sample[]> = { old: [], new: [], preloaded: [] };
      let buyer = 0;
      for (let round = 0; round < rounds; round += 1) {
        const order: ('old' | 'new')[] = round % 2 ? ['new', 'old'] : ['old', 'new'];
        for (const which of order) {
          load[which].push(await measure(() => (which === 'old' ? oldLoad(db, eventId) : new EventCatalog(db).get(eventId))));
        }
        for (const which of round % 2 ? (['preloaded', 'new', 'old'] as const) : (['old', 'new', 'preloaded'] as const)) {
          const ctx = context(db, redis, which === 'old' ? 'old' : 'new');
          if (which === 'preloaded') await ctx.catalog.preload(eventId);
          buyer += 1;
          hold[which].push(await measure(async () => {
            const h = await createHold(ctx, { eventId, customerId: `bench-buyer-${buyer}`, selector: { kind: 'best', tier: 'main', quantity: 1 } });
            if (h.items.length !== 1) throw new Error('no seat held');
          }));
          await closeContext(ctx);
        }
      }
      const row = (name: string, xs: Sample[], base?: Sample[]) => {
        const m = { cpuMs: median(xs.map((x) => x.cpuMs)), wallMs: median(xs.map((x) => x.wallMs)), blockMs: median(xs.map((x) => x.blockMs)) };
        const ratio = base ? ` | ${(m.cpuMs / median(base.map((x) => x.cpuMs))).toFixed(2)}x cpu, ${(m.blockMs / median(base.map((x) => x.blockMs))).toFixed(2)}x block` : '';
        process.stdout.write(`  ${name.padEnd(22)} cpu ${String(r1(m.cpuMs)).padStart(6)} ms  wall ${String(r1(m.wallMs)).padStart(6)} ms  longest block ${String(r1(m.blockMs)).padStart(6)} ms${ratio}\n`);
      };
      process.stdout.write(`${size} seats (medians of ${rounds}; new/old ratios from the same rounds)\n`);
      row('catalog load, old', load.old);
      row('catalog load, new', load.new, load.old);
      row('first hold, old', hold.old);
      row('first hold, new', hold.new, hold.old);
      row('first hold, preloaded', hold.preloaded, hold.old);
    }
  } finally {
    for (const id of events) await db.$executeRaw`DELETE FROM events WHERE id = ${id}::uuid`;
    await redis.flushdb();
    redis.disconnect();
    await db.$disconnect();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
