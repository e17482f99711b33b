import { isSkipped, type BenchReport } from '../bench.runner';
import type { HttpLoadResult } from '../http-load.generator';
import { formatNumber, formatRatio, markdownTable, ratio, type Cell } from './markdown-table.format';
import { renderBarChart, type ChartPanel } from './svg-chart.render';

export function renderMarkdown(report: BenchReport): string {
  const { meta } = report;
  const out: string[] = [];
  out.push(
    `# holdfast bench (${meta.mode})`,
    '',
    `${meta.startedAt} · ${meta.cpus} × ${meta.cpuModel} · load average at start ${meta.loadAverageAtStart.join(' / ')} · ` +
      `Node ${meta.node} · PostgreSQL ${meta.postgres} · Redis ${meta.redis} · commit ${meta.gitCommit ?? 'unknown'} · ${meta.durationSec} s`,
  );

  if (report.raceLab) {
    const { sale, results } = report.raceLab;
    out.push(
      '',
      `## Race lab: ${sale.buyers} buyers, ${sale.tickets} tickets, ${sale.concurrency} concurrent clients, one purchase each`,
      '',
      markdownTable(
        ['strategy', 'fenced', 'sold', 'oversold', 'counter says', 'refused: sold out', 'refused: gave up', 'wrongly refused', 'errors', 'attempts/s', 'p50 ms', 'p99 ms'],
        results.map((r): Cell[] =>
          r.skipped
            ? [`${r.title} (not run)`, r.fenced ? 'yes' : 'no', null, null, null, null, null, null, null, null, null, null]
            : [
                r.title,
                r.fenced ? 'yes' : 'no',
                r.sold,
                r.oversold,
                r.counterSays,
                r.refusedSoldOut,
                r.refusedGaveUp,
                r.wronglyRefused,
                r.errors,
                r.attemptsPerSec,
                r.latency.p50Ms,
                r.latency.p99Ms,
              ],
        ),
      ),
      ...notRun(results.map((r) => [r.title, r.skipped])),
    );
  }

  if (report.holdPath) {
    const { holdPath } = report;
    const base = holdPath.minimalExpress;
    const rb = holdPath.redisBenchmark;
    const rows: Cell[][] = [
      [`redis-benchmark \`${rb.command}\``, rb.requests, rb.requestsPerSec, rb.p50Ms, rb.p99Ms,
        formatRatio(ratio(rb.requestsPerSec, base.okPerSec)), formatRatio(ratio(rb.p99Ms, base.okLatency.p99Ms)),
        formatRatio(1)],
      httpRow('minimal Express 5 + one SET NX EX', base, base, rb.requestsPerSec),
    ];
    if (isSkipped(holdPath.holdfastApi)) {
      rows.push(['holdfast `POST /v1/events/{id}/holds` (not run)', null, null, null, null, null, null, null]);
    } else {
      rows.push(httpRow('holdfast `POST /v1/events/{id}/holds`', holdPath.holdfastApi, base, rb.requestsPerSec));
    }
    out.push(
      '',
      `## Hold path against the limits (${holdPath.concurrency} concurrent clients)`,
      '',
      markdownTable(['path', 'requests', 'ok/s', 'p50 ms', 'p99 ms', 'throughput vs Express', 'p99 vs Express', 'throughput vs redis-benchmark'], rows),
      ...notRun([['holdfast `POST /v1/events/{id}/holds`', isSkipped(holdPath.holdfastApi) ? holdPath.holdfastApi.skipped : null]]),
    );
  }

  if (report.confirmPath) {
    const { confirmPath } = report;
    const pg = confirmPath.pgbench;
    const rows: Cell[][] = [
      [`pgbench, confirm-shaped transaction (${pg.failed} failed, ${pg.distinctOrderNumbers} distinct order numbers)`,
        pg.transactions, pg.tps, pg.latency.p50Ms, pg.latency.p99Ms, formatRatio(1)],
    ];
    if (isSkipped(confirmPath.holdfastApi)) {
      rows.push(['holdfast `POST /v1/holds/{id}/confirm` (not run)', null, null, null, null, null]);
    } else {
      const api = confirmPath.holdfastApi;
      rows.push(['holdfast `POST /v1/holds/{id}/confirm`', api.ok, api.okPerSec, api.okLatency.p50Ms, api.okLatency.p99Ms,
        formatRatio(ratio(api.okPerSec, pg.tps))]);
    }
    out.push(
      '',
      `## Confirm path against the limits (${confirmPath.concurrency} concurrent confirms of distinct holds)`,
      '',
      markdownTable(['path', 'confirms', 'confirms/s', 'p50 ms', 'p99 ms', 'vs pgbench'], rows),
      ...notRun([['holdfast `POST /v1/holds/{id}/confirm`', isSkipped(confirmPath.holdfastApi) ? confirmPath.holdfastApi.skipped : null]]),
    );
  }
  return `${out.join('\n')}\n`;
}

function httpRow(label: string, result: HttpLoadResult, base: HttpLoadResult, redisBenchmarkRps: number): Cell[] {
  const failures = result.failed > 0 ? ` (${result.failed} failed: ${JSON.stringify(result.statusCounts)})` : '';
  return [
    `${label}${failures}`,
    result.requests,
    result.okPerSec,
    result.okLatency.p50Ms,
    result.okLatency.p99Ms,
    formatRatio(ratio(result.okPerSec, base.okPerSec)),
    formatRatio(ratio(result.okLatency.p99Ms, base.okLatency.p99Ms)),
    formatRatio(ratio(result.okPerSec, redisBenchmarkRps)),
  ];
}

export function renderSvg(report: BenchReport): string {
  const panels: ChartPanel[] = [];
  if (report.raceLab) {
    const ran = report.raceLab.results.filter((r) => !r.skipped);
    const { sale } = report.raceLab;
    panels.push({
      title: `Race lab: tickets sold (${sale.tickets} available, ${sale.buyers} buyers)`,
      unit: 'sold',
      marker: { value: sale.tickets, label: `${sale.tickets} tickets` },
      bars: ran.map((r) => ({
        label: r.title,
        value: r.sold,
        note: r.oversold > 0 ? `OVERSOLD ${r.oversold}` : r.wronglyRefused > 0 ? `${r.wronglyRefused} wrongly refused` : 'exact',
        alarm: r.oversold > 0,
      })),
    });
    panels.push({
      title: 'Race lab: purchase attempts per second',
      unit: '/s',
      bars: ran.map((r) => ({ label: r.title, value: r.attemptsPerSec, note: `p99 ${ms(r.latency.p99Ms)}` })),
    });
  }
  if (report.holdPath) {
    const { holdPath } = report;
    const bars = [
      { label: 'redis-benchmark SET NX EX', value: holdPath.redisBenchmark.requestsPerSec, note: `p99 ${ms(holdPath.redisBenchmark.p99Ms)}` },
      { label: 'minimal Express + SET NX EX', value: holdPath.minimalExpress.okPerSec, note: `p99 ${ms(holdPath.minimalExpress.okLatency.p99Ms)}` },
    ];
    if (!isSkipped(holdPath.holdfastApi)) {
      bars.push({ label: 'holdfast POST holds', value: holdPath.holdfastApi.okPerSec, note: `p99 ${ms(holdPath.holdfastApi.okLatency.p99Ms)}` });
    }
    panels.push({ title: `Hold path: requests per second at ${holdPath.concurrency} concurrent clients`, unit: '/s', bars });
  }
  if (report.confirmPath) {
    const { confirmPath } = report;
    const bars = [{ label: 'pgbench confirm-shaped tx', value: confirmPath.pgbench.tps, note: `p99 ${ms(confirmPath.pgbench.latency.p99Ms)}` }];
    if (!isSkipped(confirmPath.holdfastApi)) {
      bars.push({ label: 'holdfast POST confirm', value: confirmPath.holdfastApi.okPerSec, note: `p99 ${ms(confirmPath.holdfastApi.okLatency.p99Ms)}` });
    }
    panels.push({ title: `Confirm path: confirms per second at ${confirmPath.concurrency} concurrent clients`, unit: '/s', bars });
  }
  const { meta } = report;
  return renderBarChart(
    `holdfast bench (${meta.mode})`,
    `${meta.startedAt} · ${meta.cpus} cores · PostgreSQL ${meta.postgres} · Redis ${meta.redis} · commit ${meta.gitCommit ?? 'unknown'}`,
    panels,
  );
}

function ms(value: number): string {
  return `${formatNumber(value)} ms`;
}

/** Footnotes for rows that did not run, so the reason is never lost in a table cell. */
function notRun(entries: Array<[string, string | null]>): string[] {
  const lines = entries.filter(([, reason]) => reason).map(([title, reason]) => `- ${title}: not run (${reason}).`);
  return lines.length > 0 ? ['', ...lines] : [];
}
