import { createSchemaPool, dropSchema, retryWhileTooManyClients } from './bench-database.service';
import { elapsedMs, LatencyHistogram, round3, type LatencySummary } from './latency.histogram';
import type { FlashSale, LabResources, SaleClient, SaleStrategy, WarmUpReport } from './race-lab.types';

interface RaceLabOptions {
  databaseUrl: string;
  /** Schema holding the lab's tables; dropped at the end. */
  schema: string;
  sale: FlashSale;
  strategies: SaleStrategy[];
  /** Called after each strategy, e.g. to print progress. */
  onResult?: (result: StrategyResult) => void;
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
  /** The strategy's warm-up before the clock, when it reports one. */
  warmUp?: WarmUpReport | null;
  wallMs: number;
  /** Purchase attempts completed per second (bought or refused). */
  attemptsPerSec: number;
  /** Successful purchases per second. */
  purchasesPerSec: number;
  latency: LatencySummary;
}

export interface RaceLabReport {
  sale: FlashSale;
  results: StrategyResult[];
}

export async function runRaceLab(options: RaceLabOptions): Promise<RaceLabReport> {
  const { sale } = options;
  if (sale.buyers < 1 || sale.tickets < 1 || sale.concurrency < 1) throw new Error('flash sale needs buyers, tickets and concurrency ≥ 1');
  const pool = await createSchemaPool({ url: options.databaseUrl, schema: options.schema, max: sale.concurrency + 1 });
  const results: StrategyResult[] = [];
  try {
    for (const strategy of options.strategies) {
      const result = await runStrategy(strategy, { pool, sale });
      results.push(result);
      options.onResult?.(result);
    }
  } finally {
    await pool.end();
    await dropSchema(options.databaseUrl, options.schema);
  }
  return { sale, results };
}

async function runStrategy(strategy: SaleStrategy, resources: LabResources): Promise<StrategyResult> {
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
    const wallMs = elapsedMs(started);

    const tally = await strategy.tally(resources);
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
      warmUp: strategy.warmUp?.() ?? null,
      wallMs: round3(wallMs),
      attemptsPerSec: round3((sale.buyers / wallMs) * 1000),
      purchasesPerSec: round3((counts.bought / wallMs) * 1000),
      latency: histogram.summary(),
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
