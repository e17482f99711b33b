import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { Client } from 'pg';
import { startOtlpReceiver } from '@holdfast/test-kit';

import { baselineNodeFlags, launchBaseline } from './baselines/baseline-servers';
import type { ChildServer } from './baselines/child-server.launcher';
import { runPgbench, type PgbenchResult } from './baselines/pgbench.runner';
import { runRedisBenchmark } from './baselines/redis-benchmark.runner';
import { benchDatabaseUrl, databaseName, ensureDatabase, prepareDatabase, retryWhileTooManyClients, vacuumDatabase } from './bench-database.service';
import type { BenchPlan } from './bench-plan.config';
import { benchRedisUrl, deleteKeys, redisVersion } from './bench-redis.service';
import type {
  BenchMeta,
  BenchReport,
  ConcurrencyPoint,
  ConfirmPathReport,
  ConfirmRound,
  ConfirmWarmUp,
  CpuByProcess,
  GrowthReport,
  HttpCreateResult,
  HoldPathReport,
  HoldRound,
  HoldWarmUp,
  PathSummary,
  Section,
  Skipped,
} from './bench-report.types';
import { isSkipped } from './bench-report.types';
import { runBatchPgbench } from './holdfast/holdfast-confirm-batch.bench';
import { measureBest } from './holdfast/holdfast-best.bench';
import {
  hasConfirmEndpoint, measureConfirms, measureInProcessConfirms, sampleLockWaits, type ConfirmRun, type LockWaits,
} from './holdfast/holdfast-confirms.bench';
import { measureNumbering } from './holdfast/holdfast-numbering.bench';
import { loadHolds, measureGrowth, measureMemoryPerHeldSeat, SeatCursor, type GrowthEvent } from './holdfast/holdfast-holds.bench';
import { API_EVENT_LOOP_ENV, API_EVENT_LOOP_SIGNAL } from './holdfast/api-event-loop.monitor';
import { clusterSection } from './holdfast/holdfast-cluster.bench';
import { persistSection } from './holdfast/holdfast-persist.bench';
import { queueSection } from './holdfast/holdfast-queue.bench';
import { soakSection } from './holdfast/holdfast-soak.bench';
import { instrumentSection } from './load-instrument.bench';
import { webhookCostSection } from './holdfast/holdfast-webhooks.bench';
import { findPostmasterPid, findRedisPid, withMachineCpu, type MachineCpuPerRequest } from './machine-cpu.probe';
import { holdfastDatabaseUrl, holdfastRedisUrl, openHoldfastFixture, type BenchEvent, type HoldfastFixture } from './holdfast/holdfast.fixture';
import { startNodeFlags } from './holdfast/start-node-flags';
import { runHttpLoad, type HttpLoadResult } from './http-load.generator';
import { round3 } from './latency.histogram';
import { runRaceLab, skippedResult, type RaceLabReport, type StrategyResult } from './race-lab.runner';
import {
  optimisticVersionStrategy,
  readThenWriteStrategy,
  selectForUpdateStrategy,
  skipLockedStrategy,
} from './strategies';
import { holdfastHoldConfirmStrategy } from './strategies/holdfast-hold-confirm.strategy';
import { cpuPerRequest, warmUpRounds } from './warm-up.rounds';

const execFileAsync = promisify(execFile);

/** Events larger than this are split (creating one through the domain takes seconds per 100,000 seats). */
const MAX_EVENT_SEATS = 100_000;

const NO_CONFIRM = "this build of holdfast's API has no POST /v1/holds/{id}/confirm yet";

interface RunBenchOptions {
  plan: BenchPlan;
  sections: Section[];
  /** Extra node flags for the holdfast API child, e.g. `--cpu-prof`. */
  apiNodeArgs?: string[];
  /** The API child reports its event-loop delay and GC pauses over each holdfast hold round (`--api-event-loop`). */
  apiEventLoop?: boolean;
  /** `on`: the API child exports traces to a loopback OTLP receiver that discards them (`--tracing`). */
  tracing?: 'off' | 'on';
  /** Progress lines (stderr in the CLI). */
  log(line: string): void;
}

/** holdfast's side of a run: its fixture and its API child, opened on first use. */
class HoldfastSession {
  private opened: Promise<{ fixture: HoldfastFixture; api: ChildServer }> | null = null;
  private confirm: Promise<boolean> | null = null;

  readonly logFile = path.join(os.tmpdir(), `holdfast-bench-api-${process.pid}.log`);

  constructor(
    private readonly log: (line: string) => void,
    private readonly nodeArgs: string[] | undefined,
    private readonly apiEnv: Record<string, string> = {},
  ) {}

  get(): Promise<{ fixture: HoldfastFixture; api: ChildServer }> {
    this.opened ??= (async () => {
      this.log('holdfast: migrating the bench database and starting the API (child process, port 0)');
      const fixture = await retryWhileTooManyClients(() => openHoldfastFixture());
      try {
        const api = await fixture.startApi({ nodeArgs: this.nodeArgs, logFile: this.logFile, env: this.apiEnv });
        this.log(`holdfast: API log (pino JSON) in ${this.logFile}`);
        return { fixture, api };
      } catch (error) {
        await fixture.close();
        throw error;
      }
    })();
    return this.opened;
  }

  /** Whether the API under test can confirm (probed once over HTTP). */
  canConfirm(): Promise<boolean> {
    this.confirm ??= this.get().then(({ fixture, api }) => hasConfirmEndpoint(api, fixture));
    return this.confirm;
  }

  async close(): Promise<void> {
    if (!this.opened) return;
    const { fixture, api } = await this.opened;
    await api.stop();
    await fixture.close();
  }
}

export async function runBench(options: RunBenchOptions): Promise<BenchReport> {
  const { plan, log } = options;
  const started = new Date();
  const databaseUrl = benchDatabaseUrl();
  const redisUrl = benchRedisUrl();
  await retryWhileTooManyClients(() => ensureDatabase(databaseUrl));
  const meta: BenchMeta = {
    mode: plan.mode,
    startedAt: started.toISOString(),
    finishedAt: '',
    durationSec: 0,
    gitCommit: await gitCommit(),
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    loadAverageAtStart: loadAverage(),
    loadAverageAtEnd: [],
    postgres: await postgresVersion(databaseUrl),
    redis: await redisVersion(redisUrl),
    databaseUrl: redactUrl(databaseUrl),
    redisUrl: redactUrl(redisUrl),
    holdfastRedisUrl: redactUrl(holdfastRedisUrl()),
    tracing: { on: options.tracing === 'on', exportRequests: 0 },
  };
  // Tracing on: the API exports every span, as to a collector, to a receiver here that reads and discards them.
  const receiver = options.tracing === 'on' ? await startOtlpReceiver({ keep: false }) : null;
  if (receiver) log(`the API exports its spans to ${receiver.endpoint} (OTLP/HTTP, protobuf; read and discarded)`);
  const holdfast = new HoldfastSession(log, options.apiNodeArgs, {
    ...(receiver ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint } : {}),
    ...(options.apiEventLoop ? { [API_EVENT_LOOP_ENV]: '1' } : {}),
  });
  const report: BenchReport = { meta, plan, raceLab: null, holdPath: null, growth: null, confirmPath: null, best: null };
  /** Before each part: each database is made if missing and the dead rows of what ran before are vacuumed away (vacuumDatabase says why). */
  const part = async (name: Section): Promise<boolean> => {
    if (!options.sections.includes(name)) return false;
    for (const url of new Set([databaseUrl, holdfastDatabaseUrl()])) {
      const seconds = await prepareDatabase(url);
      log(`${name}: vacuumed ${databaseName(url)} first (${seconds.toFixed(1)} s)`);
    }
    return true;
  };
  try {
    if (await part('race')) report.raceLab = await raceSection(plan, databaseUrl, holdfast, log);
    if (await part('hold')) report.holdPath = await holdSection(plan, redisUrl, holdfast, log, options.apiEventLoop ?? false);
    if (await part('growth')) report.growth = await growthSection(plan, holdfast, log);
    if (await part('confirm')) report.confirmPath = await confirmSection(plan, databaseUrl, holdfast, log);
    if (await part('best')) {
      const { fixture, api } = await holdfast.get();
      report.best = await measureBest(api, fixture, plan.best, log);
    }
    if (await part('cluster')) {
      report.clusterScale = await clusterSection({ databaseUrl: holdfastDatabaseUrl(), redisUrl: holdfastRedisUrl(), ...plan.cluster }, log);
    }
    if (await part('persist')) {
      const { fixture } = await holdfast.get();
      report.persist = await persistSection(fixture, plan.persist, log);
    }
    if (await part('soak')) {
      const { fixture, api } = await holdfast.get();
      report.soak = await soakSection(fixture, api, plan.soak, log);
    }
    if (await part('instrument')) {
      const { fixture, api } = await holdfast.get();
      report.instrument = await instrumentSection(fixture, api, redisUrl, plan.instrument, log);
    }
    if (await part('webhooks')) {
      const { fixture, api } = await holdfast.get();
      report.webhooks = await webhookCostSection(api, fixture, plan.webhooks, log);
    }
    if (await part('queue')) {
      const { fixture, api } = await holdfast.get();
      report.queue = await queueSection(fixture, api, redisUrl, plan.queue, log);
    }
  } finally {
    await holdfast.close();
    if (receiver) {
      meta.tracing = { on: true, exportRequests: receiver.requests };
      await receiver.close();
    }
  }
  const finished = new Date();
  meta.finishedAt = finished.toISOString();
  meta.durationSec = Math.round((finished.getTime() - started.getTime()) / 100) / 10;
  meta.loadAverageAtEnd = loadAverage();
  return report;
}

/**
 * The race lab: one sale each of the unlocked counter, FOR UPDATE and the optimistic counter, then
 * `pairs` interleaved pairs of SKIP LOCKED and holdfast sales (race-lab.runner.ts, runPairs), each
 * on fresh tables or a fresh event, after both have warmed up. Before every measured sale both
 * databases are vacuumed: holdfast's sales leave their dropped orders, holds and payments as dead
 * rows, the SQL strategies dropped tables in the catalog, and with autovacuum off (as on this
 * project's machines) each round would otherwise start from more of them than the one before.
 * Every sale's CPU is read in each process it used: holdfast's API, Redis, PostgreSQL (its shared
 * processes and the sessions on holdfast's database), the bench; for the SQL strategies PostgreSQL
 * (the shared processes and the lab's sessions, on the bench database) and the bench.
 */
async function raceSection(
  plan: BenchPlan,
  databaseUrl: string,
  holdfast: HoldfastSession,
  log: (line: string) => void,
): Promise<RaceLabReport> {
  const { optimisticAttempts, pairs, ...sale } = plan.raceLab;
  log(`race lab: ${sale.buyers} buyers, ${sale.tickets} tickets, ${sale.concurrency} concurrent clients; then ${pairs} interleaved pairs of SKIP LOCKED and holdfast sales`);
  const canConfirm = await holdfast.canConfirm();
  const session = canConfirm ? await holdfast.get() : null;
  const own = session ? holdfastHoldConfirmStrategy(session) : null;
  const postmasterPid = await findPostmasterPid();
  const holdfastRedisPid = session ? await findRedisPid(holdfastRedisUrl()) : null;
  const holdfastDatabase = databaseName(holdfastDatabaseUrl());
  const labDatabase = databaseName(databaseUrl);
  const lab = await runRaceLab({
    databaseUrl,
    schema: 'bench_race_lab',
    sale,
    // Without holdfast there is nothing to pair SKIP LOCKED with: one sale of it, as of the others.
    strategies: [readThenWriteStrategy(), selectForUpdateStrategy(), optimisticVersionStrategy({ maxAttempts: optimisticAttempts }), ...(own ? [] : [skipLockedStrategy()])],
    paired: own ? { baseline: skipLockedStrategy(), contender: own, pairs } : null,
    processesOf: (strategy) =>
      strategy === own && session
        ? { serverPid: session.api.pid, redisPid: holdfastRedisPid, postmasterPid, postgresDatabases: [holdfastDatabase] }
        : { serverPid: null, redisPid: null, postmasterPid, postgresDatabases: [labDatabase] },
    beforeSale: async () => {
      for (const url of new Set([databaseUrl, holdfastDatabaseUrl()])) await vacuumDatabase(url);
    },
    onResult: (result: StrategyResult, round?: number) =>
      log(`  ${round ? `pair ${round}, ` : ''}${result.id}: sold ${result.sold}, oversold ${result.oversold}, ${Math.round(result.purchasesPerSec)} purchases/s` +
        (result.cpuPerBuyer?.machine != null ? `, machine ${result.cpuPerBuyer.machine} ms CPU a buyer` : '')),
    log,
  });
  if (!canConfirm) {
    lab.results.push(skippedResult({ id: 'holdfast', title: 'holdfast: Redis hold, then fenced confirm', fenced: true }, sale, NO_CONFIRM));
  }
  if (lab.pairs) {
    const { median, min, max } = lab.pairs.ratio;
    log(`  holdfast ÷ SKIP LOCKED, purchases/s: median ${median ?? '?'} of ${lab.pairs.rounds.length} pairs (${min ?? '?'}–${max ?? '?'})`);
  }
  return lab;
}

async function holdSection(
  plan: BenchPlan,
  redisUrl: string,
  holdfast: HoldfastSession,
  log: (line: string) => void,
  eventLoop = false,
): Promise<HoldPathReport> {
  const { concurrency, rounds, requests, warmupRequests, maxDurationMs, multiSeatHold } = plan.holdPath;
  const { fixture, api } = await holdfast.get();
  const sweep = plan.holdPath.byConcurrency;
  // And one more: the warm-up's first hold on the event (holdWarmUp).
  const seats = rounds * (requests + warmupRequests) + sweep.levels.length * (sweep.requests + sweep.warmupRequests) + 1;
  log(`hold path: creating a ${seats}-seat event for holdfast, and ${seats * multiSeatHold} seats for its ${multiSeatHold}-seat holds`);
  const event = await fixture.createEvent({ name: 'bench hold path', seats });
  const cursor = new SeatCursor(event, fixture, 'hold-path');
  const multiEvents = await createEvents(fixture, `bench hold path, ${multiSeatHold} seats a hold`, seats * multiSeatHold);
  const multiCursor = new SeatCursor(multiEvents, fixture, 'hold-path-multi', multiSeatHold);
  const prefix = `bench:min:${process.pid}:`;
  const barePrefix = `bench:bare:${process.pid}:`;
  // Every baseline runs with holdfast's API's node flags (baseline-servers.ts).
  const express = await launchBaseline('express', { BENCH_REDIS_URL: redisUrl, BENCH_KEY_PREFIX: prefix });
  const bare = await launchBaseline('bareNode', { BENCH_REDIS_URL: redisUrl, BENCH_KEY_PREFIX: barePrefix }).catch(async (error: unknown) => {
    await express.stop();
    throw error;
  });
  const results: HoldRound[] = [];
  const byConcurrency: ConcurrencyPoint[] = [];
  // Each run's CPU per request in every process it uses (the server, Redis, PostgreSQL, this client),
  // over its warm-up and measured requests alike.
  // The baselines use the bench's Redis, holdfast its own (the same server unless told otherwise).
  const postmasterPid = await findPostmasterPid();
  const redisPids = { baselines: await findRedisPid(redisUrl), holdfast: await findRedisPid(holdfastRedisUrl()) };
  const onMachine = (serverPid: number, work: () => Promise<HttpLoadResult>) =>
    withMachineCpu(
      { serverPid, postmasterPid, postgresDatabases: [databaseName(holdfastDatabaseUrl())], redisPid: serverPid === api.pid ? redisPids.holdfast : redisPids.baselines },
      (load) => load.requests + warmupRequests,
      work,
    );
  let warmUp: HoldWarmUp;
  try {
    warmUp = await holdWarmUp(plan, { fixture, api, express, bare }, [cursor, multiCursor], log);
    for (let round = 1; round <= rounds; round += 1) {
      log(`hold path round ${round}/${rounds}: redis-benchmark, minimal Express, bare node:http, holdfast (${concurrency} concurrent clients each)`);
      const redisBenchmark = await runRedisBenchmark({ redisUrl, requests: plan.holdPath.redisBenchmarkRequests, concurrency });
      const expressRun = await onMachine(express.pid, () => runHttpLoad({
        baseUrl: express.baseUrl,
        concurrency,
        maxRequests: requests,
        maxDurationMs,
        warmupRequests,
        makeRequest: (index) => ({
          method: 'POST',
          path: '/hold',
          body: JSON.stringify({ seatId: `r${round}-seat-${index}`, customerId: `customer-${Math.floor(index / 50)}` }),
        }),
      }));
      const minimalExpress = expressRun.result;
      const bareRun = await onMachine(bare.pid, () => runHttpLoad({
        baseUrl: bare.baseUrl,
        concurrency,
        maxRequests: requests,
        maxDurationMs,
        warmupRequests,
        makeRequest: (index) => ({
          method: 'POST',
          path: '/hold',
          body: JSON.stringify({ seatId: `r${round}-seat-${index}`, customerId: `customer-${Math.floor(index / 50)}` }),
        }),
      }));
      // With --api-event-loop the API child measures from this signal to the next and prints the window.
      if (eventLoop) process.kill(api.pid, API_EVENT_LOOP_SIGNAL);
      const holdfastRun = await onMachine(api.pid, () => loadHolds(api, cursor, { concurrency, requests, warmupRequests, maxDurationMs }));
      if (eventLoop) process.kill(api.pid, API_EVENT_LOOP_SIGNAL);
      const holdfastApi = holdfastRun.result;
      const multiRun = await onMachine(api.pid, () => loadHolds(api, multiCursor, { concurrency, requests, warmupRequests, maxDurationMs }));
      const perRequest = (cpu: MachineCpuPerRequest | null) => (cpu === null ? null : round3(cpu.server));
      log(
        `  redis-benchmark ${Math.round(redisBenchmark.requestsPerSec)}/s, Express ${Math.round(minimalExpress.okPerSec)}/s ` +
          `p99 ${minimalExpress.okLatency.p99Ms} ms, bare node ${Math.round(bareRun.result.okPerSec)}/s p99 ${bareRun.result.okLatency.p99Ms} ms, holdfast ${Math.round(holdfastApi.okPerSec)}/s p99 ${holdfastApi.okLatency.p99Ms} ms, ` +
          `${multiSeatHold} seats a hold ${Math.round(multiRun.result.okPerSec)}/s p99 ${multiRun.result.okLatency.p99Ms} ms`,
      );
      results.push({
        redisBenchmark,
        minimalExpress,
        bareNode: bareRun.result,
        holdfastApi,
        holdfastMultiSeat: multiRun.result,
        expressCpuMsPerRequest: perRequest(expressRun.cpu),
        bareNodeCpuMsPerRequest: perRequest(bareRun.cpu),
        holdfastCpuMsPerRequest: perRequest(holdfastRun.cpu),
        holdfastMultiSeatCpuMsPerRequest: perRequest(multiRun.cpu),
        cpuByProcess: { minimalExpress: expressRun.cpu, bareNode: bareRun.cpu, holdfastApi: holdfastRun.cpu, holdfastMultiSeat: multiRun.cpu },
      });
    }
    for (const level of sweep.levels) {
      const point = (r: HttpLoadResult) => ({ okPerSec: r.okPerSec, p99Ms: r.okLatency.p99Ms, failed: r.failed });
      const load = (server: ChildServer, tag: string) => runHttpLoad({
        baseUrl: server.baseUrl, concurrency: level, maxRequests: sweep.requests, warmupRequests: sweep.warmupRequests, maxDurationMs,
        makeRequest: (index) => ({ method: 'POST', path: '/hold', body: JSON.stringify({ seatId: `c${level}-${tag}-${index}`, customerId: `customer-${Math.floor(index / 50)}` }) }),
      });
      const e = await load(express, 'e');
      const b = await load(bare, 'b');
      const h = await loadHolds(api, cursor, { concurrency: level, requests: sweep.requests, warmupRequests: sweep.warmupRequests, maxDurationMs });
      log(`  ${level} concurrent: p99 holdfast ${h.okLatency.p99Ms} ms, bare node ${b.okLatency.p99Ms} ms, Express ${e.okLatency.p99Ms} ms`);
      byConcurrency.push({ concurrency: level, holdfast: point(h), bareNode: point(b), minimalExpress: point(e) });
    }
  } finally {
    await express.stop();
    await bare.stop();
    await deleteKeys(redisUrl, `${prefix}*`);
    await deleteKeys(redisUrl, `${barePrefix}*`);
    await fixture.dropEvent(event.eventId);
    for (const multi of multiEvents) await fixture.dropEvent(multi.eventId);
  }
  return {
    ...summariseHoldRounds(concurrency, multiSeatHold, results),
    nodeFlags: { holdfastApi: startNodeFlags(), baselines: baselineNodeFlags() },
    warmUp,
    byConcurrency,
  };
}

/** Events of `seats` seats in all, split at MAX_EVENT_SEATS. */
async function createEvents(fixture: HoldfastFixture, name: string, seats: number): Promise<BenchEvent[]> {
  const events: BenchEvent[] = [];
  for (let left = seats; left > 0; left -= MAX_EVENT_SEATS) events.push(await fixture.createEvent({ name, seats: Math.min(left, MAX_EVENT_SEATS) }));
  return events;
}

/**
 * Warm-up rounds (at most this many per server) before the hold path's clock. Without them the
 * quick run's 3,500-request loads met the bare node:http server still warming up (0.11-0.15 ms of
 * CPU a request against 0.051 ms in the full run's 21,000-request loads), while holdfast's API had
 * the race lab's warm-up sales behind it in a full run: the quick runs flattered holdfast.
 */
const MAX_HOLD_WARM_UP_ROUNDS = 6;

/**
 * Before round 1, every HTTP server of the hold path alike (redis-benchmark is C, with nothing to
 * warm): unmeasured rounds of a measured round's size, at its concurrency, on seats and keys of
 * their own, until the server's CPU per request stops falling (warmUpRounds), first Express, then
 * the bare server, then holdfast. A holdfast round also takes as many multi-seat holds after its
 * single-seat ones, as its measured rounds do; its CPU is read on the single-seat holds, the
 * request the ratios compare. Then one hold on each event the measured rounds hold seats of: the
 * first hold of an event loads its seat catalog, which round 1 paid before (10,000 seats, and
 * 40,000 for the multi-seat holds). The warm-up's events are dropped (their outboxes drained first) and
 * their dead rows vacuumed before the clock.
 */
async function holdWarmUp(
  plan: BenchPlan,
  servers: { fixture: HoldfastFixture; api: ChildServer; express: ChildServer; bare: ChildServer },
  measured: SeatCursor[],
  log: (line: string) => void,
): Promise<HoldWarmUp> {
  const { concurrency, requests, warmupRequests, maxDurationMs, multiSeatHold } = plan.holdPath;
  const { fixture, api } = servers;
  const perRound = requests + warmupRequests;
  // A cold server may be slow: the round still sends all its requests unless this runs out.
  const load = { concurrency, maxDurationMs: maxDurationMs * 3 };
  const baseline = (name: string, server: ChildServer, tag: string) =>
    warmUpRounds(MAX_HOLD_WARM_UP_ROUNDS, async (round) => {
      const cpu = await cpuPerRequest(server.pid, () => runHttpLoad({
        baseUrl: server.baseUrl, ...load, maxRequests: perRound,
        makeRequest: (index) => ({ method: 'POST', path: '/hold', body: JSON.stringify({ seatId: `w${round}-${tag}-${index}`, customerId: `customer-${Math.floor(index / 50)}` }) }),
      }));
      log(`  warm-up ${round}, ${name}: ${perRound} requests, ${cpu ?? '?'} ms CPU/request`);
      return cpu;
    });
  log(`hold path warm-up (not measured): rounds of ${perRound} requests per server until its CPU per request stops falling (at most ${MAX_HOLD_WARM_UP_ROUNDS})`);
  const express = await baseline('minimal Express', servers.express, 'e');
  const bare = await baseline('bare node', servers.bare, 'b');
  const events: BenchEvent[] = [];
  try {
    const holdfast = await warmUpRounds(MAX_HOLD_WARM_UP_ROUNDS, async (round) => {
      const single = await createEvents(fixture, `bench hold path warm-up ${round}`, perRound);
      const multi = await createEvents(fixture, `bench hold path warm-up ${round}, ${multiSeatHold} seats a hold`, perRound * multiSeatHold);
      events.push(...single, ...multi);
      const holds = { ...load, requests: perRound, warmupRequests: 0 };
      const cpu = await cpuPerRequest(api.pid, () => loadHolds(api, new SeatCursor(single, fixture, `hold-warm-${round}`), holds));
      await loadHolds(api, new SeatCursor(multi, fixture, `hold-warm-multi-${round}`, multiSeatHold), holds);
      log(`  warm-up ${round}, holdfast: ${perRound} holds (${cpu ?? '?'} ms CPU/hold), then ${perRound} holds of ${multiSeatHold} seats`);
      return cpu;
    });
    // A sale's first hold loads its event's seat catalog, once per process (event-catalog.ts): one
    // hold on each event the clock measures, one at a time (a cursor's holds visit its events in turn).
    let firstHolds = 0;
    for (const cursor of measured) {
      const first = await loadHolds(api, cursor, { concurrency: 1, requests: cursor.events.length, warmupRequests: 0, maxDurationMs });
      if (first.ok !== cursor.events.length) throw new Error(`the first holds on the measured events failed: ${first.failureSamples.join('; ')}`);
      firstHolds += first.ok;
    }
    log(`  holdfast: one hold on each of the ${firstHolds} measured events (their seat catalogs loaded)`);
    return {
      requestsPerRound: perRound,
      maxRounds: MAX_HOLD_WARM_UP_ROUNDS,
      minimalExpress: { rounds: express.length, cpuMsPerRequest: express },
      bareNode: { rounds: bare.length, cpuMsPerRequest: bare },
      holdfastApi: { rounds: holdfast.length, cpuMsPerRequest: holdfast, multiSeatHold, firstHoldsOnMeasuredEvents: firstHolds },
    };
  } finally {
    for (const event of events) await fixture.dropEvent(event.eventId);
    const seconds = await vacuumDatabase(holdfastDatabaseUrl());
    log(`  vacuumed ${databaseName(holdfastDatabaseUrl())} after the warm-up (${seconds.toFixed(1)} s)`);
  }
}

export function summariseHoldRounds(concurrency: number, multiSeatHold: number, rounds: HoldRound[]): HoldPathReport {
  const http = (pick: (round: HoldRound) => HttpLoadResult, cpu: (round: HoldRound) => number | null): PathSummary => ({
    requests: sum(rounds.map((r) => pick(r).requests)),
    failed: sum(rounds.map((r) => pick(r).failed)),
    okPerSec: median(rounds.map((r) => pick(r).okPerSec)),
    p50Ms: median(rounds.map((r) => pick(r).okLatency.p50Ms)),
    p99Ms: median(rounds.map((r) => pick(r).okLatency.p99Ms)),
    serverCpuMsPerRequest: medianOrNull(rounds.map(cpu)),
  });
  const ran = rounds.filter((r): r is HoldRound & { holdfastApi: HttpLoadResult } => !isSkipped(r.holdfastApi));
  const perRound = (f: (r: HoldRound & { holdfastApi: HttpLoadResult }) => number) => (ran.length > 0 ? round3(median(ran.map(f))) : null);
  const bared = rounds.filter((r): r is HoldRound & { bareNode: HttpLoadResult } => r.bareNode !== undefined);
  const withBare = ran.filter((r): r is HoldRound & { holdfastApi: HttpLoadResult; bareNode: HttpLoadResult } => r.bareNode !== undefined);
  const perBareRound = (f: (r: HoldRound & { holdfastApi: HttpLoadResult; bareNode: HttpLoadResult }) => number | null) =>
    medianOrNull(withBare.map(f));
  const multi = rounds.filter((r): r is HoldRound & { holdfastMultiSeat: HttpLoadResult } => r.holdfastMultiSeat !== undefined);
  const measuredCpu = rounds.filter((r) => r.cpuByProcess !== undefined);
  const cpuOf = (server: keyof CpuByProcess<unknown>): MachineCpuPerRequest | null => {
    const runs = measuredCpu.map((r) => r.cpuByProcess![server]).filter((c): c is MachineCpuPerRequest => c !== null);
    if (runs.length === 0) return null;
    const field = (f: (c: MachineCpuPerRequest) => number | null) => {
      const m = medianOrNull(runs.map(f));
      return m === null ? null : Math.round(m * 10_000) / 10_000;
    };
    return {
      server: field((c) => c.server)!,
      redis: field((c) => c.redis),
      postgres: field((c) => c.postgres),
      client: field((c) => c.client)!,
      machine: field((c) => c.machine),
    };
  };
  const perMultiRound = (f: (r: HoldRound & { holdfastMultiSeat: HttpLoadResult }) => number) => (multi.length > 0 ? round3(median(multi.map(f))) : null);
  return {
    concurrency,
    rounds,
    redisBenchmark: {
      requests: sum(rounds.map((r) => r.redisBenchmark.requests)),
      failed: 0,
      okPerSec: median(rounds.map((r) => r.redisBenchmark.requestsPerSec)),
      p50Ms: median(rounds.map((r) => r.redisBenchmark.p50Ms)),
      p99Ms: median(rounds.map((r) => r.redisBenchmark.p99Ms)),
      serverCpuMsPerRequest: null,
    },
    minimalExpress: http((r) => r.minimalExpress, (r) => r.expressCpuMsPerRequest),
    bareNode: bared.length > 0 ? http((r) => r.bareNode as HttpLoadResult, (r) => r.bareNodeCpuMsPerRequest ?? null) : null,
    holdfastApi:
      ran.length > 0
        ? http((r) => r.holdfastApi as HttpLoadResult, (r) => r.holdfastCpuMsPerRequest)
        : { skipped: (rounds[0]?.holdfastApi as Skipped)?.skipped ?? 'not run' },
    multiSeatHold: multi.length > 0 ? multiSeatHold : null,
    ...(measuredCpu.length > 0
      ? { cpuByProcess: { minimalExpress: cpuOf('minimalExpress'), bareNode: cpuOf('bareNode'), holdfastApi: cpuOf('holdfastApi'), holdfastMultiSeat: cpuOf('holdfastMultiSeat') } }
      : {}),
    holdfastMultiSeat: multi.length > 0 ? http((r) => r.holdfastMultiSeat as HttpLoadResult, (r) => r.holdfastMultiSeatCpuMsPerRequest ?? null) : null,
    ratios: {
      holdfastVsBareNodeThroughput: perBareRound((r) => round3(r.holdfastApi.okPerSec / r.bareNode.okPerSec)),
      holdfastVsBareNodeP99: perBareRound((r) => round3(r.holdfastApi.okLatency.p99Ms / r.bareNode.okLatency.p99Ms)),
      holdfastVsBareNodeCpuPerRequest: perBareRound((r) =>
        r.holdfastCpuMsPerRequest !== null && r.bareNodeCpuMsPerRequest ? round3(r.holdfastCpuMsPerRequest / r.bareNodeCpuMsPerRequest) : null),
      holdfastVsBareNodeMachineCpuPerRequest: perBareRound((r) => {
        const h = r.cpuByProcess?.holdfastApi?.machine;
        const b = r.cpuByProcess?.bareNode?.machine;
        return h != null && b ? round3(h / b) : null;
      }),
      holdfastVsExpressThroughput: perRound((r) => r.holdfastApi.okPerSec / r.minimalExpress.okPerSec),
      holdfastVsExpressP99: perRound((r) => r.holdfastApi.okLatency.p99Ms / r.minimalExpress.okLatency.p99Ms),
      holdfastVsRedisBenchmarkThroughput: perRound((r) => r.holdfastApi.okPerSec / r.redisBenchmark.requestsPerSec),
      expressVsRedisBenchmarkThroughput:
        rounds.length > 0 ? round3(median(rounds.map((r) => r.minimalExpress.okPerSec / r.redisBenchmark.requestsPerSec))) : null,
      holdfastVsExpressCpuPerRequest: medianOrNull(
        ran.map((r) => (r.holdfastCpuMsPerRequest !== null && r.expressCpuMsPerRequest ? r.holdfastCpuMsPerRequest / r.expressCpuMsPerRequest : null)),
      ),
      multiSeatVsExpressThroughput: perMultiRound((r) => r.holdfastMultiSeat.okPerSec / r.minimalExpress.okPerSec),
      multiSeatVsExpressP99: perMultiRound((r) => r.holdfastMultiSeat.okLatency.p99Ms / r.minimalExpress.okLatency.p99Ms),
    },
  };
}

async function growthSection(plan: BenchPlan, holdfast: HoldfastSession, log: (line: string) => void): Promise<GrowthReport> {
  const { fixture, api } = await holdfast.get();
  const growth = plan.growth;
  const events: GrowthEvent[] = [];
  const warmEvents: BenchEvent[] = [];
  let listedBodyBytes = 0; // the body of the largest size's first event
  try {
    for (const seats of growth.seatCounts) {
      // Enough events of this size for all the holds (holds only take free seats).
      const count = Math.max(1, Math.ceil((growth.holds + growth.warmupHolds + 1) / Math.floor(seats * 0.9)));
      log(`growth: creating ${count === 1 ? 'an event' : `${count} events`} of ${seats} seats`);
      const group: GrowthEvent = { events: [], createSec: 0 };
      for (let i = 0; i < count; i += 1) {
        // Through the API, as a user creates an event: its seats listed in the body.
        const event = await fixture.createEventOverHttp(api.baseUrl, { name: `bench growth ${seats} #${i + 1}`, seats, as: 'seats' });
        group.events.push(event);
        if (i === 0) [group.createSec, listedBodyBytes] = [round3(event.createMs / 1000), event.bodyBytes];
      }
      events.push(group);
    }
    // The largest size once more, its seats given as a layout (sections × rows × seats per row), then dropped.
    let httpCreate: HttpCreateResult | null = null;
    const largestGroup = events[events.length - 1];
    const largestSize = growth.seatCounts[growth.seatCounts.length - 1];
    if (largestGroup && largestSize) {
      log(`growth: creating an event of ${largestSize} seats through the API as a layout`);
      const laidOut = await fixture.createEventOverHttp(api.baseUrl, { name: `bench growth ${largestSize} layout`, seats: largestSize, as: 'layout' });
      await fixture.dropEvent(laidOut.eventId);
      httpCreate = {
        seats: largestSize,
        asList: { sec: largestGroup.createSec, bodyBytes: listedBodyBytes },
        asLayout: { sec: round3(laidOut.createMs / 1000), bodyBytes: laidOut.bodyBytes },
      };
      log(`  ${largestSize} seats through HTTP: ${httpCreate.asList.sec} s listed (${httpCreate.asList.bodyBytes} bytes), ${httpCreate.asLayout.sec} s as a layout (${httpCreate.asLayout.bodyBytes} bytes)`);
    }
    // Warm as the hold path's servers are: with --only growth the API is fresh, and its first
    // loads ran at half the holds a second of its later ones.
    const perRound = Math.floor(growth.holds / growth.rounds);
    log(`growth warm-up (not measured): rounds of ${perRound} holds until the API's CPU per hold stops falling (at most ${MAX_HOLD_WARM_UP_ROUNDS})`);
    const warmCpu = await warmUpRounds(MAX_HOLD_WARM_UP_ROUNDS, async (round) => {
      const warm = await createEvents(fixture, `bench growth warm-up ${round}`, perRound);
      warmEvents.push(...warm);
      const holds = { concurrency: growth.concurrency, requests: perRound, warmupRequests: 0, maxDurationMs: growth.maxDurationMs * 3 };
      const cpu = await cpuPerRequest(api.pid, () => loadHolds(api, new SeatCursor(warm, fixture, `growth-warm-${round}`), holds));
      log(`  warm-up ${round}: ${perRound} holds (${cpu ?? '?'} ms CPU/hold)`);
      return cpu;
    });
    for (const event of warmEvents.splice(0)) await fixture.dropEvent(event.eventId);
    const warmUp = { requestsPerRound: perRound, rounds: warmCpu.length, cpuMsPerRequest: warmCpu };
    const { rows, cursors } = await measureGrowth(api, fixture, events, growth, log);
    for (const row of rows) {
      log(`  ${row.seats} seats: first hold ${row.firstHoldMs} ms, seat map p50 ${row.seatMap.okLatency.p50Ms} ms (${row.seatMap.bytes} bytes)`);
    }
    let memory: GrowthReport['memory'] = { skipped: `the largest event has fewer than ${growth.memoryHolds} seats left` };
    const largest = cursors.reduce<SeatCursor | undefined>((best, c) => (!best || c.remaining > best.remaining ? c : best), undefined);
    if (largest && largest.remaining >= growth.memoryHolds) {
      log(`growth: Redis memory while holding ${growth.memoryHolds} more seats`);
      memory = await measureMemoryPerHeldSeat(api, fixture, largest, {
        concurrency: growth.concurrency,
        requests: growth.memoryHolds,
        warmupRequests: 0,
        maxDurationMs: growth.maxDurationMs * 4,
      });
      log(`  ${memory.bytesPerHeldSeat} bytes per held seat`);
    }
    return {
      rows,
      httpCreate,
      warmUp,
      memory,
      p50Spread: spread(rows.map((r) => r.holds.p50Ms)),
      p99Spread: spread(rows.map((r) => r.holds.p99Ms)),
    };
  } finally {
    for (const event of warmEvents) await fixture.dropEvent(event.eventId);
    for (const group of events) for (const event of group.events) await fixture.dropEvent(event.eventId);
  }
}

async function confirmSection(
  plan: BenchPlan,
  databaseUrl: string,
  holdfast: HoldfastSession,
  log: (line: string) => void,
): Promise<ConfirmPathReport> {
  const { concurrency, rounds, confirmsPerRound, maxDurationMs, buyersPerEvent, numberingClients } = plan.confirmPath;
  const canConfirm = await holdfast.canConfirm();
  const session = await holdfast.get();
  const warmUp = await confirmWarmUp(plan, databaseUrl, session, canConfirm, log);
  const results: ConfirmRound[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    log(`confirm path round ${round}/${rounds}: pgbench -c ${concurrency} -t ${Math.ceil(confirmsPerRound / concurrency)}, then ${confirmsPerRound} holdfast confirms`);
    const pgbench = await retryWhileTooManyClients(
      () =>
        runPgbench({
          databaseUrl,
          schema: 'bench_pgbench',
          clients: concurrency,
          transactionsPerClient: Math.ceil(confirmsPerRound / concurrency),
        }),
      90_000,
      () => log('  PostgreSQL has no free connection slot (shared server); waiting'),
    );
    const holdfastApi: ConfirmRun | Skipped = canConfirm
      ? await measureConfirms(session.api, session.fixture, { concurrency, holds: confirmsPerRound, maxDurationMs }, `round-${round}`)
      : { skipped: NO_CONFIRM };
    log(
      `  pgbench ${Math.round(pgbench.tps)} tps p99 ${pgbench.latency.p99Ms} ms` +
        (isSkipped(holdfastApi) ? '' : `, holdfast ${Math.round(holdfastApi.confirms.okPerSec)}/s p99 ${holdfastApi.confirms.okLatency.p99Ms} ms`),
    );
    const batch = await confirmBatchBaseline(databaseUrl, concurrency, confirmsPerRound, holdfastApi, log);
    results.push({ pgbench, holdfastApi, ...(batch ? { pgbenchBatch: batch.result, pgbenchBatchLockWaits: batch.lockWaits } : {}) });
  }
  let byBuyers: ConfirmRun[] | Skipped = { skipped: NO_CONFIRM };
  if (canConfirm) {
    byBuyers = [];
    for (const buyers of buyersPerEvent) {
      log(`confirm throughput: ${buyers} buyers in one event`);
      const run = await measureConfirms(session.api, session.fixture, { concurrency, holds: buyers, maxDurationMs: maxDurationMs * 3 }, `buyers-${buyers}`);
      log(`  ${Math.round(run.confirms.okPerSec)} confirms/s, p99 ${run.confirms.okLatency.p99Ms} ms`);
      byBuyers.push(run);
    }
  }
  log(`confirm path: ${confirmsPerRound} confirms through confirmHold in the bench process (no HTTP)`);
  const inProcess = await measureInProcessConfirms(session.fixture, { concurrency, holds: confirmsPerRound });
  log(`  ${Math.round(inProcess.okPerSec)} confirms/s, p99 ${inProcess.latency.p99Ms} ms, lock waits mean ${inProcess.lockWaits?.mean ?? '?'}`);
  log(`confirm path: order numbering, per-year row against a sequence (pgbench on holdfast's tables)`);
  const numbering = await retryWhileTooManyClients(
    () => measureNumbering(session.fixture, { clients: numberingClients, transactionsPerClient: Math.ceil(confirmsPerRound / concurrency) }, log),
    90_000,
    () => log('  PostgreSQL has no free connection slot (shared server); waiting'),
  );
  const ran = results.filter((r): r is ConfirmRound & { holdfastApi: ConfirmRun } => !isSkipped(r.holdfastApi));
  return {
    concurrency,
    rounds: results,
    pgbench: {
      requests: sum(results.map((r) => r.pgbench.transactions)),
      failed: sum(results.map((r) => r.pgbench.failed)),
      okPerSec: median(results.map((r) => r.pgbench.tps)),
      p50Ms: median(results.map((r) => r.pgbench.latency.p50Ms)),
      p99Ms: median(results.map((r) => r.pgbench.latency.p99Ms)),
      serverCpuMsPerRequest: null,
    },
    holdfastApi:
      ran.length > 0
        ? {
            requests: sum(ran.map((r) => r.holdfastApi.confirms.requests)),
            failed: sum(ran.map((r) => r.holdfastApi.confirms.failed)),
            okPerSec: median(ran.map((r) => r.holdfastApi.confirms.okPerSec)),
            p50Ms: median(ran.map((r) => r.holdfastApi.confirms.okLatency.p50Ms)),
            p99Ms: median(ran.map((r) => r.holdfastApi.confirms.okLatency.p99Ms)),
            serverCpuMsPerRequest: medianOrNull(ran.map((r) => r.holdfastApi.apiCpuMsPerConfirm)),
          }
        : { skipped: NO_CONFIRM },
    holdfastVsPgbench: ran.length > 0 ? round3(median(ran.map((r) => r.holdfastApi.confirms.okPerSec / r.pgbench.tps))) : null,
    warmUp,
    byBuyers,
    inProcess,
    numbering,
  };
}

/**
 * pgbench shaped like the batches holdfast made in this round (issue 12); none when it made none.
 * Its database's lock waits are sampled while it runs, as holdfast's are while its confirms run:
 * the sampler's query (every LOCK_WAIT_SAMPLE_MS, on the same PostgreSQL) costs both sides alike.
 */
async function confirmBatchBaseline(
  databaseUrl: string, concurrency: number, confirms: number, run: ConfirmRun | Skipped, log: (line: string) => void,
): Promise<{ result: PgbenchResult; lockWaits: LockWaits | null } | null> {
  if (isSkipped(run) || !run.batches?.batches) return null;
  const stopSampling = await sampleLockWaits(databaseUrl);
  let result: PgbenchResult;
  try {
    result = await runBatchPgbench({ databaseUrl, concurrency, confirms, perTransaction: run.batches.meanSize, log });
  } catch (error) {
    await stopSampling();
    throw error;
  }
  const lockWaits = await stopSampling();
  log(`  pgbench batches of ${result.confirmsPerTransaction} (${result.clients} clients): ${Math.round(result.confirmsPerSec)} confirms/s, p99 ${result.latency.p99Ms} ms; holdfast's batches: ${run.batches.batches}, mean ${run.batches.meanSize}`);
  return { result, lockWaits };
}

/**
 * Warm-up confirm rounds (at most this many) before the clock: they go on until the API's CPU
 * per confirm has settled (warmUpSettled, as the race lab's warm-up sales). The API process was
 * started a moment ago: its confirm path not yet compiled by V8, its pool's connections not yet
 * opened, the confirm function not yet planned on them. Without it the quick run's rounds read
 * the API's CPU per confirm at 0.63-0.73 ms and the full run's round 1 at 0.49 ms against 0.26 ms
 * by round 3, and each new connection's first batches took 16-39 ms instead of 1-5 ms.
 */
const MAX_CONFIRM_WARM_UP_ROUNDS = 5;

/**
 * Before round 1, both sides alike: holdfast confirms on throwaway events through the API
 * (MAX_CONFIRM_WARM_UP_ROUNDS), then pgbench runs its batch script once at the size those
 * batches had. Neither is measured; pgbench opens new connections in every run anyway.
 */
async function confirmWarmUp(
  plan: BenchPlan, databaseUrl: string, session: { fixture: HoldfastFixture; api: ChildServer }, canConfirm: boolean, log: (line: string) => void,
): Promise<ConfirmWarmUp | null> {
  const { concurrency, warmUpConfirms, maxDurationMs } = plan.confirmPath;
  if (!canConfirm || warmUpConfirms <= 0) return null;
  // Set in the rounds' callback (a `: ConfirmRun | null` annotation would leave it narrowed to null after it).
  let last = null as ConfirmRun | null;
  const cpu = await warmUpRounds(MAX_CONFIRM_WARM_UP_ROUNDS, async (round) => {
    last = await measureConfirms(session.api, session.fixture, { concurrency, holds: warmUpConfirms, maxDurationMs }, `warm-up-${round}`);
    log(`  warm-up ${round}: ${warmUpConfirms} confirms, ${Math.round(last.confirms.okPerSec)}/s, API CPU ${last.apiCpuMsPerConfirm ?? '?'} ms/confirm`);
    return last.apiCpuMsPerConfirm;
  });
  // The warm-up's events were dropped: their dead rows are vacuumed away before the clock, as
  // before every part (vacuumDatabase says why); pgbench's tables are made anew for each run.
  const seconds = await vacuumDatabase(holdfastDatabaseUrl());
  log(`  vacuumed ${databaseName(holdfastDatabaseUrl())} after the warm-up (${seconds.toFixed(1)} s)`);
  let pgbenchBatchRuns = 0;
  if (last?.batches?.batches) {
    const result = await runBatchPgbench({ databaseUrl, concurrency, confirms: warmUpConfirms, perTransaction: last.batches.meanSize, log });
    pgbenchBatchRuns = 1;
    log(`  warm-up pgbench batches of ${result.confirmsPerTransaction}: ${Math.round(result.confirmsPerSec)} confirms/s (not measured)`);
  }
  return { rounds: cpu.length, confirms: warmUpConfirms, apiCpuMsPerConfirm: cpu, pgbenchBatchRuns };
}

function medianOrNull(values: Array<number | null>): number | null {
  const present = values.filter((value): value is number => value !== null);
  return present.length > 0 ? median(present) : null;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  return round3(value);
}

/**
 * The largest relative deviation from the first value (the smallest event):
 * max |v − v₀| / v₀, e.g. 0.15 when every size is within ±15 % of the smallest.
 * Null with fewer than two values.
 */
export function spread(values: number[]): number | null {
  const [first, ...rest] = values;
  if (first === undefined || rest.length === 0 || first <= 0) return null;
  return round3(Math.max(...rest.map((value) => Math.abs(value - first) / first)));
}

function loadAverage(): number[] {
  return os.loadavg().map((value) => Math.round(value * 100) / 100);
}

async function gitCommit(): Promise<string | null> {
  try {
    const { stdout } = await execFileAsync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname });
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

async function postgresVersion(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ server_version: string }>('SHOW server_version');
    return result.rows[0]?.server_version ?? 'unknown';
  } finally {
    await client.end();
  }
}

function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
