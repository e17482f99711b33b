// `npm run bench -- --tracing both`: the same sections with tracing off, then
// on; this table sets holdfast's numbers of the two runs side by side. Each
// run's ratio to its own baseline (the bare node:http server of the same
// rounds, and the CPU ratio to minimal Express) is shown too: it is less moved
// by the machine's load drifting between the runs.
import type { BenchReport, PathSummary, Skipped } from '../bench-report.types';
import { isSkipped } from '../bench-report.types';
import { markdownTable, type Cell } from './markdown-table.format';

const ran = (p: PathSummary | Skipped | null | undefined): PathSummary | null => (p && !isSkipped(p) ? p : null);
const ratio = (on: number | null | undefined, off: number | null | undefined): Cell =>
  on != null && off != null && off !== 0 ? `${(on / off).toFixed(2)}×` : null;

export function renderTracingCost(off: BenchReport, on: BenchReport): string {
  const rows: Cell[][] = [];
  const hold = (name: string, pick: (r: BenchReport) => PathSummary | Skipped | null | undefined) => {
    const [a, b] = [ran(pick(off)), ran(pick(on))];
    if (!a || !b) return;
    rows.push([`${name}: holds/s`, a.okPerSec, b.okPerSec, ratio(b.okPerSec, a.okPerSec)]);
    rows.push([`${name}: p99 ms`, a.p99Ms, b.p99Ms, ratio(b.p99Ms, a.p99Ms)]);
    rows.push([`${name}: API CPU ms a hold`, a.serverCpuMsPerRequest, b.serverCpuMsPerRequest, ratio(b.serverCpuMsPerRequest, a.serverCpuMsPerRequest)]);
  };
  hold('hold path', (r) => r.holdPath?.holdfastApi);
  hold(`hold path, ${off.holdPath?.multiSeatHold ?? '?'} seats a hold`, (r) => r.holdPath?.holdfastMultiSeat);
  if (off.holdPath && on.holdPath) {
    const [a, b] = [off.holdPath.ratios.holdfastVsBareNodeThroughput, on.holdPath.ratios.holdfastVsBareNodeThroughput];
    rows.push(['hold path ÷ bare node:http, throughput (same rounds)', a, b, ratio(b, a)]);
    const [c, d] = [off.holdPath.ratios.holdfastVsExpressCpuPerRequest, on.holdPath.ratios.holdfastVsExpressCpuPerRequest];
    rows.push(['hold path ÷ minimal Express, server CPU a request (same rounds)', c, d, ratio(d, c)]);
  }
  const lab = (r: BenchReport) => r.raceLab?.results.find((x) => x.id === 'holdfast' && x.skipped === null);
  const [labOff, labOn] = [lab(off), lab(on)];
  if (labOff && labOn) {
    rows.push(['race lab: purchase attempts/s', labOff.attemptsPerSec, labOn.attemptsPerSec, ratio(labOn.attemptsPerSec, labOff.attemptsPerSec)]);
    rows.push(['race lab: p99 ms', labOff.latency.p99Ms, labOn.latency.p99Ms, ratio(labOn.latency.p99Ms, labOff.latency.p99Ms)]);
  }
  if (!rows.length) return '## Tracing cost\n\nNo section of both runs has holdfast numbers to compare (run `--only hold` or `--only race`).\n';
  return [
    '## Tracing cost (off, then on)',
    '',
    `Tracing on: the API exported ${on.meta.tracing?.exportRequests ?? 0} OTLP requests to a loopback receiver that discarded them. ` +
      'The two runs are one after the other: drift in the machine\'s load between them shows here as cost; the ratios to the baselines of the same rounds are steadier.',
    '',
    markdownTable(['', 'off', 'on', 'on ÷ off'], rows),
    '',
  ].join('\n');
}
