import type { FlashSale } from './race-lab.types';

/** How big each part of a run is. `quick` keeps a whole run under two minutes on 2 cores. */
export interface BenchPlan {
  mode: 'quick' | 'full';
  raceLab: FlashSale & { optimisticAttempts: number };
  holdPath: {
    concurrency: number;
    requests: number;
    maxDurationMs: number;
    warmupRequests: number;
    redisBenchmarkRequests: number;
  };
  confirmPath: {
    /** Concurrent confirms (and pgbench clients). */
    concurrency: number;
    /** pgbench transactions per client. */
    pgbenchTransactionsPerClient: number;
  };
}

export function benchPlan(quick: boolean): BenchPlan {
  if (quick) {
    return {
      mode: 'quick',
      raceLab: { buyers: 1000, tickets: 400, concurrency: 50, priceCents: 5000, optimisticAttempts: 3 },
      holdPath: { concurrency: 50, requests: 8000, maxDurationMs: 8000, warmupRequests: 500, redisBenchmarkRequests: 50_000 },
      confirmPath: { concurrency: 50, pgbenchTransactionsPerClient: 20 },
    };
  }
  return {
    mode: 'full',
    raceLab: { buyers: 4000, tickets: 1500, concurrency: 50, priceCents: 5000, optimisticAttempts: 3 },
    holdPath: { concurrency: 50, requests: 60_000, maxDurationMs: 30_000, warmupRequests: 2000, redisBenchmarkRequests: 300_000 },
    confirmPath: { concurrency: 50, pgbenchTransactionsPerClient: 100 },
  };
}
