import { createSchemaPool, dropSchema, retryWhileTooManyClients } from './bench-database.service';
import { elapsedMs, LatencyHistogram, medianOf, round3, type LatencySummary } from './latency.histogram';
import { withProcessesCpu, type MachineProcesses, type ProcessesCpuMs } from './machine-cpu.probe';
import type { ConfirmBatchesOfSale, FlashSale, LabResources, SaleClient, SaleCpuPerBuyer, SaleStrategy, WarmUpReport } from './race-lab.types';
import { warmUpSettled } from './strategies/holdfast-hold-confirm.strategy';

/**
 * Two strategies compared sale against sale: `pairs` rounds, each a sale of the
 * baseline and a sale of the contender on fresh tables or a fresh event, who
 * goes first alternating (round 1 the baseline, round 2 the contender, …: over
 * two rounds B C C B, so a machine that slows or speeds up over the minutes
 * charges both alike). One sale lasts under a second at full size: one sale
 * each read holdfast at 0.87, 0.97, 0.88, 1.01 and 1.03× SKIP LOCKED in five
 * full runs of the same commit on a quiet machine, too noisy to tell 0.95×
 * from 1.05×. So the ratio is taken per pair, and the report gives the median
 * and the spread (min, max) of the pairs' ratios.
 */
export interface PairedStrategies {
  /** The anchor (FOR UPDATE SKIP LOCKED). */
  baseline: SaleStrategy;
  /** The strategy compared with it (holdfast). */
  contender: SaleStrategy;
  pairs: number;
}

interface RaceLabOptions {
  databaseUrl: string;
  /** Schema holding the lab's tables; dropped at the end. */
  schema: string;
  sale: FlashSale;
  /** One sale each, in this order, before the pairs. */
  strategies: SaleStrategy[];
  /** Run after `strategies`, alternately, in pairs. */
  paired?: PairedStrategies | null;
  /** The processes a strategy's sales use, to read each one's CPU per buyer; null (or no function): not read. */
  processesOf?: (strategy: SaleStrategy) => MachineProcesses | null;
  /** Before every measured sale, not timed: e.g. vacuum the databases, so that every sale starts from the same state. */
  beforeSale?: () => Promise<void>;
  /** Called after each measured sale (`round` for the paired ones), e.g. to print progress. */
  onResult?: (result: StrategyResult, round?: number) => void;
  /** Progress of the warm-ups. */
  log?: (line: string) => void;
}

export interface StrategyResult {
  id: string;
  title: string;
  fenced: boolean;
  /** Null when the strategy ran; otherwise why it did not. */
  skipped: string | null;
  buyers: number;
  tickets: number;
  concurrency: number;
  /** Committed purchase rows. */
  sold: number;
  /** sold − tickets when positive. */
  oversold: number;
  /** What the strategy's own counter says was sold (lost updates show as a gap to `sold`). */
  counterSays: number | null;
  unsoldAtEnd: number;
  /** Buyers told "sold out". */
  refusedSoldOut: number;
  /** Buyers turned away after their retries ran out. */
  refusedGaveUp: number;
  /** Refused buyers who could have had one of the tickets still unsold at the end: min(refused, unsold). */
  wronglyRefused: number;
  /** Purchases that threw (deadlock, serialization failure, an HTTP error, ...): counted, not retried. */
  errors: number;
  /** Up to five distinct error messages. */
  errorSamples: string[];
  /** The strategy's own warm-up before the clock, when it has one (holdfast's API). */
  warmUp?: WarmUpReport | null;
  /** CPU per buyer in every process the sale used (null: not read); absent in older reports. */
  cpuPerBuyer?: SaleCpuPerBuyer | null;
  /** holdfast's confirm batches in the sale (null for the SQL strategies); absent in older reports. */
  confirmBatches?: ConfirmBatchesOfSale | null;
  wallMs: number;
  /** Purchase attempts completed per second (bought or refused). */
  attemptsPerSec: number;
  /** Successful purchases per second. */
  purchasesPerSec: number;
  latency: LatencySummary;
}

export interface RaceLabReport {
  sale: FlashSale;
  /**
   * One row per strategy. For the two paired strategies, the sales of the pair whose ratio is the
   * median (`pairs.medianRound`); every pair's sales are in `pairs.rounds`.
   */
  results: StrategyResult[];
  /** The paired comparison; absent (or null) when it did not run. */
  pairs?: RacePairsReport | null;
  /**
   * CPU per buyer in every process, by strategy id: the paired strategies' medians (field by field)
   * over their paired sales, the others' one sale; absent in older reports.
   */
  cpuByProcess?: Record<string, SaleCpuPerBuyer | null>;
}

/** The median and spread of per-pair ratios. */
export interface RatioSpread {
  /** Each pair's ratio, in round order (pairs without one left out). */
  values: number[];
  median: number | null;
  min: number | null;
  max: number | null;
}

export interface PairedSale {
  round: number;
  /** Which of the two ran first in this round. */
  first: 'baseline' | 'contender';
  baseline: StrategyResult;
  contender: StrategyResult;
  /** Purchases per second, contender ÷ baseline; null when the baseline sold nothing. */
  ratio: number | null;
}

/** Unmeasured sales of a strategy without a warm-up of its own, until the CPU per buyer of its processes stopped falling. */
export interface SalesWarmUp {
  sales: number;
  purchasesPerSec: number[];
  /** The sum over the processes the sale used (server, Redis, PostgreSQL, client) in each sale; null: not readable. */
  cpuMsPerBuyer: Array<number | null>;
}

export interface RacePairsReport {
  /** Strategy ids. */
  baseline: string;
  contender: string;
  rounds: PairedSale[];
  /** Purchases per second, contender ÷ baseline: every pair's, their median and spread. */
  ratio: RatioSpread;
  /** The round whose two sales stand for the paired strategies in `results` (its ratio is the median; the lower middle one for an even count). */
  medianRound: number | null;
  warmUp: { baseline: WarmUpReport | SalesWarmUp | null; contender: WarmUpReport | SalesWarmUp | null };
}

/**
 * At most this many unmeasured sales, of the measured size, for a paired strategy without a warm-up
 * of its own (SKIP LOCKED), until the CPU per buyer of its processes stops falling (warmUpSettled, at
 * least two). holdfast's API gets its warm-up sales (holdfast-hold-confirm.strategy.ts) because it
 * was started a moment ago; the SQL side gets them for the same kind of reason: the bench
 * process's pg driver code is compiled by V8 as it runs, and each PostgreSQL session fills caches
 * of its own (system catalog entries) on its first statements, as holdfast's API's sessions also
 * plan its confirm function once each. (The SQL strategies' statements are unnamed, so PostgreSQL
 * plans them at every execution, warm or not.) So the lab's sessions are opened once and kept for
 * the whole lab (the pool never closes an idle one: pg's default closed them after 10 s idle, and
 * holdfast's warm-up alone can take that long), warmed by these sales, and every measured SKIP
 * LOCKED sale runs on the same used sessions, as every holdfast sale runs on the API's long-lived
 * pool. The tables are new each sale, so each session loads their catalog entries on its first
 * statements, inside the clock: about 0.15 ms a table in a warm session here, some 30 ms of the
 * ~750 ms of PostgreSQL CPU a full-size SKIP LOCKED sale costs.
 */
const MAX_SALES_WARM_UP = 4;

export async function runRaceLab(options: RaceLabOptions): Promise<RaceLabReport> {
  const { sale, paired } = options;
  if (sale.buyers < 1 || sale.tickets < 1 || sale.concurrency < 1) throw new Error('flash sale needs buyers, tickets and concurrency ≥ 1');
  if (paired && !(paired.pairs >= 1)) throw new Error('paired strategies need pairs ≥ 1');
  // idleTimeoutMillis 0: the pool keeps its sessions between sales (MAX_SALES_WARM_UP says why).
  const pool = await createSchemaPool({ url: options.databaseUrl, schema: options.schema, max: sale.concurrency + 1, idleTimeoutMillis: 0 });
  const resources: LabResources = { pool, sale };
  const results: StrategyResult[] = [];
  const cpuByProcess: Record<string, SaleCpuPerBuyer | null> = {};
  const ownWarmUps = new Map<SaleStrategy, WarmUpReport>();
  const measured = async (strategy: SaleStrategy): Promise<StrategyResult> => {
    if (!strategy.unavailableReason?.() && strategy.warmUp && !ownWarmUps.has(strategy)) ownWarmUps.set(strategy, await strategy.warmUp(resources));
    await options.beforeSale?.();
    const result = await runStrategy(strategy, resources, options.processesOf?.(strategy) ?? null);
    return { ...result, warmUp: ownWarmUps.get(strategy) ?? null };
  };
  let pairs: RacePairsReport | null = null;
  try {
    for (const strategy of options.strategies) {
      const result = await measured(strategy);
      results.push(result);
      cpuByProcess[result.id] = result.cpuPerBuyer ?? null;
      options.onResult?.(result);
    }
    if (paired) {
      const unavailable = [paired.baseline, paired.contender].filter((s) => s.unavailableReason?.());
      if (unavailable.length > 0) {
        for (const strategy of [paired.baseline, paired.contender]) results.push(await runStrategy(strategy, resources, null));
      } else {
        pairs = await runPairs(paired, resources, options, measured, ownWarmUps);
        const middle = pairs.rounds.find((r) => r.round === pairs!.medianRound) ?? pairs.rounds[pairs.rounds.length - 1]!;
        results.push(middle.baseline, middle.contender);
        cpuByProcess[paired.baseline.id] = medianCpu(pairs.rounds.map((r) => r.baseline.cpuPerBuyer));
        cpuByProcess[paired.contender.id] = medianCpu(pairs.rounds.map((r) => r.contender.cpuPerBuyer));
      }
    }
  } finally {
    await pool.end();
    await dropSchema(options.databaseUrl, options.schema);
  }
  return { sale, results, pairs, cpuByProcess };
}

async function runPairs(
  paired: PairedStrategies,
  resources: LabResources,
  options: RaceLabOptions,
  measured: (strategy: SaleStrategy) => Promise<StrategyResult>,
  ownWarmUps: Map<SaleStrategy, WarmUpReport>,
): Promise<RacePairsReport> {
  const log = options.log ?? (() => undefined);
  // Both warm up before round 1, unmeasured: the contender (holdfast) first, by its own warm-up, then
  // the baseline, by sales of its own (MAX_SALES_WARM_UP), so that round 1 finds its sessions warm.
  const warmUp = async (strategy: SaleStrategy): Promise<WarmUpReport | SalesWarmUp> => {
    if (strategy.warmUp) {
      const own = ownWarmUps.get(strategy) ?? (await strategy.warmUp(resources));
      ownWarmUps.set(strategy, own);
      log(`  ${strategy.id} warm-up: ${own.sales} sale(s), API CPU ${own.apiCpuMsPerRequest.map((ms) => `${ms} ms`).join(', ')} a request`);
      return own;
    }
    const done: SalesWarmUp = { sales: 0, purchasesPerSec: [], cpuMsPerBuyer: [] };
    const processes = options.processesOf?.(strategy) ?? null;
    for (let i = 1; i <= MAX_SALES_WARM_UP; i += 1) {
      const sale = await runStrategy(strategy, resources, processes);
      done.sales += 1;
      done.purchasesPerSec.push(sale.purchasesPerSec);
      const cpu = sale.cpuPerBuyer ? processesSum(sale.cpuPerBuyer) : null;
      done.cpuMsPerBuyer.push(cpu);
      log(`  ${strategy.id} warm-up sale ${i}: ${Math.round(sale.purchasesPerSec)} purchases/s, ${cpu ?? '?'} ms CPU a buyer (its processes)`);
      const known = done.cpuMsPerBuyer.filter((ms): ms is number => ms !== null);
      if (known.length !== done.cpuMsPerBuyer.length || warmUpSettled(known)) break;
    }
    return done;
  };
  const contenderWarmUp = await warmUp(paired.contender);
  const baselineWarmUp = await warmUp(paired.baseline);
  const rounds: PairedSale[] = [];
  for (let round = 1; round <= paired.pairs; round += 1) {
    const first = round % 2 === 1 ? 'baseline' : 'contender';
    const order = first === 'baseline' ? [paired.baseline, paired.contender] : [paired.contender, paired.baseline];
    const sales = new Map<SaleStrategy, StrategyResult>();
    for (const strategy of order) {
      const result = await measured(strategy);
      sales.set(strategy, result);
      options.onResult?.(result, round);
    }
    const baseline = sales.get(paired.baseline)!;
    const contender = sales.get(paired.contender)!;
    rounds.push({ round, first, baseline, contender, ratio: pairRatio(baseline, contender) });
  }
  const ratios = rounds.map((r) => r.ratio);
  const middle = medianIndex(ratios);
  return {
    baseline: paired.baseline.id,
    contender: paired.contender.id,
    rounds,
    ratio: ratioSpread(ratios),
    medianRound: middle === null ? null : rounds[middle]!.round,
    warmUp: { baseline: baselineWarmUp, contender: contenderWarmUp },
  };
}

/** Purchases per second, contender ÷ baseline, in one pair; null unless both ran and the baseline sold. */
export function pairRatio(baseline: Pick<StrategyResult, 'purchasesPerSec' | 'skipped'>, contender: Pick<StrategyResult, 'purchasesPerSec' | 'skipped'>): number | null {
  if (baseline.skipped || contender.skipped || !(baseline.purchasesPerSec > 0)) return null;
  return round3(contender.purchasesPerSec / baseline.purchasesPerSec);
}

/** The median and the spread (min, max) of the pairs' ratios; the pairs without one are left out. */
export function ratioSpread(ratios: ReadonlyArray<number | null>): RatioSpread {
  const values = ratios.filter((r): r is number => r !== null);
  if (values.length === 0) return { values, median: null, min: null, max: null };
  return { values, median: round3(medianOf(values)!), min: Math.min(...values), max: Math.max(...values) };
}

/** The index of the pair whose ratio is the median (for an even count, the lower of the middle two); null when none has one. */
export function medianIndex(ratios: ReadonlyArray<number | null>): number | null {
  const ranked = ratios.flatMap((r, index) => (r === null ? [] : [{ r, index }])).sort((a, b) => a.r - b.r || a.index - b.index);
  if (ranked.length === 0) return null;
  return ranked[Math.floor((ranked.length - 1) / 2)]!.index;
}

/** Field by field, the median over sales of their CPU per buyer (sales not read left out); null when none was read. */
export function medianCpu(sales: ReadonlyArray<SaleCpuPerBuyer | null | undefined>): SaleCpuPerBuyer | null {
  const read = sales.filter((c): c is SaleCpuPerBuyer => c != null);
  if (read.length === 0) return null;
  const field = (pick: (c: SaleCpuPerBuyer) => number | null): number | null => {
    const median = medianOf(read.map(pick).filter((v): v is number => v !== null));
    return median === null ? null : round4(median);
  };
  return { server: field((c) => c.server), redis: field((c) => c.redis), postgres: field((c) => c.postgres), client: field((c) => c.client)!, machine: field((c) => c.machine) };
}

/** The CPU per buyer of the processes a sale used, summed (the machine's busy time also counts neighbours). */
export function processesSum(c: SaleCpuPerBuyer): number {
  return round4((c.server ?? 0) + (c.redis ?? 0) + (c.postgres ?? 0) + c.client);
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

function perBuyer(spent: ProcessesCpuMs, buyers: number): SaleCpuPerBuyer {
  const per = (ms: number | null) => (ms === null ? null : round4(ms / buyers));
  return { server: per(spent.server), redis: per(spent.redis), postgres: per(spent.postgres), client: per(spent.client)!, machine: per(spent.machine) };
}

async function runStrategy(strategy: SaleStrategy, resources: LabResources, processes: MachineProcesses | null): Promise<StrategyResult> {
  const { sale } = resources;
  const skipped = strategy.unavailableReason?.() ?? null;
  if (skipped) return skippedResult(strategy, sale, skipped);

  await retryWhileTooManyClients(() => strategy.prepare(resources));
  const clients: SaleClient[] = [];
  try {
    // Every connection is open before the clock starts.
    // The PostgreSQL server is shared: wait for connection slots rather than fail.
    for (let i = 0; i < sale.concurrency; i += 1) clients.push(await retryWhileTooManyClients(() => strategy.openClient(resources)));

    const histogram = new LatencyHistogram();
    const counts = { bought: 0, soldOut: 0, gaveUp: 0, errors: 0 };
    const errorSamples = new Set<string>();
    let nextBuyer = 1;
    // The clock: from the first purchase to the last answer. The CPU is read around it and the
    // strategy's settling (work the sale left to finish), outside the clock.
    const timed = async (): Promise<number> => {
      const started = process.hrtime.bigint();
      await Promise.all(
        clients.map(async (client) => {
          while (nextBuyer <= sale.buyers) {
            const buyerId = nextBuyer;
            nextBuyer += 1;
            const t0 = process.hrtime.bigint();
            try {
              const outcome = await client.purchase(buyerId);
              if (outcome.kind === 'bought') counts.bought += 1;
              else if (outcome.kind === 'sold_out') counts.soldOut += 1;
              else counts.gaveUp += 1;
            } catch (error) {
              counts.errors += 1;
              if (errorSamples.size < 5) errorSamples.add((error instanceof Error ? error.message : String(error)).slice(0, 300));
            }
            histogram.record(elapsedMs(t0));
          }
        }),
      );
      const ms = elapsedMs(started);
      await strategy.settle?.(resources);
      return ms;
    };
    let wallMs: number;
    let cpuPerBuyer: SaleCpuPerBuyer | null = null;
    if (processes) {
      const { result, spentMs } = await withProcessesCpu(processes, timed);
      wallMs = result;
      cpuPerBuyer = perBuyer(spentMs, sale.buyers);
    } else {
      wallMs = await timed();
    }

    const tally = await strategy.tally(resources);
    const confirmBatches = strategy.confirmBatches ? await strategy.confirmBatches() : null;
    const unsold = Math.max(0, sale.tickets - tally.sold);
    const refused = counts.soldOut + counts.gaveUp;
    return {
      id: strategy.id,
      title: strategy.title,
      fenced: strategy.fenced,
      skipped: null,
      buyers: sale.buyers,
      tickets: sale.tickets,
      concurrency: sale.concurrency,
      sold: tally.sold,
      oversold: Math.max(0, tally.sold - sale.tickets),
      counterSays: tally.counterSays ?? null,
      unsoldAtEnd: unsold,
      refusedSoldOut: counts.soldOut,
      refusedGaveUp: counts.gaveUp,
      wronglyRefused: Math.min(refused, unsold),
      errors: counts.errors,
      errorSamples: [...errorSamples],
      wallMs: round3(wallMs),
      attemptsPerSec: round3((sale.buyers / wallMs) * 1000),
      purchasesPerSec: round3((counts.bought / wallMs) * 1000),
      latency: histogram.summary(),
      cpuPerBuyer,
      confirmBatches,
    };
  } finally {
    for (const client of clients) await client.close();
    await strategy.cleanup(resources);
  }
}

/** The row for a strategy that could not run here, with the reason instead of numbers. */
export function skippedResult(
  strategy: Pick<SaleStrategy, 'id' | 'title' | 'fenced'>,
  sale: FlashSale,
  reason: string,
): StrategyResult {
  return {
    id: strategy.id,
    title: strategy.title,
    fenced: strategy.fenced,
    skipped: reason,
    buyers: sale.buyers,
    tickets: sale.tickets,
    concurrency: sale.concurrency,
    sold: 0,
    oversold: 0,
    counterSays: null,
    unsoldAtEnd: 0,
    refusedSoldOut: 0,
    refusedGaveUp: 0,
    wronglyRefused: 0,
    errors: 0,
    errorSamples: [],
    wallMs: 0,
    attemptsPerSec: 0,
    purchasesPerSec: 0,
    latency: new LatencyHistogram().summary(),
  };
}
