/**
 * `npx tsx apps/bench/src/hold-profile.cli.ts [--rounds 3] [--holds 20000] [--concurrency 50] [--keep DIR]`
 *
 * Where holdfast's API spends the CPU of a hold, beside the bare `node:http`
 * server's request (the hold path's anchor: one `SET NX EX`, JSON in and out).
 * Both run as the hold section runs them (npm start's node flags, the bench's
 * load generator, 50 requests in flight, one distinct seat a request), plus
 * `--cpu-prof`. Each warms up until its CPU per request stops falling, then
 * they take `--rounds` interleaved rounds of `--holds` requests. Each profile is
 * cut to its server's rounds (and 300 ms after each, for what a round leaves to
 * do, such as the outbox drain; both processes read the same monotonic clock)
 * and its busy time split by what it ran (cpu-profile.buckets.ts). Prints, for
 * each part, microseconds of CPU per request on each side and the difference,
 * and each side's CPU per request read from /proc over the same windows.
 * The profiles are deleted unless `--keep DIR` is given.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

import { launchBaseline } from './baselines/baseline-servers';
import type { ChildServer } from './baselines/child-server.launcher';
import { benchRedisUrl, deleteKeys } from './bench-redis.service';
import { bucketProfile, HOLD_PATH_BUCKETS, type ClockWindow } from './cpu-profile.buckets';
import type { CpuProfile } from './cpu-profile.summary';
import { SeatCursor } from './holdfast/holdfast-holds.bench';
import { openHoldfastFixture, type BenchEvent, type HoldfastFixture } from './holdfast/holdfast.fixture';
import { runHttpLoad, type HttpLoadResult } from './http-load.generator';
import { withProcessCpu } from './process-cpu.probe';
import { markdownTable } from './report/markdown-table.format';
import { cpuPerRequest, warmUpRounds } from './warm-up.rounds';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    holds: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '50' },
    keep: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const holds = Number(values.holds);
const concurrency = Number(values.concurrency);
const TAIL_MS = 300;
const MAX_WARM_UP_ROUNDS = 6;

interface Side {
  name: string;
  server: ChildServer;
  dir: string;
  /** One round of `count` requests on fresh seats or keys. */
  load(count: number, tag: string): Promise<HttpLoadResult>;
  windows: ClockWindow[];
  requests: number;
  procCpuMs: number;
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const out = (line: string) => process.stdout.write(`${line}\n`);
const log = (line: string) => process.stderr.write(`${line}\n`);

/** A round on one side, its window and /proc CPU recorded: the load, then TAIL_MS for what it left to do. */
async function measuredRound(side: Side, tag: string): Promise<void> {
  const startUs = nowUs();
  const { result, cpuMs } = await withProcessCpu(side.server.pid, async () => {
    const r = await side.load(holds, tag);
    await sleep(TAIL_MS);
    return r;
  });
  side.windows.push({ startUs, endUs: nowUs() });
  if (result.ok !== holds) throw new Error(`${side.name} ${tag}: ${result.ok} of ${holds} answered 2xx (${result.failureSamples.join('; ')})`);
  side.requests += result.ok;
  side.procCpuMs += cpuMs ?? NaN;
}

async function readProfile(dir: string): Promise<CpuProfile> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f));
  // The server's own thread wrote the largest (tsx's loader thread writes one of its own).
  const sized = await Promise.all(files.map(async (file) => ({ file, size: (await stat(file)).size })));
  const largest = sized.sort((a, b) => b.size - a.size)[0];
  if (!largest) throw new Error(`no CPU profile in ${dir}`);
  return JSON.parse(await readFile(largest.file, 'utf8')) as CpuProfile;
}

async function main(): Promise<void> {
  const dir = values.keep ? path.resolve(values.keep) : await mkdtemp(path.join(os.tmpdir(), 'holdfast-hold-profile-'));
  const redisUrl = benchRedisUrl();
  const barePrefix = `bench:profile-bare:${process.pid}:`;
  const fixture: HoldfastFixture = await openHoldfastFixture();
  const events: BenchEvent[] = [];
  const sides: Side[] = [];
  try {
    const apiDir = path.join(dir, 'holdfast');
    const bareDir = path.join(dir, 'bare');
    const api = await fixture.startApi({ nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${apiDir}`] });
    const bare = await launchBaseline('bareNode', { BENCH_REDIS_URL: redisUrl, BENCH_KEY_PREFIX: barePrefix }, ['--cpu-prof', `--cpu-prof-dir=${bareDir}`]);
    const holdfastSide: Side = {
      name: 'holdfast', server: api, dir: apiDir, windows: [], requests: 0, procCpuMs: 0,
      load: async (count, tag) => {
        const event = await fixture.createEvent({ name: `hold profile ${tag}`, seats: count + 1 });
        events.push(event);
        const cursor = new SeatCursor(event, fixture, `profile-${tag}`);
        // The event's first hold loads its seat catalog: before the round, as the hold section does.
        await runHttpLoad({ baseUrl: api.baseUrl, concurrency: 1, maxRequests: 1, maxDurationMs: 60_000, makeRequest: cursor.take(1) });
        return runHttpLoad({ baseUrl: api.baseUrl, concurrency, maxRequests: count, maxDurationMs: 120_000, makeRequest: cursor.take(count) });
      },
    };
    const bareSide: Side = {
      name: 'bare node:http', server: bare, dir: bareDir, windows: [], requests: 0, procCpuMs: 0,
      load: (count, tag) => runHttpLoad({
        baseUrl: bare.baseUrl, concurrency, maxRequests: count, maxDurationMs: 120_000,
        makeRequest: (index) => ({ method: 'POST', path: '/hold', body: JSON.stringify({ seatId: `${tag}-${index}`, customerId: `customer-${Math.floor(index / 50)}` }) }),
      }),
    };
    sides.push(bareSide, holdfastSide);
    for (const side of sides) {
      const cpu = await warmUpRounds(MAX_WARM_UP_ROUNDS, (round) => cpuPerRequest(side.server.pid, () => side.load(holds, `warm-${round}`)));
      log(`${side.name}: ${cpu.length} warm-up rounds of ${holds} (CPU ms a request ${cpu.map((ms) => ms?.toFixed(3) ?? '?').join(', ')})`);
    }
    for (let round = 1; round <= rounds; round += 1) {
      const order = round % 2 === 1 ? sides : [...sides].reverse();
      for (const side of order) await measuredRound(side, `r${round}`);
      log(`round ${round}/${rounds} done`);
    }
  } finally {
    for (const side of sides) await side.server.stop();
    for (const event of events) await fixture.dropEvent(event.eventId);
    await fixture.close();
    await deleteKeys(redisUrl, `${barePrefix}*`);
  }
  const [bare, holdfast] = await Promise.all(sides.map(async (side) => ({ side, buckets: bucketProfile(await readProfile(side.dir), side.windows, HOLD_PATH_BUCKETS) })));
  if (!values.keep) await rm(dir, { recursive: true, force: true });
  const perRequest = (us: number, requests: number) => us / requests;
  const rows = holdfast!.buckets.byBucket.map((b, i) => {
    const h = perRequest(b.us, holdfast!.side.requests);
    const n = perRequest(bare!.buckets.byBucket[i]!.us, bare!.side.requests);
    return [b.name, h.toFixed(1), n.toFixed(1), (h - n).toFixed(1)];
  });
  const total = (x: { side: Side; buckets: { busyUs: number } }) => perRequest(x.buckets.busyUs, x.side.requests);
  const proc = (side: Side) => ((side.procCpuMs * 1000) / side.requests).toFixed(1);
  out(`${rounds} interleaved rounds of ${holds} requests a side, ${concurrency} in flight, node ${process.version}; µs of CPU a request by what the server ran (V8 CPU profile, its busy time in the rounds' windows)`);
  out('');
  out(markdownTable(['part', 'holdfast API, µs a hold', 'bare node:http, µs a request', 'difference'], [
    ...rows,
    ['all of the profile', total(holdfast!).toFixed(1), total(bare!).toFixed(1), (total(holdfast!) - total(bare!)).toFixed(1)],
    ['the process\'s CPU from /proc, same windows', proc(holdfast!.side), proc(bare!.side), ''],
  ]));
  if (values.keep) out(`\nprofiles kept in ${dir}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
