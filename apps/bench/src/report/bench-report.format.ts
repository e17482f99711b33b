import { isSkipped, type BenchReport, type HoldPathReport, type HoldServerWarmUp, type HoldWarmUp, type PathSummary } from '../bench-report.types';
import type { MachineCpuPerRequest } from '../machine-cpu.probe';
import { processesSum as saleProcessesSum, ratioSpread, type RaceLabReport, type SalesWarmUp, type StrategyResult } from '../race-lab.runner';
import type { WarmUpReport } from '../race-lab.types';
import { groupCommitSection } from '../holdfast/holdfast-confirm-batch.bench';
import { medianOf } from '../latency.histogram';
import { formatNumber, formatRatio, markdownTable, ratio, type Cell } from './markdown-table.format';
import { renderBarChart, type ChartPanel } from './svg-chart.render';
import { stableRatios } from './bench-json.format';
import { renderClusterSection } from '../holdfast/holdfast-cluster.bench';
import { renderPersistSection } from '../holdfast/holdfast-persist.bench';
import { renderQueueSection } from '../holdfast/holdfast-queue.bench';
import { renderSoakSection } from '../holdfast/holdfast-soak.bench';
import { renderInstrumentSection } from '../load-instrument.bench';
import { renderWebhookCostSection } from '../holdfast/holdfast-webhooks.bench';

export function renderMarkdown(report: BenchReport): string {
  const { meta } = report;
  const out: string[] = [];
  out.push(
    `# holdfast bench (${meta.mode})`,
    '',
    `${meta.startedAt} · ${meta.cpus} × ${meta.cpuModel} · load average ${meta.loadAverageAtStart.join(' / ')} at start, ` +
      `${meta.loadAverageAtEnd.join(' / ')} at end · Node ${meta.node} · PostgreSQL ${meta.postgres} · Redis ${meta.redis} · ` +
      `commit ${meta.gitCommit ?? 'unknown'} · ${meta.durationSec} s` +
      (meta.tracing?.on ? ` · tracing on (${meta.tracing.exportRequests} OTLP exports, discarded)` : ''),
  );
  out.push(
    ...raceLabSection(report), ...holdPathSection(report), ...growthSection(report), ...confirmSection(report), ...groupCommitSection(report),
    ...bestSection(report), ...renderClusterSection(report.clusterScale), ...renderPersistSection(report.persist), ...renderSoakSection(report.soak), ...renderInstrumentSection(report.instrument), ...renderWebhookCostSection(report.webhooks), ...renderQueueSection(report.queue),
    ...targetsSection(report),
  );
  return `${out.join('\n')}\n`;
}

function raceLabSection(report: BenchReport): string[] {
  if (!report.raceLab) return [];
  const { sale, results, pairs } = report.raceLab;
  return [
    '',
    `## Race lab: ${sale.buyers} buyers, ${sale.tickets} tickets, ${sale.concurrency} concurrent clients, one purchase each`,
    ...(pairs
      ? ['', `${strategyLabel(pairs.baseline)} and ${strategyLabel(pairs.contender)} ran ${pairs.rounds.length} interleaved pairs of sales (each on fresh tables or a fresh event, ` +
          `who goes first alternating); their rows here are the pair whose ratio is the median (pair ${pairs.medianRound ?? '–'}), every pair is below. ` +
          'The other strategies ran one sale each, before the pairs.']
      : []),
    '',
    markdownTable(
      ['strategy', 'fenced', 'sold', 'oversold', 'counter says', 'refused: sold out', 'refused: gave up', 'wrongly refused', 'errors', 'attempts/s', 'purchases/s', 'p50 ms', 'p99 ms'],
      results.map((r): Cell[] =>
        r.skipped
          ? [`${r.title} (not run)`, r.fenced ? 'yes' : 'no', null, null, null, null, null, null, null, null, null, null, null]
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
              r.purchasesPerSec,
              r.latency.p50Ms,
              r.latency.p99Ms,
            ],
      ),
    ),
    ...notRun(results.map((r) => [r.title, r.skipped])),
    ...failures([
      ...results.filter((r) => !pairs || (r.id !== pairs.baseline && r.id !== pairs.contender)),
      ...(pairs?.rounds ?? []).flatMap((p) => [p.baseline, p.contender]),
    ].map((r) => [r.title, r.errorSamples])),
    ...racePairsLines(report.raceLab),
    ...raceCpuLines(report.raceLab, report.meta.cpus),
    ...raceConfirmBatchLines(report.raceLab),
  ];
}

/**
 * holdfast's confirm batches in its sales (medians over the paired sales, else its one sale): how
 * many, their size, and the share of the sale's clock the batch statement ran. With one batch in
 * flight (the default), that share is how much of the sale PostgreSQL's confirm statement set the pace.
 */
export function raceConfirmBatchLines(lab: RaceLabReport): string[] {
  const sales = (lab.pairs ? lab.pairs.rounds.flatMap((p) => [p.baseline, p.contender]) : lab.results)
    .filter((r) => r.confirmBatches && r.confirmBatches.batches > 0 && r.wallMs > 0);
  if (sales.length === 0) return [];
  const title = sales[0]!.title;
  const batches = medianOf(sales.map((r) => r.confirmBatches!.batches));
  const size = medianOf(sales.flatMap((r) => (r.confirmBatches!.meanSize === null ? [] : [r.confirmBatches!.meanSize])));
  const statementMs = medianOf(sales.map((r) => r.confirmBatches!.statementMs));
  const wallMs = medianOf(sales.map((r) => r.wallMs));
  const share = medianOf(sales.map((r) => r.confirmBatches!.statementMs / r.wallMs));
  return ['', `${title}: its confirms went in group-commit batches; median over its ${sales.length} sale(s): ` +
    `${formatNumber(batches ?? 0)} batches of ${size === null ? '?' : size.toFixed(1)} confirms on average, the batch statement running ` +
    `${formatNumber(Math.round(statementMs ?? 0))} ms of the sale's ${formatNumber(Math.round(wallMs ?? 0))} ms clock (${Math.round((share ?? 0) * 100)} %), ` +
    'summed over the batches: with one batch in flight (CONFIRM_BATCH_IN_FLIGHT=1, the default) the time the next batch waits for it; with more, overlapping batches each count (the API\'s `holdfast_confirm_batch_size` and `holdfast_confirm_batch_seconds`, read before and after each sale).'];
}

function strategyLabel(id: string): string {
  return id === 'skip-locked' ? 'SKIP LOCKED' : id;
}

/** The paired sales: the median and spread of their ratios, each pair, and what ran before them. */
function racePairsLines(lab: RaceLabReport): string[] {
  const { pairs } = lab;
  if (!pairs) return lab.results.flatMap((r) => (r.warmUp && r.warmUp.apiCpuMsPerRequest.length ? ['', holdfastWarmUpLine(r.title, r.warmUp)] : []));
  const [b, c] = [strategyLabel(pairs.baseline), strategyLabel(pairs.contender)];
  const { median, min, max, values } = pairs.ratio;
  const machine = (r: StrategyResult) => r.cpuPerBuyer?.machine ?? null;
  return [
    '',
    `**${c} ÷ ${b}, purchases per second: ${formatRatio(median)}**, the median of ${values.length} pairs' ratios; spread ${formatRatio(min)} to ${formatRatio(max)}.`,
    '',
    markdownTable(
      ['pair', 'first', `${b} purchases/s`, `${c} purchases/s`, `${c} ÷ ${b}`, `${b} p99 ms`, `${c} p99 ms`, `sold (${b} / ${c})`, 'oversold', `${b} machine CPU ms/buyer`, `${c} machine CPU ms/buyer`],
      pairs.rounds.map((p): Cell[] => [
        p.round,
        p.first === 'baseline' ? b : c,
        p.baseline.purchasesPerSec,
        p.contender.purchasesPerSec,
        formatRatio(p.ratio),
        p.baseline.latency.p99Ms,
        p.contender.latency.p99Ms,
        `${formatNumber(p.baseline.sold)} / ${formatNumber(p.contender.sold)}`,
        `${p.baseline.oversold} / ${p.contender.oversold}`,
        machine(p.baseline),
        machine(p.contender),
      ]),
    ),
    ...pairWarmUpLines(pairs.warmUp.contender, pairs.contender, lab),
    ...pairWarmUpLines(pairs.warmUp.baseline, pairs.baseline, lab),
  ];
}

function pairWarmUpLines(warmUp: WarmUpReport | SalesWarmUp | null, id: string, lab: RaceLabReport): string[] {
  if (!warmUp) return [];
  const title = lab.results.find((r) => r.id === id)?.title ?? id;
  if ('apiCpuMsPerRequest' in warmUp) return warmUp.apiCpuMsPerRequest.length ? ['', holdfastWarmUpLine(title, warmUp)] : [];
  return ['', `${title}: ${warmUp.sales} warm-up sale(s) of the measured size before the first pair, on the sessions the pairs use; ` +
    `purchases/s ${warmUp.purchasesPerSec.map((v) => formatNumber(v)).join(', ')}, CPU a buyer in its processes ` +
    `${warmUp.cpuMsPerBuyer.map((ms) => `${ms ?? '?'} ms`).join(', ')} (they stop once it no longer falls).`];
}

function holdfastWarmUpLine(title: string, warmUp: WarmUpReport): string {
  return `${title}: ${warmUp.sales} warm-up sale(s) before the clock; the API's CPU per request in each: ` +
    `${warmUp.apiCpuMsPerRequest.map((ms) => `${ms} ms`).join(', ')} (they stop once it no longer falls).`;
}

/**
 * What a buyer cost each process: the paired strategies' medians over their sales, the others' one
 * sale, and the paired strategies' ratio process by process.
 */
function raceCpuLines(lab: RaceLabReport, cores: number): string[] {
  const by = lab.cpuByProcess;
  if (!by) return [];
  const pairs = lab.pairs;
  // How much of that ceiling a sale reached: its buyers a second times the CPU a buyer cost its
  // processes, over the cores (the share of the machine its processes kept busy); the median over
  // a paired strategy's sales.
  const salesOf = (id: string): StrategyResult[] =>
    pairs && (id === pairs.baseline || id === pairs.contender)
      ? pairs.rounds.map((p) => (id === pairs.baseline ? p.baseline : p.contender))
      : lab.results.filter((r) => r.id === id);
  const reached = (id: string): number | null => {
    const shares = salesOf(id).flatMap((r) => (r.cpuPerBuyer ? [(r.attemptsPerSec * saleProcessesSum(r.cpuPerBuyer)) / (cores * 1000)] : []));
    return ratioSpread(shares).median;
  };
  const percent = (share: number | null) => (share === null ? null : `${Math.round(share * 100)} %`);
  const rows = lab.results
    .filter((r) => by[r.id])
    .map((r): Cell[] => {
      const c = by[r.id]!;
      const sum = saleProcessesSum(c);
      return [r.title, c.server, c.redis, c.postgres, c.client, sum, c.machine, sum > 0 ? Math.round((cores * 1000) / sum) : null, percent(reached(r.id))];
    });
  if (rows.length === 0) return [];
  const [b, c] = pairs ? [by[pairs.baseline], by[pairs.contender]] : [null, null];
  if (pairs && b && c) {
    const times = (value: number | null, baseline: number | null) => {
      const v = ratio(value, baseline);
      return v === null ? null : formatRatio(v);
    };
    rows.push([`${strategyLabel(pairs.contender)} ÷ ${strategyLabel(pairs.baseline)}`, times(c.server, b.server), times(c.redis, b.redis),
      times(c.postgres, b.postgres), times(c.client, b.client), times(saleProcessesSum(c), saleProcessesSum(b)), times(c.machine, b.machine), null, null]);
  }
  return ['', 'CPU milliseconds per buyer (bought or refused) in every process a sale used, from the sale\'s first purchase until its work was done ' +
    '(holdfast: until the API had persisted its outbox); ' +
    (pairs ? `${strategyLabel(pairs.baseline)} and ${strategyLabel(pairs.contender)}: the median over their ${pairs.rounds.length} sales, the others: their one sale. ` : '') +
    'PostgreSQL is its shared processes (WAL writer, checkpointer…) and the sessions on the database the strategy uses (holdfast\'s API\'s; the lab\'s for the SQL strategies); ' +
    'Redis (the whole server, neighbours included) and the API server only where the strategy uses them. ' +
    `The ceiling is what this ${cores}-core machine allows when the sum is all a buyer costs, and the last column how much of it the sales reached ` +
    '(buyers a second × the sum ÷ the cores: the share of the machine the strategy\'s processes kept busy; well under 100 %, the sale waited on something else than ' +
    'its own CPU: round trips, locks, a commit, or neighbours). The whole machine also counts the kernel\'s share and anything else running.', '',
    markdownTable(['strategy', 'API server', 'Redis', 'PostgreSQL', 'client (the bench)', 'sum of these', 'whole machine', 'ceiling from the sum, buyers/s', 'of the ceiling reached'], rows)];
}

/** What failed, in the words of the failure, so a number in an "errors" column can be traced. */
function failures(entries: Array<[string, string[]]>): string[] {
  const lines = entries
    .filter(([, samples]) => samples.length > 0)
    .map(([title, samples]) => `- ${title}, errors seen: ${samples.map((text) => `\`${text.replace(/`/g, "'").replace(/\s+/g, ' ')}\``).join('; ')}`);
  return lines.length > 0 ? ['', ...lines] : [];
}

function holdPathSection(report: BenchReport): string[] {
  const hold = report.holdPath;
  if (!hold) return [];
  const express = hold.minimalExpress;
  const rb = hold.redisBenchmark;
  const row = (label: string, s: PathSummary, vsExpress: number | null, p99VsExpress: number | null, vsRb: number | null, cpuVsExpress: number | null): Cell[] => [
    s.failed > 0 ? `${label} (${s.failed} failed)` : label,
    s.requests,
    s.okPerSec,
    s.p50Ms,
    s.p99Ms,
    s.serverCpuMsPerRequest,
    formatRatio(vsExpress),
    formatRatio(p99VsExpress),
    formatRatio(cpuVsExpress),
    formatRatio(vsRb),
  ];
  const rows: Cell[][] = [
    row('redis-benchmark `SET bench:rb:__rand_int__ v NX EX 600`', rb, ratio(rb.okPerSec, express.okPerSec), ratio(rb.p99Ms, express.p99Ms), 1, null),
    row('minimal Express 5 + one `SET NX EX`', express, 1, 1, hold.ratios.expressVsRedisBenchmarkThroughput, 1),
  ];
  const bare = hold.bareNode ?? null;
  if (bare) {
    rows.push(row('bare `node:http` + one `SET NX EX`', bare, ratio(bare.okPerSec, express.okPerSec), ratio(bare.p99Ms, express.p99Ms),
      ratio(bare.okPerSec, rb.okPerSec), ratio(bare.serverCpuMsPerRequest, express.serverCpuMsPerRequest)));
  }
  if (isSkipped(hold.holdfastApi)) {
    rows.push(['holdfast `POST /v1/events/{id}/holds` (not run)', null, null, null, null, null, null, null, null, null]);
  } else {
    rows.push(
      row(
        'holdfast `POST /v1/events/{id}/holds`',
        hold.holdfastApi,
        hold.ratios.holdfastVsExpressThroughput,
        hold.ratios.holdfastVsExpressP99,
        hold.ratios.holdfastVsRedisBenchmarkThroughput,
        hold.ratios.holdfastVsExpressCpuPerRequest,
      ),
    );
  }
  if (hold.holdfastMultiSeat && hold.multiSeatHold) {
    const m = hold.holdfastMultiSeat;
    rows.push(
      row(
        `holdfast \`POST /v1/events/{id}/holds\`, ${hold.multiSeatHold} seats a hold`,
        m,
        hold.ratios.multiSeatVsExpressThroughput,
        hold.ratios.multiSeatVsExpressP99,
        ratio(m.okPerSec, rb.okPerSec),
        m.serverCpuMsPerRequest !== null && express.serverCpuMsPerRequest ? m.serverCpuMsPerRequest / express.serverCpuMsPerRequest : null,
      ),
    );
  }
  const perRound = hold.rounds.map((r, index): Cell[] => [
    index + 1,
    r.redisBenchmark.requestsPerSec,
    r.minimalExpress.okPerSec,
    r.minimalExpress.okLatency.p99Ms,
    r.bareNode?.okPerSec ?? null,
    r.bareNode?.okLatency.p99Ms ?? null,
    isSkipped(r.holdfastApi) ? null : r.holdfastApi.okPerSec,
    isSkipped(r.holdfastApi) ? null : r.holdfastApi.okLatency.p99Ms,
    isSkipped(r.holdfastApi) ? null : formatRatio(ratio(r.holdfastApi.okPerSec, r.minimalExpress.okPerSec)),
    r.expressCpuMsPerRequest,
    r.bareNodeCpuMsPerRequest ?? null,
    r.holdfastCpuMsPerRequest,
    r.holdfastMultiSeat?.okPerSec ?? null,
    r.holdfastMultiSeat?.okLatency.p99Ms ?? null,
  ]);
  return [
    '',
    `## Hold path against the limits (${hold.concurrency} concurrent clients, median of ${hold.rounds.length} interleaved rounds)`,
    '',
    markdownTable(
      ['path', 'requests', 'ok/s', 'p50 ms', 'p99 ms', 'server CPU ms/req', 'throughput vs Express', 'p99 vs Express', 'CPU/req vs Express', 'throughput vs redis-benchmark'],
      rows,
    ),
    ...(bare && !isSkipped(hold.holdfastApi)
      ? ['', `holdfast against the bare \`node:http\` server (the one-process limit): throughput ${formatRatio(hold.ratios.holdfastVsBareNodeThroughput ?? null)}, ` +
          `p99 ${formatRatio(hold.ratios.holdfastVsBareNodeP99 ?? null)}, server CPU per request ${formatRatio(hold.ratios.holdfastVsBareNodeCpuPerRequest ?? null)} (medians of the per-round ratios).`]
      : []),
    ...cpuByProcessLines(hold, report.meta.cpus),
    ...holdWarmUpLines(hold.warmUp, hold.concurrency),
    ...(hold.nodeFlags
      ? ['', `Node flags: holdfast's API \`${hold.nodeFlags.holdfastApi.join(' ') || '(none)'}\` (from \`npm start\`); every baseline server \`${hold.nodeFlags.baselines.join(' ') || '(none)'}\`.`]
      : []),
    ...((hold.byConcurrency ?? []).length > 0
      ? ['', 'Hold p99 (and ok/s) against concurrency, one run per server and level after the rounds:', '',
          markdownTable(['concurrent clients', 'holdfast p99 ms', 'bare node p99 ms', 'Express p99 ms', 'holdfast ok/s', 'bare node ok/s', 'Express ok/s', 'holdfast p99 ÷ bare node'],
            (hold.byConcurrency ?? []).map((p): Cell[] => [p.concurrency, p.holdfast.p99Ms, p.bareNode.p99Ms, p.minimalExpress.p99Ms,
              p.holdfast.okPerSec, p.bareNode.okPerSec, p.minimalExpress.okPerSec, formatRatio(ratio(p.holdfast.p99Ms, p.bareNode.p99Ms))]))]
      : []),
    ...notRun([['holdfast `POST /v1/events/{id}/holds`', isSkipped(hold.holdfastApi) ? hold.holdfastApi.skipped : null]]),
    ...failures(
      hold.rounds.map((r, index): [string, string[]] => [
        `hold round ${index + 1}`,
        [...r.minimalExpress.failureSamples, ...(isSkipped(r.holdfastApi) ? [] : r.holdfastApi.failureSamples), ...(r.holdfastMultiSeat?.failureSamples ?? [])],
      ]),
    ),
    '',
    markdownTable(
      ['round', 'redis-benchmark/s', 'Express ok/s', 'Express p99 ms', 'bare node ok/s', 'bare node p99 ms', 'holdfast ok/s', 'holdfast p99 ms', 'holdfast vs Express',
        'Express CPU ms/req', 'bare node CPU ms/req', 'holdfast CPU ms/req',
        `holdfast ${hold.multiSeatHold ?? '–'} seats ok/s`, `holdfast ${hold.multiSeatHold ?? '–'} seats p99 ms`],
      perRound,
    ),
  ];
}

/** The CPU per request of the processes a run used, summed (the machine's busy time also counts neighbours). */
function processesSum(c: MachineCpuPerRequest): number {
  return round4(c.server + (c.redis ?? 0) + (c.postgres ?? 0) + c.client);
}

/**
 * Each server's CPU per request in every process its run used: on a machine of
 * few cores a closed loop is bound by their sum, not by the server alone.
 */
function cpuByProcessLines(hold: HoldPathReport, cores: number): string[] {
  const by = hold.cpuByProcess;
  if (!by) return [];
  const servers: Array<[string, MachineCpuPerRequest | null]> = [
    ['minimal Express 5', by.minimalExpress],
    ['bare `node:http`', by.bareNode],
    ['holdfast, one seat a hold', by.holdfastApi],
    [`holdfast, ${hold.multiSeatHold ?? '–'} seats a hold`, by.holdfastMultiSeat],
  ];
  const rows = servers
    .filter((entry): entry is [string, MachineCpuPerRequest] => entry[1] !== null)
    .map(([name, c]): Cell[] => {
      const sum = processesSum(c);
      return [name, c.server, c.redis, c.postgres, c.client, sum, c.machine, sum > 0 ? Math.round((cores * 1000) / sum) : null];
    });
  if (rows.length === 0) return [];
  return ['', 'CPU milliseconds per request in every process a run used (median of the rounds; warm-up requests included, as in the server\'s column above; ' +
    'PostgreSQL is its shared processes and the sessions on holdfast\'s database). ' +
    `A closed loop on this ${cores}-core machine can go no faster than its cores divided by the CPU a request costs its processes (the last column). ` +
    'The whole machine\'s busy time also counts the kernel\'s share not charged to a process, and anything else running.', '',
    markdownTable(['server', 'server process', 'Redis', 'PostgreSQL', 'client (the bench)', 'sum of these', 'whole machine', 'ceiling from the sum, requests/s'], rows),
    ...(hold.ratios.holdfastVsBareNodeMachineCpuPerRequest != null
      ? ['', `holdfast ÷ bare node, the whole machine's CPU per request: ${formatRatio(hold.ratios.holdfastVsBareNodeMachineCpuPerRequest)} (median of the per-round ratios).` +
          leanApiCeiling(by.holdfastApi, by.bareNode, cores)]
      : [])];
}

/**
 * What the rest of a hold's work allows: the ceiling from the processes' sum
 * were holdfast's API process no dearer a request than the bare server's,
 * against the bare server's own.
 */
function leanApiCeiling(h: MachineCpuPerRequest | null, b: MachineCpuPerRequest | null, cores: number): string {
  if (!h || !b) return '';
  const rest = processesSum(h) - h.server;
  const lean = rest + b.server;
  return ` Were holdfast's API process as cheap a request as the bare server (${b.server} ms instead of ${h.server} ms), the rest of a hold's work ` +
    `(${round4(rest)} ms: the hold script in Redis, the outbox's rows in PostgreSQL, the client) would still cap it at ` +
    `${formatNumber(Math.round((cores * 1000) / lean))} holds/s on ${cores} cores: ${formatRatio(processesSum(b) / lean)} the bare server's ceiling.`;
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

function holdWarmUpLines(warmUp: HoldWarmUp | null | undefined, concurrency: number): string[] {
  if (!warmUp) return [];
  const server = (name: string, w: HoldServerWarmUp) => `${name} ${w.rounds} (${w.cpuMsPerRequest.map((ms) => `${ms ?? '?'} ms`).join(', ')})`;
  return ['', `Before the clock, every HTTP server alike (not measured): warm-up rounds of ${formatNumber(warmUp.requestsPerRound)} requests at ` +
    `${concurrency} concurrent clients until the server's CPU per request stopped falling (at most ${warmUp.maxRounds}); rounds and CPU per request in each: ` +
    `${server('minimal Express', warmUp.minimalExpress)}, ${server('bare node', warmUp.bareNode)}, ${server('holdfast', warmUp.holdfastApi)}; ` +
    `each holdfast round then held ${warmUp.holdfastApi.multiSeatHold} seats a request as many times, as its measured rounds do` +
    (warmUp.holdfastApi.firstHoldsOnMeasuredEvents
      ? `; then one hold on each of the ${warmUp.holdfastApi.firstHoldsOnMeasuredEvents} events the clock measures (an event's first hold loads its seat catalog, once per process).`
      : '.')];
}

function growthSection(report: BenchReport): string[] {
  const growth = report.growth;
  if (!growth) return [];
  if (isSkipped(growth)) return ['', '## How cost grows', '', `Not run: ${growth.skipped}.`];
  const base = growth.rows[0];
  const change = (value: number, reference: number | undefined) =>
    reference ? `${value >= reference ? '+' : '-'}${Math.round((Math.abs(value - reference) / reference) * 100)} %` : null;
  const holdRows = growth.rows.map((r): Cell[] => [
    r.events > 1 ? `${formatNumber(r.seats)} (×${r.events} events)` : r.seats,
    r.createSec,
    r.firstHoldMs,
    r.holds.ok,
    r.holds.okPerSec,
    r.holds.p50Ms,
    r.holds.p99Ms,
    change(r.holds.p50Ms, base?.holds.p50Ms),
    change(r.holds.p99Ms, base?.holds.p99Ms),
  ]);
  const seatMapRows = growth.rows.map((r): Cell[] => [
    r.seats,
    r.seatMap.ok,
    r.seatMap.okLatency.p50Ms,
    r.seatMap.okLatency.p99Ms,
    formatNumber(r.seatMap.bytes / 1024),
    r.seats > 0 ? formatNumber((r.seatMap.okLatency.p50Ms * 1000) / r.seats) : null,
  ]);
  const out = [
    '',
    '## How cost grows',
    '',
    `Hold latency by event size (one seat per hold, distinct seats, ${report.plan.growth.concurrency} concurrent clients, ` +
      `median of ${report.plan.growth.rounds} rounds that visit the sizes in turn, smallest first and largest first alternately; ` +
      'a size of several events has its holds on one event after another, every event\'s first hold taken before the clock; ' +
      (growth.warmUp
        ? `after ${growth.warmUp.rounds} warm-up rounds of ${formatNumber(growth.warmUp.requestsPerRound)} holds on other events ` +
          `(the API's CPU per hold ${growth.warmUp.cpuMsPerRequest.map((ms) => (ms === null ? '?' : `${ms} ms`)).join(', ')}); `
        : '') +
      `the largest deviation from the smallest event is ${spreadText(growth.p50Spread)} at p50 and ${spreadText(growth.p99Spread)} at p99):`,
    '',
    markdownTable(['seats in event', 'create event s', 'first hold ms (cold)', 'holds', 'holds/s', 'p50 ms', 'p99 ms', 'p50 vs smallest', 'p99 vs smallest'], holdRows),
    '',
    'Seat map `GET /v1/events/{id}/seats` by seat count (one client, sequential requests):',
    '',
    markdownTable(['seats', 'requests', 'p50 ms', 'p99 ms', 'response KiB', 'µs per seat (p50)'], seatMapRows),
  ];
  const http = growth.httpCreate;
  if (http) {
    out.push(
      '',
      `Creating an event of ${formatNumber(http.seats)} seats through \`POST /v1/admin/events\` (one request, body sent to \`201\` read; ` +
        'the seats written to PostgreSQL and the event primed in Redis), its seats listed or given as a layout:',
      '',
      markdownTable(
        ['seats given as', 'request body KiB', 'create event s'],
        [
          ['a `seats` list', formatNumber(http.asList.bodyBytes / 1024), http.asList.sec],
          ['a `layout` (sections × rows × seats per row)', formatNumber(http.asLayout.bodyBytes / 1024), http.asLayout.sec],
        ],
      ),
    );
  }
  if (isSkipped(growth.memory)) {
    out.push('', `Redis memory per held seat: not measured (${growth.memory.skipped}).`);
  } else {
    const m = growth.memory;
    out.push(
      '',
      'Redis memory per held seat: the event\'s own keys (`MEMORY USAGE … SAMPLES 0` over `{ev:<id>}*`), and `INFO memory` `used_memory` (server-wide, so other clients are noise):',
      '',
      markdownTable(
        ['held seats', 'event keys before', 'event keys after', 'bytes per held seat (event keys)', 'used_memory delta per held seat', 'keys per hold'],
        [[m.heldSeats, m.eventKeyBytesBefore, m.eventKeyBytesAfter, m.eventKeyBytesPerHeldSeat, m.bytesPerHeldSeat, m.keysPerHold]],
      ),
    );
  }
  return out;
}

function confirmSection(report: BenchReport): string[] {
  const confirm = report.confirmPath;
  if (!confirm) return [];
  const pg = confirm.pgbench;
  const checks = confirm.rounds
    .map((r) => `${r.pgbench.failed} failed, ${r.pgbench.distinctOrderNumbers}/${r.pgbench.ordersCommitted} distinct order numbers`)
    .join('; ');
  const rows: Cell[][] = [
    ['pgbench, confirm-shaped transaction', pg.requests, pg.okPerSec, pg.p50Ms, pg.p99Ms, null, formatRatio(1)],
  ];
  if (isSkipped(confirm.holdfastApi)) {
    rows.push(['holdfast `POST /v1/holds/{id}/confirm` (not run)', null, null, null, null, null, null]);
  } else {
    const api = confirm.holdfastApi;
    rows.push([
      api.failed > 0 ? `holdfast \`POST /v1/holds/{id}/confirm\` (${api.failed} not 201, see below)` : 'holdfast `POST /v1/holds/{id}/confirm`',
      api.requests,
      api.okPerSec,
      api.p50Ms,
      api.p99Ms,
      api.serverCpuMsPerRequest,
      formatRatio(confirm.holdfastVsPgbench),
    ]);
  }
  const perRound = confirm.rounds.map((r, index): Cell[] => [
    index + 1,
    r.pgbench.tps,
    r.pgbench.latency.p99Ms,
    isSkipped(r.holdfastApi) ? null : r.holdfastApi.confirms.okPerSec,
    isSkipped(r.holdfastApi) ? null : r.holdfastApi.confirms.okLatency.p99Ms,
    isSkipped(r.holdfastApi) ? null : `${r.holdfastApi.distinctOrderNumbers}/${r.holdfastApi.ordersCommitted}`,
    isSkipped(r.holdfastApi) ? null : formatRatio(ratio(r.holdfastApi.confirms.okPerSec, r.pgbench.tps)),
    isSkipped(r.holdfastApi) || !r.holdfastApi.lockWaits ? null : `${r.holdfastApi.lockWaits.mean} / ${r.holdfastApi.lockWaits.max}`,
  ]);
  const out = [
    '',
    `## Confirm path against the limits (${confirm.concurrency} concurrent confirms of distinct holds, median of ${confirm.rounds.length} interleaved rounds)`,
    '',
    markdownTable(['path', 'confirms', 'confirms/s', 'p50 ms', 'p99 ms', 'API CPU ms/confirm', 'vs pgbench'], rows),
    ...notRun([['holdfast `POST /v1/holds/{id}/confirm`', isSkipped(confirm.holdfastApi) ? confirm.holdfastApi.skipped : null]]),
    ...(confirm.warmUp
      ? ['', `Before the clock, both sides alike (not measured): ${confirm.warmUp.rounds} warm-up round(s) of ${formatNumber(confirm.warmUp.confirms)} confirms ` +
          `through the API, its CPU per confirm in each: ${confirm.warmUp.apiCpuMsPerConfirm.map((ms) => `${ms ?? '?'} ms`).join(', ')} ` +
          `(they stop once it no longer falls); then ${confirm.warmUp.pgbenchBatchRuns} run(s) of pgbench's batch script.`]
      : []),
    '',
    `pgbench checks per round: ${checks}.`,
    '',
    markdownTable(
      ['round', 'pgbench tps', 'pgbench p99 ms', 'holdfast confirms/s', 'holdfast p99 ms', 'holdfast distinct numbers/orders', 'holdfast vs pgbench',
        'sessions waiting on a lock (mean / max)'],
      perRound,
    ),
  ];
  out.push(
    ...failures(
      confirm.rounds.map((r, index): [string, string[]] => [
        `confirm round ${index + 1}`,
        isSkipped(r.holdfastApi) ? [] : r.holdfastApi.confirms.failureSamples,
      ]),
    ),
  );
  if (!isSkipped(confirm.byBuyers)) {
    out.push(
      '',
      `Confirm throughput as the buyers of one event grow (each buyer holds one seat, then ${confirm.concurrency} clients confirm them all):`,
      '',
      markdownTable(
        ['buyers in event', 'confirmed (201)', 'confirms/s', 'p50 ms', 'p99 ms', 'orders committed', 'distinct order numbers'],
        confirm.byBuyers.map((r): Cell[] => [
          r.buyers,
          r.confirms.stoppedBy === 'time' ? `${formatNumber(r.confirms.ok)} (time limit)` : r.confirms.ok,
          r.confirms.okPerSec,
          r.confirms.okLatency.p50Ms,
          r.confirms.okLatency.p99Ms,
          r.ordersCommitted,
          r.distinctOrderNumbers,
        ]),
      ),
      ...failures(confirm.byBuyers.map((r): [string, string[]] => [`${r.buyers} buyers`, r.confirms.failureSamples])),
    );
  }
  if (confirm.inProcess) {
    const p = confirm.inProcess;
    out.push(
      '',
      `The use-case alone: \`confirmHold\` called in the bench process (no HTTP, no auth; its own confirm batcher and pool), ${p.concurrency} concurrent callers:`,
      '',
      markdownTable(
        ['confirms', 'confirms/s', 'p50 ms', 'p99 ms', 'max ms', 'sessions waiting on a lock (mean / max)'],
        [[p.confirms, p.okPerSec, p.latency.p50Ms, p.latency.p99Ms, p.latency.maxMs, p.lockWaits ? `${p.lockWaits.mean} / ${p.lockWaits.max}` : null]],
      ),
    );
  }
  if (confirm.numbering?.length) {
    out.push(
      '',
      'Order numbering: pgbench on holdfast\'s own tables, one confirm a transaction (lock the hold, sell the seat, order, item, payment, hold), ' +
        'the number taken last from the per-year row (gap-free, row locked until COMMIT) or from a sequence (no lock, gaps allowed):',
      '',
      markdownTable(
        ['numbering', 'clients', 'transactions', 'tps', 'latency avg ms', 'failed', 'distinct numbers'],
        confirm.numbering.map((r): Cell[] => [r.numbering === 'year-row' ? 'per-year row' : 'sequence', r.clients, r.transactions, r.tps, r.latencyAvgMs, r.failed, r.distinctNumbers]),
      ),
    );
  }
  return out;
}

function bestSection(report: BenchReport): string[] {
  const best = report.best;
  if (!best) return [];
  const plan = report.plan.best;
  const levels = best.levels.map((l): Cell[] => [
    l.concurrency,
    l.byIdAlonePerSec,
    l.bestAlonePerSec,
    formatRatio(l.throughputRatio),
    l.byIdCpuMs,
    l.bestCpuMs,
    l.byId.p50Ms,
    l.best.p50Ms,
    l.byId.p99Ms,
    l.best.p99Ms,
    formatRatio(l.p99Ratio),
    l.p99Ratio === null ? '–' : l.p99Ratio <= 1.2 ? 'met' : 'missed',
  ]);
  const scripts = best.scripts.map((t): Cell[] => [
    `${t.takenPct} %`, t.quantity, t.calls, t.p50Us, t.p99Us, t.maxUs, t.clientP50Us, t.quantity > 1 ? `${t.sideBySide}/${t.calls}` : '–',
  ]);
  const m = best.memory;
  return [
    '',
    '## Best available',
    '',
    `Holds through the API at each number of connections. Latency: one load per round in which every connection alternates a hold of ` +
      `one given seat (\`{"seatIds": [id]}\`, distinct seats) and a best-available hold (\`{"tier": "standard", "quantity": 1}\`, ` +
      `another event of the same size), ${plan.requests} of each measured after ${plan.warmupRequests} of each, so both meet the same ` +
      `moment's load. Throughput: then each path alone (${Math.floor(plan.requests / 2)} holds, which goes first alternating by round). ` +
      `Every load starts once the API has persisted the previous one's holds. ${plan.rounds} rounds visit the levels in turn; medians of ` +
      'the rounds, and the median of the per-round ratios. Target: best available p99 ≤ 1.2 × by seat id.',
    '',
    markdownTable(
      ['connections', 'by id holds/s (alone)', 'best holds/s (alone)', 'best/by id holds/s', 'by id API CPU ms/hold', 'best API CPU ms/hold', 'by id p50 ms', 'best p50 ms', 'by id p99 ms', 'best p99 ms',
        'best/by id p99', 'p99 ≤ 1.2×'],
      levels,
    ),
    ...failures(best.levels.map((l): [string, string[]] => [`${l.concurrency} connections`, l.failureSamples])),
    '',
    `The script alone (\`hold-best-12.lua\`) on a ${best.tierSeats.toLocaleString('en-US')}-seat tier (sections of 100 rows × 100 seats, ` +
      'one price), taken seats chosen at random, each hold undone before the next call; its own time from `SLOWLOG` on a private ' +
      'redis-server (µs), and the round trip the client saw:',
    '',
    markdownTable(['taken', 'quantity', 'calls', 'script p50 µs', 'script p99 µs', 'script max µs', 'round trip p50 µs', 'side by side'], scripts),
    '',
    `For comparison, \`hold-seats-11.lua\` holding one given seat on the same tier: p50 ${best.byIdScript.p50Us} µs, p99 ${best.byIdScript.p99Us} µs, ` +
      `max ${best.byIdScript.maxUs} µs (${best.byIdScript.calls} calls).`,
    '',
    `Redis memory of the structure (\`MEMORY USAGE … SAMPLES 0\`, every seat free): free set ${m.freeSetBytes.toLocaleString('en-US')} bytes, ` +
      `seat index ${m.seatIndexBytes.toLocaleString('en-US')} bytes: **${m.bytesPerSeat} bytes per seat** (${m.seats.toLocaleString('en-US')} seats).`,
  ];
}

function targetsSection(report: BenchReport): string[] {
  const rows: Cell[][] = [];
  const hold = report.holdPath;
  if (hold && !isSkipped(hold.holdfastApi)) {
    rows.push(target('hold throughput ≥ 0.9 × minimal Express', hold.ratios.holdfastVsExpressThroughput, (v) => v >= 0.9));
    rows.push(target('hold p99 ≤ 1.5 × minimal Express', hold.ratios.holdfastVsExpressP99, (v) => v <= 1.5));
  }
  const confirm = report.confirmPath;
  if (confirm && !isSkipped(confirm.holdfastApi)) {
    rows.push(target('confirm ≥ 0.5 × pgbench', confirm.holdfastVsPgbench, (v) => v >= 0.5));
  }
  const growth = report.growth;
  if (growth && !isSkipped(growth) && growth.p50Spread !== null) {
    rows.push([
      'hold latency within ±20 % from 1,000 to 100,000 seats (largest p50 / p99 deviation)',
      `${spreadText(growth.p50Spread)} / ${spreadText(growth.p99Spread)}`,
      (growth.p50Spread ?? 0) <= 0.2 && (growth.p99Spread ?? 0) <= 0.2 ? 'met' : 'missed',
    ]);
  }
  // Issue 31's targets, by the stable ratios the --out JSON carries (report/bench-json.format.ts).
  const stable = stableRatios(report);
  const r31 = stable.holdPath.ratios;
  if (hold && !isSkipped(hold.holdfastApi) && r31.holdfastVsBareNodeThroughput !== null) {
    rows.push(target('hold throughput ≥ 0.65 × bare node:http (aim 0.8×)', r31.holdfastVsBareNodeThroughput, (v) => v >= 0.65));
    rows.push(target('hold p99 ≤ 1.5 × bare node:http', r31.holdfastVsBareNodeP99, (v) => v <= 1.5));
    rows.push(target('hold throughput ≥ 1.0 × minimal Express, equal node flags', r31.holdfastVsExpressThroughput, (v) => v >= 1));
  }
  if (stable.raceLab.holdfastVsSkipLocked !== null) {
    const spread = report.raceLab?.pairs?.ratio;
    rows.push(target(
      spread ? `race lab: purchases/s ≥ 1.0 × SKIP LOCKED (median of ${spread.values.length} pairs, spread ${formatRatio(spread.min)}–${formatRatio(spread.max)})` : 'race lab: purchases/s ≥ 1.0 × SKIP LOCKED',
      stable.raceLab.holdfastVsSkipLocked, (v) => v >= 1));
  }
  if (stable.confirmPath.holdfastVsPgbenchBatch !== null) {
    rows.push(target('confirms/s ≥ 0.6 × pgbench, batch-shaped transactions', stable.confirmPath.holdfastVsPgbenchBatch, (v) => v >= 0.6));
  }
  const soak = report.soak;
  if (soak && soak.ended.bytesPerEndedHoldAfterHour !== null) {
    const bytes = soak.ended.bytesPerEndedHoldAfterHour;
    const left = soak.ended.unfinished;
    rows.push(['Redis ≤ 200 bytes per ended hold an hour after the sale (soak, from the TTLs)', `${bytes} bytes`,
      left ? `not judged: ${left.activeRecordsInRedis} holds not ended yet` : bytes <= 200 ? 'met' : 'missed']);
  }
  if (rows.length === 0) return [];
  return ['', '## Targets (issues 7 and 31)', '', markdownTable(['target', 'measured', 'verdict'], rows)];
}

function target(label: string, value: number | null, ok: (value: number) => boolean): Cell[] {
  return [label, formatRatio(value), value === null ? '–' : ok(value) ? 'met' : 'missed'];
}

function spreadText(value: number | null): string {
  return value === null ? '–' : `±${Math.round(value * 100)} %`;
}

/** Footnotes for rows that did not run, so the reason is never lost in a table cell. */
function notRun(entries: Array<[string, string | null]>): string[] {
  const lines = entries.filter(([, reason]) => reason).map(([title, reason]) => `- ${title}: not run (${reason}).`);
  return lines.length > 0 ? ['', ...lines] : [];
}

function ms(value: number): string {
  return `${formatNumber(value)} ms`;
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
  const hold = report.holdPath;
  if (hold) {
    const bars = [
      { label: 'redis-benchmark SET NX EX', value: hold.redisBenchmark.okPerSec, note: `p99 ${ms(hold.redisBenchmark.p99Ms)}` },
      { label: 'minimal Express + SET NX EX', value: hold.minimalExpress.okPerSec, note: `p99 ${ms(hold.minimalExpress.p99Ms)}` },
    ];
    if (hold.bareNode) bars.push({ label: 'bare node:http + SET NX EX', value: hold.bareNode.okPerSec, note: `p99 ${ms(hold.bareNode.p99Ms)}` });
    if (!isSkipped(hold.holdfastApi)) {
      bars.push({
        label: 'holdfast POST holds',
        value: hold.holdfastApi.okPerSec,
        note: `p99 ${ms(hold.holdfastApi.p99Ms)} · ${formatRatio(hold.ratios.holdfastVsExpressThroughput)} Express`,
      });
    }
    panels.push({ title: `Hold path: requests per second at ${hold.concurrency} concurrent clients (median of rounds)`, unit: '/s', bars });
    const sweep = hold.byConcurrency ?? [];
    if (sweep.length > 0) {
      panels.push({
        title: 'Hold p99 against concurrency',
        unit: 'ms',
        bars: [],
        lines: {
          xLabel: 'concurrent clients',
          xs: sweep.map((p) => p.concurrency),
          series: [
            { label: 'holdfast POST holds', values: sweep.map((p) => p.holdfast.p99Ms) },
            { label: 'bare node:http', values: sweep.map((p) => p.bareNode.p99Ms) },
            { label: 'minimal Express', values: sweep.map((p) => p.minimalExpress.p99Ms) },
          ],
        },
      });
    }
  }
  const growth = report.growth;
  if (growth && !isSkipped(growth)) {
    panels.push({
      title: 'Hold latency by event size (p50, with p99 in the note)',
      unit: 'ms',
      bars: growth.rows.map((r) => ({
        label: `${r.seats.toLocaleString('en-US')} seats`,
        value: r.holds.p50Ms,
        note: `p99 ${ms(r.holds.p99Ms)}`,
      })),
    });
    panels.push({
      title: 'Seat map response time by seat count (p50)',
      unit: 'ms',
      bars: growth.rows.map((r) => ({
        label: `${r.seats.toLocaleString('en-US')} seats`,
        value: r.seatMap.okLatency.p50Ms,
        note: `${formatNumber(r.seatMap.bytes / 1024)} KiB`,
      })),
    });
  }
  const confirm = report.confirmPath;
  if (confirm) {
    const bars = [{ label: 'pgbench confirm-shaped tx', value: confirm.pgbench.okPerSec, note: `p99 ${ms(confirm.pgbench.p99Ms)}` }];
    if (!isSkipped(confirm.holdfastApi)) {
      bars.push({
        label: 'holdfast POST confirm',
        value: confirm.holdfastApi.okPerSec,
        note: `p99 ${ms(confirm.holdfastApi.p99Ms)} · ${formatRatio(confirm.holdfastVsPgbench)} pgbench`,
      });
    }
    panels.push({ title: `Confirm path: confirms per second at ${confirm.concurrency} concurrent clients`, unit: '/s', bars });
  }
  const { meta } = report;
  return renderBarChart(
    `holdfast bench (${meta.mode})`,
    `${meta.startedAt} · ${meta.cpus} cores · PostgreSQL ${meta.postgres} · Redis ${meta.redis} · commit ${meta.gitCommit ?? 'unknown'}`,
    panels,
  );
}
