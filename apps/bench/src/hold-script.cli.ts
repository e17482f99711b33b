/**
 * `npx tsx apps/bench/src/hold-script.cli.ts [--redis redis://127.0.0.1:6391/0] [--calls 4000] [--rounds 5]
 *   [--inflight 16] [--scripts hold1,hold4,tickets,best1,best4,readClaim,endConfirmed,keyClaim] [--against <git rev>]`
 *
 * Redis's own CPU per call of each hot hold script, in isolation: a Redis
 * server on this machine with nothing else on it (its pid from INFO; no
 * HTTP, no API, no PostgreSQL), an event primed in it, and `--calls` calls of
 * one script through HoldStore (the same KEYS and ARGV as the API sends), up
 * to `--inflight` in flight on one connection. For each call: the server's CPU
 * (INFO's used_cpu_user + used_cpu_sys, getrusage: whole process), EVALSHA's
 * own time in commandstats (usec_per_call: the script and its redis.call
 * commands, without reading and writing the socket), the commands the script
 * called (calls of every other command / calls) and the bytes Redis read
 * (total_net_input_bytes: the command and its ARGV). Every phase has an event
 * of its own, so each run starts from the same state.
 *
 * `--against <rev>`: the hold store of that commit (its src, from git, under
 * node_modules/.cache) runs beside this checkout's, in alternating order in
 * every round; medians over rounds, min–max beside them, and the new/old ratio.
 *
 * Scripts: hold1 and hold4 (hold-seats-11.lua, one candidate of 1 or 4 seats),
 * tickets (hold-tickets-11.lua, 1 ticket), best1 and best4 (hold-best-12.lua),
 * readClaim (read-claim-hold-7.lua, a confirm's claim on a 1-seat hold made
 * before the phase), endConfirmed (end-confirmed-holds-6.lua, one confirmed
 * 1-seat hold per call, claimed before the phase), keyClaim (what a request with an
 * Idempotency-Key adds: idempotency-begin-1.lua on a new key, then
 * idempotency-end-1.lua storing an answer of 600 bytes; both scripts are one
 * call). The customer's rate limit
 * is counted (100,000 a minute, as the bench's API), 50 holds per customer.
 *
 * `--callgrind <pid> --callgrind-dir <dir>`: that Redis server runs under
 * `valgrind --tool=callgrind --callgrind-out-file=<dir>/callgrind.out.%p`; the
 * instructions it ran per call are counted too (deterministic on a busy
 * machine; `--keep-dumps` keeps each phase's dump for callgrind_annotate).
 *
 * The Redis server must be local and of its own (it FLUSHDBs its db at the
 * end), e.g. `redis-server --port 6391 --save '' --appendonly no --daemonize yes`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import * as current from '@holdfast/hold-store';
import { medianOf } from './latency.histogram';

type HoldStoreModule = typeof current;
type Store = InstanceType<HoldStoreModule['HoldStore']>;

const ALL_SCRIPTS = ['hold1', 'hold4', 'tickets', 'best1', 'best4', 'readClaim', 'endConfirmed', 'keyClaim'] as const;
type ScriptCase = (typeof ALL_SCRIPTS)[number];

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const redisUrl = option('redis', 'redis://127.0.0.1:6391/0');
const callsPerPhase = Number(option('calls', '4000'));
const rounds = Number(option('rounds', '5'));
const inflight = Number(option('inflight', '16'));
const against = option('against', '');
/**
 * The pid of a Redis server run under `valgrind --tool=callgrind` (its out file in --callgrind-dir, named
 * callgrind.out*): instructions per call too.
 */
const callgrindPid = option('callgrind', '');
const cases = option('scripts', ALL_SCRIPTS.join(',')).split(',') as ScriptCase[];
for (const c of cases) if (!ALL_SCRIPTS.includes(c)) throw new Error(`unknown script case ${c} (${ALL_SCRIPTS.join(', ')})`);

const HOLDS_PER_CUSTOMER = 50;
const BEST_EVENT_SEATS = 5000;
const TTL_MS = 600_000;

/** The hold store of another commit, extracted where its imports resolve from this checkout's node_modules. */
async function storeAt(rev: string): Promise<HoldStoreModule> {
  const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
  const sha = execFileSync('git', ['rev-parse', rev], { encoding: 'utf8', cwd: root }).trim();
  const dir = path.join(root, 'node_modules', '.cache', 'hold-script', sha);
  if (!existsSync(path.join(dir, 'packages', 'hold-store', 'src', 'index.ts'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${sha} packages/hold-store/src | tar -x -C '${dir}'`], { cwd: root });
  }
  return (await import(path.join(dir, 'packages', 'hold-store', 'src', 'index.ts'))) as HoldStoreModule;
}

interface ServerCounters { cpuUs: number; inBytes: number; evalshaCalls: number; evalshaUs: number; innerCalls: number }

async function counters(redis: Redis): Promise<ServerCounters> {
  const info = await redis.info('all');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  let evalshaCalls = 0;
  let evalshaUs = 0;
  let innerCalls = 0;
  for (const m of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/gm)) {
    if (m[1] === 'evalsha' || m[1] === 'eval') {
      evalshaCalls += Number(m[2]);
      evalshaUs += Number(m[3]);
    } else if (m[1] !== 'info' && m[1] !== 'config|resetstat') {
      innerCalls += Number(m[2]);
    }
  }
  return {
    cpuUs: (field('used_cpu_user') + field('used_cpu_sys')) * 1e6, inBytes: field('total_net_input_bytes'),
    evalshaCalls, evalshaUs, innerCalls,
  };
}

interface Sample { cpuUs: number; evalshaUs: number; innerCalls: number; inBytes: number; instructions: number }

/**
 * Callgrind's count of instructions since it was last zeroed, then zeroed
 * again: `callgrind_control --dump` writes a file (<out>.<n>) whose totals line has it.
 */
function callgrindInstructions(zeroOnly = false): number {
  if (!callgrindPid) return 0;
  if (zeroOnly) {
    execFileSync('callgrind_control', ['--zero', callgrindPid], { stdio: 'ignore' });
    return 0;
  }
  const before = new Set(readdirSync(callgrindDir()));
  execFileSync('callgrind_control', ['--dump', callgrindPid], { stdio: 'ignore' });
  const dumped = readdirSync(callgrindDir()).filter((f) => !before.has(f) && f.startsWith('callgrind.out'));
  let total = 0;
  for (const f of dumped) {
    const text = readFileSync(path.join(callgrindDir(), f), 'utf8');
    total += Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1] ?? 0);
    if (!process.argv.includes('--keep-dumps')) rmSync(path.join(callgrindDir(), f));
  }
  return total;
}

/** Where callgrind writes its files: --callgrind-dir (default: the current directory). */
function callgrindDir(): string {
  return option('callgrind-dir', process.cwd());
}

/** Runs `fn(i)` for i in 0..n-1, `inflight` at a time. */
async function drive(n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next;
      next += 1;
      await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inflight, n) }, worker));
}

function holdIdOf(eventId: string): string {
  return `hld_${eventId.replace(/-/g, '')}_${randomBytes(12).toString('hex')}`;
}

function recordJson(eventId: string, customerId: string, seatIds: string[]): string {
  const items = seatIds.map((seatId, i) => ({ seatId, label: `Section A, row 12, seat ${i + 1}`, tier: 'standard', priceCents: 5000, quantity: 1 }));
  return JSON.stringify({ eventId, customerId, items, currency: 'EUR', totalCents: 5000 * items.length });
}

interface MadeHold { holdId: string; customerId: string; seatIds: string[] }

/** One phase: a new event, what the case needs made first (unmeasured), then `calls` calls of its script, measured. */
async function phase(store: Store, redis: Redis, c: ScriptCase, calls: number): Promise<Sample> {
  const eventId = randomUUID();
  const ttId = randomUUID();
  await store.primeEvent({ eventId, ticketTypes: [{ id: ttId, capacity: 1_000_000_000, sold: 0 }], bought: [], soldSeatIds: [] });
  const seatsPerHold = c === 'hold4' || c === 'best4' ? 4 : 1;
  const customerOf = (i: number) => `cust-${Math.floor(i / Math.max(1, Math.floor(HOLDS_PER_CUSTOMER / seatsPerHold)))}`;
  const base = (i: number) => ({
    eventId, holdId: holdIdOf(eventId), customerId: customerOf(i), ttlMs: TTL_MS, maxPerCustomer: 1000,
    rateLimit: 100_000, rateWindowMs: 60_000, outboxMaxPending: 10_000_000, salesStartMs: null, salesEndMs: null, queuePass: '',
  });
  const seatIds = Array.from({ length: calls * seatsPerHold }, () => randomUUID());
  const holdSeats = async (i: number): Promise<MadeHold> => {
    const req = base(i);
    const ids = seatIds.slice(i * seatsPerHold, (i + 1) * seatsPerHold);
    const r = await store.holdSeats({ ...req, candidates: [{ seatIds: ids, recordJson: recordJson(eventId, req.customerId, ids) }] });
    if (r.kind !== 'ok') throw new Error(`holdSeats answered ${r.kind}`);
    return { holdId: req.holdId, customerId: req.customerId, seatIds: ids };
  };

  let run: (i: number) => Promise<unknown>;
  if (c === 'hold1' || c === 'hold4') {
    run = holdSeats;
  } else if (c === 'tickets') {
    run = async (i) => {
      const req = base(i);
      const json = JSON.stringify({ eventId, customerId: req.customerId, items: [{ ticketTypeId: ttId, name: 'General admission', priceCents: 5000, quantity: 1 }], currency: 'EUR', totalCents: 5000 });
      const r = await store.holdTickets({ ...req, ticketTypeId: ttId, quantity: 1, recordJson: json });
      if (r.kind !== 'ok') throw new Error(`holdTickets answered ${r.kind}`);
    };
  } else if (c === 'best1' || c === 'best4') {
    // One tier of rows of 30 seats, each seat a rank of its own, all one price; at least
    // BEST_EVENT_SEATS of them, so the seat index and the free set are as a real event's
    // (a hash and a zset past Redis's listpack sizes, not a list scanned member by member).
    while (seatIds.length < BEST_EVENT_SEATS) seatIds.push(randomUUID());
    const seats = seatIds.map((id, i) => ({ id, rank: i + 1, rowId: Math.floor(i / 30), number: (i % 30) + 1, priceCents: 5000, label: `row ${Math.floor(i / 30)}, seat ${(i % 30) + 1}` }));
    for (let from = 0; from < seats.length; from += 1000) {
      const last = from + 1000 >= seats.length ? { tiers: [{ tier: 'standard', lo: 1, hi: seats.length }], seatCount: seats.length } : null;
      await store.syncFreeSeats(eventId, seats.slice(from, from + 1000), last);
    }
    run = async (i) => {
      const r = await store.holdBest({ ...base(i), tier: 'standard', quantity: seatsPerHold, currency: 'EUR' });
      if (r.kind !== 'ok') throw new Error(`holdBest answered ${r.kind}`);
    };
  } else if (c === 'keyClaim') {
    const fingerprint = 'f'.repeat(64);
    const answer = JSON.stringify({ hold: { id: holdIdOf(eventId), padding: 'x'.repeat(540) } });
    run = async (i) => {
      const principal = `customer:cust-${i}`;
      const key = `${eventId}-${i}`;
      const claim = await store.idempotency.begin(principal, key, fingerprint);
      if (claim.kind !== 'started') throw new Error(`idempotency begin answered ${claim.kind}`);
      if (!(await store.idempotency.complete(principal, key, claim.token, 201, answer))) throw new Error('idempotency complete did not apply');
    };
  } else {
    const holds: MadeHold[] = new Array(calls);
    await drive(calls, async (i) => { holds[i] = await holdSeats(i); });
    const claim = (h: MadeHold) => store.readClaimHold({ eventId, holdId: h.holdId, token: randomUUID(), leaseMs: 30_000, maxPerCustomer: 1000 });
    if (c === 'readClaim') {
      run = async (i) => {
        const r = await claim(holds[i]!);
        if (r.kind !== 'record' || r.claim.kind !== 'live') throw new Error(`readClaimHold answered ${JSON.stringify(r)}`);
      };
    } else {
      await drive(calls, (i) => claim(holds[i]!));
      run = async (i) => {
        const h = holds[i]!;
        const [r] = await store.endConfirmedHolds(eventId, [{ eventId, holdId: h.holdId, customerId: h.customerId, seatIds: h.seatIds, ticketTypeId: null, quantity: 1 }]);
        if (!r?.applied) throw new Error('endConfirmedHolds did not apply');
      };
    }
  }
  await redis.config('RESETSTAT');
  const before = await counters(redis);
  callgrindInstructions(true);
  await drive(calls, run);
  const instructions = callgrindInstructions();
  const after = await counters(redis);
  if (after.evalshaCalls < calls) throw new Error(`${after.evalshaCalls} script calls counted, ${calls} made`);
  return {
    cpuUs: (after.cpuUs - before.cpuUs) / calls,
    evalshaUs: after.evalshaUs / after.evalshaCalls,
    innerCalls: after.innerCalls / after.evalshaCalls,
    inBytes: (after.inBytes - before.inBytes) / calls,
    instructions: instructions / calls,
  };
}

const median = (xs: number[]) => medianOf(xs) ?? NaN;
const fmt = (xs: number[], digits = 2) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

const out = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const versions: { name: string; mod: HoldStoreModule }[] = [{ name: 'this checkout', mod: current }];
  if (against) versions.unshift({ name: against, mod: await storeAt(against) });
  const stores = versions.map((v) => new v.mod.HoldStore(redis as never) as Store);
  out(`redis ${redisUrl} (pid ${/process_id:(\d+)/.exec(await redis.info('server'))?.[1]}), ${callsPerPhase} calls a phase, ${inflight} in flight, ${rounds} rounds`);
  // Warm-up: every script loaded (its first EVALSHA answers NOSCRIPT, then EVAL) before anything is measured.
  for (const c of cases) for (const store of stores) await phase(store, redis, c, 2 * inflight);
  const samples = new Map<string, Sample[]>();
  for (let round = 0; round < rounds; round += 1) {
    for (const c of cases) {
      // Alternating order: old first in even rounds, new first in odd ones.
      const order = versions.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      for (const v of order) {
        const s = await phase(stores[v]!, redis, c, callsPerPhase);
        const key = `${c}\t${v}`;
        samples.set(key, [...(samples.get(key) ?? []), s]);
      }
    }
    process.stderr.write(`round ${round + 1}/${rounds} done\n`);
  }
  out([
    'script', 'version', 'Redis CPU µs/call', 'EVALSHA µs/call', 'commands/call', 'bytes in/call', 'new/old CPU', 'new/old EVALSHA',
    ...(callgrindPid ? ['instructions/call', 'new/old instructions'] : []),
  ].join('\t'));
  for (const c of cases) {
    const old = samples.get(`${c}\t0`)!;
    versions.forEach((v, i) => {
      const s = samples.get(`${c}\t${i}`)!;
      const ratio = (f: (x: Sample) => number) => (i > 0 ? (median(s.map(f)) / median(old.map(f))).toFixed(3) : '');
      out([
        c, v.name, fmt(s.map((x) => x.cpuUs)), fmt(s.map((x) => x.evalshaUs)), median(s.map((x) => x.innerCalls)).toFixed(1),
        median(s.map((x) => x.inBytes)).toFixed(0), ratio((x) => x.cpuUs), ratio((x) => x.evalshaUs),
        ...(callgrindPid ? [fmt(s.map((x) => x.instructions), 0), ratio((x) => x.instructions)] : []),
      ].join('\t'));
    });
  }
  await redis.flushdb();
  redis.disconnect();
}

main().catch((err: unknown) => {
  process.stderr.write(`${String((err as Error)?.stack ?? err)}\n`);
  process.exit(1);
});
