/**
 * Group commit (issue 12): what the confirm section adds for it. The API's own
 * batch metric (holdfast_confirm_batch_size, read from /metrics before and
 * after a run) gives the batches it made; pgbench then runs a script shaped
 * like those batches (pgbench-confirm-batch.script.ts) as the honest limit;
 * and the targets are read off the whole report.
 */
import { confirmBatchScript } from '../baselines/pgbench-confirm-batch.script';
import { runPgbench, type PgbenchResult } from '../baselines/pgbench.runner';
import type { ChildServer } from '../baselines/child-server.launcher';
import { retryWhileTooManyClients } from '../bench-database.service';
import type { BenchReport, ConfirmRound } from '../bench-report.types';
import { isSkipped } from '../bench-report.types';
import { round3 } from '../latency.histogram';
import { formatRatio, markdownTable, type Cell } from '../report/markdown-table.format';

/** Batches and the confirms in them, as the API's /metrics counts them. */
export interface BatchCount {
  batches: number;
  confirms: number;
  /** Seconds in batch statements, summed (holdfast_confirm_batch_seconds). */
  statementSeconds: number;
}

export async function readBatchMetric(api: ChildServer): Promise<BatchCount | null> {
  try {
    const res = await fetch(`${api.baseUrl}/metrics`);
    const text = await res.text();
    const count = /^holdfast_confirm_batch_size_count (\d+(?:\.\d+)?)$/m.exec(text);
    const sum = /^holdfast_confirm_batch_size_sum (\d+(?:\.\d+)?)$/m.exec(text);
    const seconds = /^holdfast_confirm_batch_seconds_sum (\S+)$/m.exec(text);
    if (!count || !sum) return null;
    return { batches: Number(count[1]), confirms: Number(sum[1]), statementSeconds: Number(seconds?.[1] ?? 0) };
  } catch {
    return null;
  }
}

export function batchesBetween(
  before: BatchCount | null, after: BatchCount | null,
): (BatchCount & { meanSize: number; meanStatementMs: number }) | null {
  if (!before || !after) return null;
  const batches = after.batches - before.batches;
  const confirms = after.confirms - before.confirms;
  const statementSeconds = after.statementSeconds - before.statementSeconds;
  return {
    batches, confirms, statementSeconds: round3(statementSeconds),
    meanSize: batches > 0 ? round3(confirms / batches) : 0,
    meanStatementMs: batches > 0 ? round3((statementSeconds * 1000) / batches) : 0,
  };
}

/**
 * pgbench with `perTransaction` confirms per transaction (one statement each), its
 * clients chosen so that clients × perTransaction ≈ `concurrency` confirms in flight.
 */
export function runBatchPgbench(options: {
  databaseUrl: string; concurrency: number; confirms: number; perTransaction: number; log(line: string): void;
}): Promise<PgbenchResult> {
  const perTransaction = Math.max(1, Math.round(options.perTransaction));
  const clients = Math.max(1, Math.round(options.concurrency / perTransaction));
  return retryWhileTooManyClients(
    () => runPgbench({
      databaseUrl: options.databaseUrl,
      schema: 'bench_pgbench_batch',
      clients,
      transactionsPerClient: Math.max(1, Math.ceil(options.confirms / (clients * perTransaction))),
      script: (year) => confirmBatchScript(year, perTransaction),
      confirmsPerTransaction: perTransaction,
    }),
    90_000,
    () => options.log('  PostgreSQL has no free connection slot (shared server); waiting'),
  );
}

function median(values: number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return round3(sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2);
}

/** The group-commit tables: holdfast against both pgbench scripts, round by round, and the targets. */
export function groupCommitSection(report: BenchReport): string[] {
  const confirm = report.confirmPath;
  if (!confirm) return [];
  const rounds = confirm.rounds.filter((r): r is ConfirmRound & { holdfastApi: Exclude<ConfirmRound['holdfastApi'], { skipped: string }> } =>
    !isSkipped(r.holdfastApi));
  if (!rounds.length) return [];
  const rows = rounds.map((r, index): Cell[] => [
    index + 1,
    r.holdfastApi.confirms.okPerSec,
    r.holdfastApi.confirms.okLatency.p99Ms,
    r.holdfastApi.batches ? `${r.holdfastApi.batches.batches} / ${r.holdfastApi.batches.meanSize} / ${r.holdfastApi.batches.meanStatementMs}` : null,
    r.pgbench.tps,
    r.pgbench.latency.p99Ms,
    r.pgbenchBatch ? `${r.pgbenchBatch.confirmsPerSec} (${r.pgbenchBatch.clients} × ${r.pgbenchBatch.confirmsPerTransaction})` : null,
    r.pgbenchBatch?.latency.p99Ms ?? null,
    formatRatio(r.holdfastApi.confirms.okPerSec / r.pgbench.tps),
    formatRatio(r.holdfastApi.confirms.okLatency.p99Ms / r.pgbench.latency.p99Ms),
    r.pgbenchBatch ? formatRatio(r.holdfastApi.confirms.okPerSec / r.pgbenchBatch.confirmsPerSec) : null,
  ]);
  const vsOne = median(rounds.map((r) => r.holdfastApi.confirms.okPerSec / r.pgbench.tps));
  const p99VsOne = median(rounds.map((r) => r.holdfastApi.confirms.okLatency.p99Ms / r.pgbench.latency.p99Ms));
  const batched = rounds.filter((r) => r.pgbenchBatch);
  const vsBatch = median(batched.map((r) => r.holdfastApi.confirms.okPerSec / r.pgbenchBatch!.confirmsPerSec));
  const targets: Cell[][] = [
    ['confirms/s ≥ 1.0 × pgbench, one transaction per confirm (aim 2×)', formatRatio(vsOne), vsOne === null ? 'not run' : vsOne >= 2 ? 'met (aim too)' : vsOne >= 1 ? 'met' : 'missed'],
    ['confirm p99 vs pgbench, one transaction per confirm', formatRatio(p99VsOne), '–'],
    ['confirms/s vs pgbench shaped like the batches (the honest limit)', formatRatio(vsBatch), '–'],
  ];
  const race = report.raceLab?.results;
  const holdfast = race?.find((r) => r.id === 'holdfast');
  const skip = race?.find((r) => r.id === 'skip-locked');
  if (holdfast && skip && 'attemptsPerSec' in holdfast && 'attemptsPerSec' in skip && skip.attemptsPerSec > 0) {
    const v = holdfast.attemptsPerSec / skip.attemptsPerSec;
    targets.push(['race lab: holdfast ≥ 0.5 × row per ticket, SKIP LOCKED', formatRatio(v), v >= 0.5 ? 'met' : 'missed']);
  }
  const hold = report.holdPath;
  if (hold && !isSkipped(hold.holdfastApi)) {
    const t = hold.ratios.holdfastVsExpressThroughput;
    const p = hold.ratios.holdfastVsExpressP99;
    targets.push(['hold path ≥ 0.9 × minimal Express', formatRatio(t), t === null ? 'not run' : t >= 0.9 ? 'met' : 'missed']);
    targets.push(['hold p99 ≤ 1.5 × minimal Express', formatRatio(p), p === null ? 'not run' : p <= 1.5 ? 'met' : 'missed']);
  }
  return [
    '',
    `## Group commit: confirms against both pgbench scripts (${confirm.concurrency} concurrent confirms, same rounds)`,
    '',
    markdownTable(
      ['round', 'holdfast confirms/s', 'holdfast p99 ms', 'batches / mean size / mean statement ms', 'pgbench 1/tx tps', 'pgbench 1/tx p99 ms',
        'pgbench batch confirms/s (clients × per tx)', 'pgbench batch p99 ms', 'vs 1/tx', 'p99 vs 1/tx', 'vs batch'],
      rows,
    ),
    '',
    '### Targets (issue 12)',
    '',
    markdownTable(['target', 'measured', 'verdict'], targets),
  ];
}
