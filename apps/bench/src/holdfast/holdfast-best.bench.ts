import { randomUUID } from 'node:crypto';

import { seatIndexLayout, sortTierSeats } from '@holdfast/domain';
import { bestWindow, eventKeys, HoldStore, type IndexedSeat } from '@holdfast/hold-store';
import Redis from 'ioredis';

import type { ChildServer } from '../baselines/child-server.launcher';
import { createHttpClient, runHttpLoad, type LoadRequest } from '../http-load.generator';
import { elapsedMs, LatencyHistogram, round3 } from '../latency.histogram';
import { withProcessCpu } from '../process-cpu.probe';
import { SeatCursor } from './holdfast-holds.bench';
import type { BenchPlan } from '../bench-plan.config';
import type { BenchEvent, HoldfastFixture } from './holdfast.fixture';
import { RedisProcess } from '@holdfast/test-kit';

/** Customers hold at most this many seats each, under the events' per-customer limit of 100. */
const HOLDS_PER_CUSTOMER = 40;

/** One path's share of an interleaved load. */
interface PathRun {
  /** API process CPU ms per request (warm-up included), for the loads of one path alone. */
  cpuMsPerRequest?: number | null;
  ok: number;
  failed: number;
  okPerSec: number;
  p50Ms: number;
  p99Ms: number;
  failureSamples: string[];
}

interface PathAtLevel {
  ok: number;
  okPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

interface BestLevel {
  concurrency: number;
  /** One interleaved load per round (latency), then each path alone (throughput). */
  rounds: { byId: PathRun; best: PathRun; byIdAlone: PathRun; bestAlone: PathRun }[];
  /** Holds of one given seat each (`{"seatIds": [id]}`), distinct seats: medians over the rounds (ok summed). */
  byId: PathAtLevel;
  /** Best available, `{"tier": "standard", "quantity": 1}`, on another event of the same size. */
  best: PathAtLevel;
  /** Each path alone: holds/s, median of the rounds. */
  byIdAlonePerSec: number;
  bestAlonePerSec: number;
  /** API CPU ms per hold, each path alone, median of the rounds. */
  byIdCpuMs: number | null;
  bestCpuMs: number | null;
  /** best / by id, median of the per-round ratios (p50 and p99 interleaved, throughput alone). */
  p50Ratio: number | null;
  p99Ratio: number | null;
  throughputRatio: number | null;
  failureSamples: string[];
}

interface ScriptTiming {
  /** Share of the tier taken before the calls (random seats). */
  takenPct: number;
  quantity: number;
  calls: number;
  /** The script's own execution time, from SLOWLOG on a private redis-server (µs). */
  p50Us: number;
  p99Us: number;
  maxUs: number;
  /** Round trip seen by the client (EVALSHA over loopback), µs. */
  clientP50Us: number;
  /** Holds of q > 1 that were side by side. */
  sideBySide: number;
}

interface BestMemory {
  seats: number;
  /** MEMORY USAGE of the free set (zset) with every seat free, and of the seat index (hash). */
  freeSetBytes: number;
  seatIndexBytes: number;
  bytesPerSeat: number;
}

export interface BestReport {
  levels: BestLevel[];
  tierSeats: number;
  scripts: ScriptTiming[];
  /** hold-seats (one given seat) on the same private server, for comparison. */
  byIdScript: { calls: number; p50Us: number; p99Us: number; maxUs: number };
  memory: BestMemory;
}

/** The plan's `best` part. */
type BestOptions = BenchPlan['best'];

/**
 * Best available against holds by seat id, through the real API, at several
 * concurrency levels (each level: by id, then best, on two fresh events of the
 * same size), then the script's own time on a large tier.
 */
export async function measureBest(api: ChildServer, fixture: HoldfastFixture, options: BestOptions, log: (line: string) => void): Promise<BestReport> {
  const perLevel = options.requests + options.warmupRequests;
  // One more seat each for the hold that primes the event.
  const seats = 2 * perLevel * options.levels.length * options.rounds + 1;
  log(`best available: two events of ${seats} seats (by id, best)`);
  const byIdEvent = await fixture.createEvent({ name: 'bench best: by id', seats });
  const bestEvent = await fixture.createEvent({ name: 'bench best: best available', seats });
  const levels: BestLevel[] = [];
  try {
    const cursor = new SeatCursor(byIdEvent, fixture, 'best-byid');
    const bestRequests = new BestRequests(bestEvent, fixture, 'best-best');
    // The first hold of each event primes it (and builds the index): not measured.
    await runHttpLoad({ baseUrl: api.baseUrl, concurrency: 1, maxRequests: 1, maxDurationMs: 60_000, makeRequest: cursor.take(1) });
    await runHttpLoad({ baseUrl: api.baseUrl, concurrency: 1, maxRequests: 1, maxDurationMs: 60_000, makeRequest: bestRequests.take(1) });
    type Round = BestLevel['rounds'][number];
    const runs = new Map<number, Round[]>(options.levels.map((c) => [c, []]));
    for (let round = 1; round <= options.rounds; round += 1) {
      for (const concurrency of options.levels) {
        await drained(fixture, [byIdEvent.eventId, bestEvent.eventId]);
        const opts = { requests: options.requests, warmupRequests: options.warmupRequests, maxDurationMs: options.maxDurationMs };
        const mixed = await interleavedLoad(api, concurrency, { ...opts, byId: cursor.take(perLevel), best: bestRequests.take(perLevel) });
        const alone = async (kind: 'byId' | 'best') => {
          await drained(fixture, [byIdEvent.eventId, bestEvent.eventId]);
          const half = Math.ceil(perLevel / 2);
          const make = kind === 'byId' ? cursor.take(half) : bestRequests.take(half);
          const run = await withProcessCpu(api.pid, () => interleavedLoad(api, concurrency, {
            requests: Math.floor(options.requests / 2), warmupRequests: Math.floor(options.warmupRequests / 2), maxDurationMs: options.maxDurationMs,
            byId: make, best: make, only: true,
          }));
          const sent = run.result.byId.ok + run.result.byId.failed + Math.floor(options.warmupRequests / 2);
          return { ...run.result.byId, cpuMsPerRequest: run.cpuMs === null || sent === 0 ? null : round3(run.cpuMs / sent) };
        };
        let byIdAlone: PathRun;
        let bestAlone: PathRun;
        if (round % 2 === 1) {
          byIdAlone = await alone('byId');
          bestAlone = await alone('best');
        } else {
          bestAlone = await alone('best');
          byIdAlone = await alone('byId');
        }
        log(
          `  round ${round}, ${concurrency} connections: interleaved p99 by id ${mixed.byId.p99Ms} ms, best ${mixed.best.p99Ms} ms; ` +
            `alone by id ${Math.round(byIdAlone.okPerSec)}/s, best ${Math.round(bestAlone.okPerSec)}/s`,
        );
        runs.get(concurrency)!.push({ ...mixed, byIdAlone, bestAlone });
      }
    }
    for (const [concurrency, rounds] of runs) {
      const path = (pick: (r: Round) => PathRun): PathAtLevel => ({
        ok: rounds.reduce((t, r) => t + pick(r).ok, 0),
        okPerSec: median(rounds.map((r) => pick(r).okPerSec)),
        p50Ms: median(rounds.map((r) => pick(r).p50Ms)),
        p99Ms: median(rounds.map((r) => pick(r).p99Ms)),
      });
      const ratios = (f: (r: Round) => number) => {
        const values = rounds.map(f).filter((v) => Number.isFinite(v));
        return values.length ? round3(median(values)) : null;
      };
      levels.push({
        concurrency, rounds, byId: path((r) => r.byId), best: path((r) => r.best),
        byIdAlonePerSec: median(rounds.map((r) => r.byIdAlone.okPerSec)),
        bestAlonePerSec: median(rounds.map((r) => r.bestAlone.okPerSec)),
        byIdCpuMs: medianOrNull(rounds.map((r) => r.byIdAlone.cpuMsPerRequest ?? null)),
        bestCpuMs: medianOrNull(rounds.map((r) => r.bestAlone.cpuMsPerRequest ?? null)),
        p50Ratio: ratios((r) => r.best.p50Ms / r.byId.p50Ms),
        p99Ratio: ratios((r) => r.best.p99Ms / r.byId.p99Ms),
        throughputRatio: ratios((r) => r.bestAlone.okPerSec / r.byIdAlone.okPerSec),
        failureSamples: [...new Set(rounds.flatMap((r) => [r.byId, r.best, r.byIdAlone, r.bestAlone].flatMap((p) => p.failureSamples)))].slice(0, 5),
      });
    }
  } finally {
    await fixture.dropEvent(byIdEvent.eventId);
    await fixture.dropEvent(bestEvent.eventId);
  }
  log(`best available: script times on a ${options.tierSeats}-seat tier (private redis-server, SLOWLOG)`);
  const scripts = await measureScripts(options, log);
  return { levels, tierSeats: options.tierSeats, ...scripts };
}

/** Waits (up to 20 s) until the events' outboxes are empty: their holds have reached PostgreSQL. */
async function drained(fixture: HoldfastFixture, eventIds: string[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    let left = 0;
    for (const id of eventIds) left += await fixture.redis.xlen(eventKeys(id).outbox);
    if (left === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 200));
}

/**
 * `concurrency` closed loops over keep-alive connections; each loop alternates
 * a hold by seat id and a best-available hold, so both paths meet the same
 * moment's load (the machine is shared and its load drifts by the second).
 * `requests` of each kind are measured after `warmupRequests` of each.
 */
async function interleavedLoad(
  api: ChildServer,
  concurrency: number,
  o: {
    requests: number; warmupRequests: number; maxDurationMs: number;
    byId: (i: number) => LoadRequest; best: (i: number) => LoadRequest;
    /** One kind only (`byId`'s builder, indices 0..): the path alone, for its throughput. */
    only?: boolean;
  },
): Promise<{ byId: PathRun; best: PathRun }> {
  const clients = Array.from({ length: concurrency }, () => createHttpClient(api.baseUrl));
  const per = o.only ? 1 : 2;
  const total = per * (o.requests + o.warmupRequests);
  const warm = per * o.warmupRequests;
  const kinds = {
    byId: { hist: new LatencyHistogram(), ok: 0, failed: 0, samples: new Set<string>() },
    best: { hist: new LatencyHistogram(), ok: 0, failed: 0, samples: new Set<string>() },
  };
  let next = 0;
  let started = process.hrtime.bigint();
  let deadline = Infinity;
  const loop = async (client: ReturnType<typeof createHttpClient>) => {
    for (;;) {
      const i = next;
      if (i >= total || Date.now() > deadline) return;
      next += 1;
      if (i === warm) {
        started = process.hrtime.bigint();
        deadline = Date.now() + o.maxDurationMs;
      }
      const kind = o.only || i % 2 === 0 ? 'byId' : 'best';
      const request = o.only ? o.byId(i) : kind === 'byId' ? o.byId(Math.floor(i / 2)) : o.best(Math.floor(i / 2));
      const t0 = process.hrtime.bigint();
      let status = 0;
      let body = '';
      try {
        const res = await client.send(request);
        status = res.status;
        body = res.body.toString('utf8', 0, 200);
      } catch (error) {
        body = error instanceof Error ? error.message : String(error);
      }
      if (i < warm) continue;
      const k = kinds[kind];
      if (status >= 200 && status < 300) {
        k.ok += 1;
        k.hist.record(elapsedMs(t0));
      } else {
        k.failed += 1;
        if (k.samples.size < 5) k.samples.add(`${status || 'error'} ${body}`);
      }
    }
  };
  try {
    await Promise.all(clients.map(loop));
  } finally {
    for (const c of clients) c.close();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const run = (k: (typeof kinds)['byId']): PathRun => {
    const l = k.hist.summary();
    return { ok: k.ok, failed: k.failed, okPerSec: round3(k.ok / seconds), p50Ms: l.p50Ms, p99Ms: l.p99Ms, failureSamples: [...k.samples] };
  };
  return { byId: run(kinds.byId), best: run(kinds.best) };
}

/** Best-available hold requests, one token per HOLDS_PER_CUSTOMER requests. */
class BestRequests {
  private next = 0;
  private readonly tokens: string[] = [];

  constructor(private readonly event: BenchEvent, private readonly fixture: HoldfastFixture, private readonly prefix: string) {}

  take(count: number): (index: number) => LoadRequest {
    const start = this.next;
    this.next += count;
    for (let c = Math.floor(start / HOLDS_PER_CUSTOMER); c <= Math.floor((start + count - 1) / HOLDS_PER_CUSTOMER); c += 1) {
      this.tokens[c] ??= this.fixture.customerToken(`${this.prefix}-${c}`);
    }
    const body = JSON.stringify({ tier: 'standard', quantity: 1 });
    return (index) => ({
      method: 'POST',
      path: `/v1/events/${this.event.eventId}/holds`,
      headers: { authorization: `Bearer ${this.tokens[Math.floor((start + index) / HOLDS_PER_CUSTOMER)]}` },
      body,
    });
  }
}

/**
 * The script alone: a private redis-server (no persistence, port chosen by the
 * OS) with SLOWLOG recording every command, so each EVALSHA's own execution
 * time is read from Redis itself. The tier is laid out like the bench's events
 * (sections of 100 rows × 100 seats, one price) and indexed as priming does;
 * taken seats are chosen at random (the hard case for seats side by side).
 * Every measured hold is undone before the next call, so each call sees the
 * same taken share.
 */
async function measureScripts(options: BestOptions, log: (line: string) => void) {
  const server = await RedisProcess.start();
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  try {
    await redis.config('SET', 'slowlog-log-slower-than', '0');
    await redis.config('SET', 'slowlog-max-len', '100000');
    const store = new HoldStore(redis);
    const eventId = randomUUID();
    const k = eventKeys(eventId);
    const seats = syntheticTier(options.tierSeats);
    await redis.set(k.ready, '1');
    const layout = seatIndexLayout({ seats, tiers: new Map([['standard', seats]]) } as never);
    for (let i = 0; i < layout.seats.length; i += 2000) {
      const last = i + 2000 >= layout.seats.length ? { tiers: layout.tiers, seatCount: layout.seats.length } : null;
      await store.syncFreeSeats(eventId, layout.seats.slice(i, i + 2000), last);
    }
    const freeSetBytes = Number(await redis.call('MEMORY', 'USAGE', k.free, 'SAMPLES', '0'));
    const seatIndexBytes = Number(await redis.call('MEMORY', 'USAGE', k.seatIndex, 'SAMPLES', '0'));
    const memory: BestMemory = {
      seats: seats.length, freeSetBytes, seatIndexBytes, bytesPerSeat: Math.round((freeSetBytes + seatIndexBytes) / seats.length),
    };
    log(`  free set ${freeSetBytes} bytes + seat index ${seatIndexBytes} bytes = ${memory.bytesPerSeat} bytes per seat`);
    const rankOf = new Map(layout.seats.map((s) => [s.id, s.rank]));
    const scripts: ScriptTiming[] = [];
    let byIdScript = { calls: 0, p50Us: 0, p99Us: 0, maxUs: 0 };
    let takenSoFar = 0;
    const order = shuffled(layout.seats);
    for (const takenPct of options.takenPcts) {
      const target = Math.floor((layout.seats.length * takenPct) / 100);
      await take(redis, k, order.slice(takenSoFar, target));
      takenSoFar = target;
      for (const quantity of options.quantities) {
        const timing = await timeCalls(redis, options.scriptCalls, async (i) => {
          const holdId = `${eventId}:bench-${randomUUID()}`;
          const customerId = `script-${i}`;
          const t0 = process.hrtime.bigint();
          const r = await store.holdBest({
            eventId, holdId, customerId, ttlMs: 600_000, maxPerCustomer: 1000, rateLimit: 0, rateWindowMs: 60_000,
            tier: 'standard', quantity, currency: 'USD', window: bestWindow(quantity), outboxMaxPending: 1_000_000,
          });
          const clientUs = Number(process.hrtime.bigint() - t0) / 1000;
          if (r.kind !== 'ok') throw new Error(`best-available script answered ${r.kind} at ${takenPct} % taken`);
          await undo(redis, k, holdId, customerId, r.seatIds, rankOf);
          return { clientUs, sideBySide: r.sideBySide };
        });
        scripts.push({ takenPct, quantity, ...timing });
        log(`  ${takenPct} % taken, q=${quantity}: script p50 ${timing.p50Us} µs, p99 ${timing.p99Us} µs, max ${timing.maxUs} µs`);
      }
      if (takenPct === options.takenPcts[0]) {
        // hold-seats with one given free seat, for comparison.
        const free = order.slice(takenSoFar);
        const timing = await timeCalls(redis, options.scriptCalls, async (i) => {
          const holdId = `${eventId}:bench-${randomUUID()}`;
          const seat = free[i % free.length]!;
          const t0 = process.hrtime.bigint();
          const r = await store.holdSeats({
            eventId, holdId, customerId: `byid-${i}`, ttlMs: 600_000, maxPerCustomer: 1000, rateLimit: 0, rateWindowMs: 60_000,
            candidates: [{ seatIds: [seat.id], recordJson: '{}' }], outboxMaxPending: 1_000_000,
          });
          const clientUs = Number(process.hrtime.bigint() - t0) / 1000;
          if (r.kind !== 'ok') throw new Error(`hold-seats answered ${r.kind}`);
          await undo(redis, k, holdId, `byid-${i}`, [seat.id], rankOf);
          return { clientUs, sideBySide: false };
        });
        byIdScript = { calls: timing.calls, p50Us: timing.p50Us, p99Us: timing.p99Us, maxUs: timing.maxUs };
        log(`  hold-seats (one given seat): script p50 ${timing.p50Us} µs, p99 ${timing.p99Us} µs`);
      }
    }
    return { scripts, byIdScript, memory };
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

type Keys = ReturnType<typeof eventKeys>;

/** Takes seats as holds would: a lease each, out of the free set. */
async function take(redis: Redis, k: Keys, seats: IndexedSeat[]): Promise<void> {
  for (let i = 0; i < seats.length; i += 5000) {
    const p = redis.pipeline();
    for (const s of seats.slice(i, i + 5000)) p.set(k.seat(s.id), 'bench-taken', 'PX', 3_600_000).zrem(k.free, s.id);
    await p.exec();
  }
}

/** Gives a measured hold's seats back and removes what it wrote. */
async function undo(redis: Redis, k: Keys, holdId: string, customerId: string, seatIds: string[], rankOf: Map<string, number>) {
  const p = redis.pipeline();
  for (const id of seatIds) p.del(k.seat(id)).zrem(k.held, id).zadd(k.free, rankOf.get(id)!, id);
  p.del(k.hold(holdId), k.customer(customerId), k.outbox);
  await p.exec();
}

/** Runs `calls` script calls one at a time; reads their own times from SLOWLOG (EVALSHA entries only). */
async function timeCalls(redis: Redis, calls: number, call: (i: number) => Promise<{ clientUs: number; sideBySide: boolean }>) {
  await redis.call('SLOWLOG', 'RESET');
  const client: number[] = [];
  let sideBySide = 0;
  for (let i = 0; i < calls; i += 1) {
    const r = await call(i);
    client.push(r.clientUs);
    if (r.sideBySide) sideBySide += 1;
  }
  const entries = (await redis.call('SLOWLOG', 'GET', '-1')) as [number, number, number, string[]][];
  const script = entries.filter((e) => String(e[3]?.[0]).toLowerCase() === 'evalsha' || String(e[3]?.[0]).toLowerCase() === 'eval').map((e) => Number(e[2]));
  return { calls, p50Us: pct(script, 0.5), p99Us: pct(script, 0.99), maxUs: Math.max(0, ...script), clientP50Us: round3(pct(client, 0.5)), sideBySide };
}

function medianOrNull(values: (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length ? median(present) : null;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return round3(sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2);
}

function pct(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function syntheticTier(count: number) {
  const seats = Array.from({ length: count }, (_, index) => {
    const section = `S${Math.floor(index / 10_000) + 1}`;
    const row = String(Math.floor((index % 10_000) / 100) + 1);
    const number = (index % 100) + 1;
    return { id: randomUUID(), section, row, number, tier: 'standard', priceCents: 5000, label: `${section}-${row}-${number}` };
  });
  return sortTierSeats(seats);
}

/** A deterministic shuffle (so runs take the same seats). */
function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  let s = 11;
  for (let i = out.length - 1; i > 0; i -= 1) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
