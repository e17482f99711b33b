import { isSkipped, type BenchReport, type ConfirmRound } from '../bench-report.types';
import { round3 } from '../latency.histogram';
import type { RaceLabReport } from '../race-lab.runner';

/**
 * The ratios each target of issue 31 is judged by, under names that stay put
 * in the `--out` JSON whatever ran: a section that did not run still carries
 * them, as null (and `ran: false`).
 */
export interface StableRatios {
  holdPath: { ratios: { holdfastVsBareNodeThroughput: number | null; holdfastVsBareNodeP99: number | null; holdfastVsExpressThroughput: number | null } };
  raceLab: { holdfastVsSkipLocked: number | null };
  confirmPath: { holdfastVsPgbench: number | null; holdfastVsPgbenchBatch: number | null };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return round3(sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2);
}

/**
 * holdfast's purchases per second ÷ the row-per-ticket SKIP LOCKED strategy's: the median of the
 * per-pair ratios of their interleaved sales (RaceLabReport.pairs); in a report without pairs, the
 * ratio of their one sale each. Null unless both ran.
 */
export function holdfastVsSkipLocked(lab: Pick<RaceLabReport, 'results' | 'pairs'>): number | null {
  if (lab.pairs) return lab.pairs.baseline === 'skip-locked' && lab.pairs.contender === 'holdfast' ? lab.pairs.ratio.median : null;
  const holdfast = lab.results.find((r) => r.id === 'holdfast' && !r.skipped);
  const skip = lab.results.find((r) => r.id === 'skip-locked' && !r.skipped);
  if (!holdfast || !skip || !(skip.purchasesPerSec > 0)) return null;
  return round3(holdfast.purchasesPerSec / skip.purchasesPerSec);
}

/** Median over the rounds of holdfast's confirms per second ÷ pgbench's running transactions shaped like holdfast's batches; null without such a round. */
export function holdfastVsPgbenchBatch(rounds: ConfirmRound[]): number | null {
  return median(rounds.flatMap((r) =>
    !isSkipped(r.holdfastApi) && r.pgbenchBatch && r.pgbenchBatch.confirmsPerSec > 0 ? [r.holdfastApi.confirms.okPerSec / r.pgbenchBatch.confirmsPerSec] : []));
}

/** The stable ratios of a report (null for what did not run). */
export function stableRatios(report: BenchReport): StableRatios {
  const hold = report.holdPath;
  return {
    holdPath: {
      ratios: {
        holdfastVsBareNodeThroughput: hold?.ratios.holdfastVsBareNodeThroughput ?? null,
        holdfastVsBareNodeP99: hold?.ratios.holdfastVsBareNodeP99 ?? null,
        holdfastVsExpressThroughput: hold?.ratios.holdfastVsExpressThroughput ?? null,
      },
    },
    raceLab: { holdfastVsSkipLocked: report.raceLab ? holdfastVsSkipLocked(report.raceLab) : null },
    confirmPath: {
      holdfastVsPgbench: report.confirmPath?.holdfastVsPgbench ?? null,
      holdfastVsPgbenchBatch: report.confirmPath ? holdfastVsPgbenchBatch(report.confirmPath.rounds) : null,
    },
  };
}

/** The report as `--out` writes it: every section as measured, with the stable ratios in place (a section not run: `{ ran: false, … }`). */
export function benchJson(report: BenchReport): Record<string, unknown> {
  const stable = stableRatios(report);
  const hold = report.holdPath;
  return {
    ...report,
    holdPath: hold ? { ...hold, ratios: { ...hold.ratios, ...stable.holdPath.ratios } } : { ran: false, ...stable.holdPath },
    raceLab: report.raceLab ? { ...report.raceLab, ...stable.raceLab } : { ran: false, ...stable.raceLab },
    confirmPath: report.confirmPath ? { ...report.confirmPath, ...stable.confirmPath } : { ran: false, ...stable.confirmPath },
  };
}
