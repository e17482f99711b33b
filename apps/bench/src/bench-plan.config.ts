import type { SoakOptions } from './holdfast/holdfast-soak.bench';
import type { QueueOptions } from './holdfast/holdfast-queue.bench';
import type { InstrumentOptions } from './load-instrument.bench';
import type { WebhookCostOptions } from './holdfast/holdfast-webhooks.bench';
import type { FlashSale } from './race-lab.types';

/** How big each part of a run is; `quick` keeps every part small (docs/benchmarks.md has the run times). */
export interface BenchPlan {
  mode: 'quick' | 'full';
  /**
   * `pairs`: interleaved pairs of sales of FOR UPDATE SKIP LOCKED and holdfast (race-lab.runner.ts,
   * PairedStrategies), after one sale of each other strategy. Chosen by the spread of the per-pair
   * ratios: their standard deviation was 0.07 over five full runs of one sale each on a quiet machine, 0.18-0.22
   * in runs of 9 and 15 pairs on this 2-core machine shared at load average 3-6 (0.3-0.4 at the
   * quick size). The median of 9 pairs then has a standard error of about 0.03 quiet (0.08 busy)
   * (1.25 sd / √9), at some 2.5 s a pair: a full `--only race` took 59 s with 9 pairs, 77-87 s with 15.
   */
  raceLab: FlashSale & { optimisticAttempts: number; pairs: number };
  holdPath: {
    concurrency: number;
    /** Interleaved rounds of redis-benchmark, minimal Express and holdfast, so drifting machine load hits all three alike. */
    rounds: number;
    /** Per round and per HTTP server. */
    requests: number;
    warmupRequests: number;
    maxDurationMs: number;
    redisBenchmarkRequests: number;
    /** Seats per hold of a second holdfast path, run in the same rounds (its requests hold this many seats each). */
    multiSeatHold: number;
    /** Hold p99 against concurrency: holdfast, the bare node:http server and Express at each level, after the rounds. */
    byConcurrency: { levels: number[]; requests: number; warmupRequests: number };
  };
  growth: {
    seatCounts: number[];
    concurrency: number;
    /** Rounds that visit every event size in turn. */
    rounds: number;
    /** Holds per event size over all rounds. */
    holds: number;
    warmupHolds: number;
    maxDurationMs: number;
    seatMapRequests: number;
    /** Holds taken while reading Redis memory before and after. */
    memoryHolds: number;
  };
  /** Best available against holds by seat id, and the best-available script alone on a large tier. */
  best: {
    levels: number[];
    /** Rounds that visit every level in turn (by id, then best, at each). */
    rounds: number;
    /** Per level, per path and per round. */
    requests: number;
    warmupRequests: number;
    maxDurationMs: number;
    tierSeats: number;
    takenPcts: number[];
    quantities: number[];
    scriptCalls: number;
  };
  confirmPath: {
    /** Concurrent confirms (and pgbench clients). */
    concurrency: number;
    /** Interleaved rounds of pgbench and holdfast confirms. */
    rounds: number;
    /** Holds confirmed per round; pgbench runs the same number of transactions. */
    confirmsPerRound: number;
    /** Confirms per warm-up round before the clock (bench.runner.ts, confirmWarmUp); 0: none. */
    warmUpConfirms: number;
    maxDurationMs: number;
    /** Confirm throughput as the buyers of one event grow. */
    buyersPerEvent: number[];
    /** pgbench clients of the order-numbering comparison (per-year row against a sequence, holdfast's tables). */
    numberingClients: number[];
  };
  /** Redis Cluster and API processes (holdfast-cluster.bench.ts). */
  cluster: {
    /** GA holds through the API per setup and round. */
    holds: number;
    concurrency: number;
    rounds: number;
    /** Holds per setup and round of the hold script alone (HoldStore, no HTTP, no PostgreSQL). */
    scriptHolds: number;
  };
  /** Holds persisted per second by one PostgreSQL primary (holdfast-persist.bench.ts). */
  persist: {
    /** Holds taken (outboxes filling) then drained, per setup and round. */
    holds: number;
    concurrency: number;
    rounds: number;
  };
  /** A sale held for minutes: Redis bytes per live and per ended hold, the API's resident memory (holdfast-soak.bench.ts). */
  soak: SoakOptions;
  /** The bench's own load generator against autocannon, on the same servers (load-instrument.bench.ts). */
  instrument: InstrumentOptions;
  /** Holds and confirms with no webhook endpoint and with a receiver that never answers (holdfast-webhooks.bench.ts). */
  webhooks: WebhookCostOptions;
  /** The waiting room: buyers joining, then a flash sale through it against the same sale without it (holdfast-queue.bench.ts). */
  queue: QueueOptions;
}

/** The soak's mix as a sale had it (issue 31: 86,000 holds, 8,500 paid, the rest released or lapsed). */
const SOAK_MIX = { per20: { confirm: 1, webhook: 1, release: 8 }, holdTtlSeconds: 20, connections: 32, keySamplesPerKind: 300 };

export function benchPlan(quick: boolean): BenchPlan {
  if (quick) {
    return {
      mode: 'quick',
      raceLab: { buyers: 500, tickets: 200, concurrency: 50, priceCents: 5000, optimisticAttempts: 3, pairs: 5 },
      holdPath: { concurrency: 50, rounds: 2, requests: 2500, warmupRequests: 1000, maxDurationMs: 4000, redisBenchmarkRequests: 30_000, multiSeatHold: 4,
        byConcurrency: { levels: [10, 50, 100], requests: 800, warmupRequests: 200 } },
      growth: {
        seatCounts: [1000, 10_000, 100_000],
        concurrency: 50,
        rounds: 2,
        holds: 4000,
        warmupHolds: 200,
        maxDurationMs: 4000,
        seatMapRequests: 3,
        memoryHolds: 1000,
      },
      best: {
        levels: [1, 10, 50, 100], rounds: 2, requests: 400, warmupRequests: 40, maxDurationMs: 6000,
        tierSeats: 100_000, takenPcts: [0, 50, 99], quantities: [1, 2, 8], scriptCalls: 200,
      },
      confirmPath: { concurrency: 50, rounds: 3, confirmsPerRound: 1500, warmUpConfirms: 1000, maxDurationMs: 8000, buyersPerEvent: [50, 150, 450], numberingClients: [50] },
      cluster: { holds: 1500, concurrency: 50, rounds: 1, scriptHolds: 5000 },
      persist: { holds: 5000, concurrency: 50, rounds: 1 },
      soak: { ...SOAK_MIX, durationMs: soakMs(60_000), holdsPerSec: 150, sampleEverySec: 5 },
      instrument: { rounds: 3, requests: 2000, warmupRequests: 500, concurrency: 50 },
      webhooks: { concurrency: 50, holds: 1000, rounds: 2, maxDurationMs: 30_000 },
      queue: { buyers: 10_000, concurrency: 50, seats: 200, admitPerMinute: 300, holdTtlSeconds: 10, payPer5: 4, maxSaleMs: 180_000 },
    };
  }
  return {
    mode: 'full',
    raceLab: { buyers: 4000, tickets: 1500, concurrency: 50, priceCents: 5000, optimisticAttempts: 3, pairs: 9 },
    holdPath: { concurrency: 50, rounds: 3, requests: 20_000, warmupRequests: 1000, maxDurationMs: 15_000, redisBenchmarkRequests: 100_000, multiSeatHold: 4,
      byConcurrency: { levels: [1, 10, 50, 100, 200], requests: 3000, warmupRequests: 300 } },
    growth: {
      seatCounts: [1000, 10_000, 100_000],
      concurrency: 50,
      rounds: 4,
      holds: 16_000,
      warmupHolds: 200,
      maxDurationMs: 15_000,
      seatMapRequests: 10,
      memoryHolds: 10_000,
    },
    best: {
      levels: [1, 10, 50, 100], rounds: 3, requests: 2000, warmupRequests: 200, maxDurationMs: 20_000,
      tierSeats: 100_000, takenPcts: [0, 50, 99], quantities: [1, 2, 8], scriptCalls: 1000,
    },
    confirmPath: { concurrency: 50, rounds: 3, confirmsPerRound: 3000, warmUpConfirms: 1000, maxDurationMs: 30_000, buyersPerEvent: [100, 1000, 10_000], numberingClients: [20, 50] },
    cluster: { holds: 5000, concurrency: 50, rounds: 3, scriptHolds: 20_000 },
    persist: { holds: 20_000, concurrency: 50, rounds: 3 },
    soak: { ...SOAK_MIX, durationMs: soakMs(240_000), holdsPerSec: 300, sampleEverySec: 10 },
    instrument: { rounds: 5, requests: 10_000, warmupRequests: 1000, concurrency: 50 },
    webhooks: { concurrency: 50, holds: 3000, rounds: 3, maxDurationMs: 60_000 },
    queue: { buyers: 100_000, concurrency: 50, seats: 1000, admitPerMinute: 1200, holdTtlSeconds: 10, payPer5: 4, maxSaleMs: 240_000 },
  };
}

/** The soak's length: BENCH_SOAK_SECONDS when set, else the plan's. */
function soakMs(planned: number): number {
  const seconds = Number(process.env.BENCH_SOAK_SECONDS);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : planned;
}
