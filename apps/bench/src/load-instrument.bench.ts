import autocannon from 'autocannon';

import { launchBaseline } from './baselines/baseline-servers';
import type { ChildServer } from './baselines/child-server.launcher';
import { deleteKeys } from './bench-redis.service';
import { SeatCursor } from './holdfast/holdfast-holds.bench';
import type { HoldfastFixture } from './holdfast/holdfast.fixture';
import { runHttpLoad, type LoadRequest } from './http-load.generator';
import { LogBucketHistogram, round3 } from './latency.histogram';
import { markdownTable, type Cell } from './report/markdown-table.format';
import { processCpuMs } from './process-cpu.probe';

/** The plan's `instrument` part. */
export interface InstrumentOptions {
  rounds: number;
  /** Per client, server and round. */
  requests: number;
  warmupRequests: number;
  concurrency: number;
}

export type LoadClient = 'own' | 'autocannon';

/** One client against one server in one round. */
export interface InstrumentRun {
  client: LoadClient;
  server: 'bareNode' | 'holdfast';
  ok: number;
  okPerSec: number;
  p99Ms: number;
  /** The load client's own CPU (the bench process) per request, microseconds. */
  clientCpuUsPerRequest: number;
  serverCpuMsPerRequest: number | null;
  /** The own client's requests' p50 and p99 by HdrHistogram (the bench's histogram, latency.histogram.ts) and by the former log buckets, same samples. */
  hdr?: { p50Ms: number; p99Ms: number };
  ownHistogram?: { p50Ms: number; p99Ms: number };
}

export interface InstrumentReport {
  concurrency: number;
  runs: Array<InstrumentRun & { round: number }>;
  /** Per client: holdfast ÷ bare node, median over rounds and the spread (max − min) of the per-round values. */
  ratios: Record<LoadClient, { throughput: { median: number | null; spread: number | null }; p99: { median: number | null; spread: number | null } }>;
  clientCpuUsPerRequest: Record<LoadClient, number | null>;
  /** Largest relative difference of HdrHistogram's p99 from the former log buckets', over the own client's runs. */
  histogramP99Difference: number | null;
  decisions: { loadGenerator: string; histogram: string };
}

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** autocannon sending the same requests (one builder per index), `amount` of them, with its own connections. */
async function autocannonLoad(baseUrl: string, concurrency: number, amount: number, make: (index: number) => LoadRequest, offset: number) {
  let next = offset;
  const last = offset + amount - 1; // autocannon may set up a request more than it sends: never past the range reserved
  // autocannon ends an `amount` run on its next one-second tick, so its duration is whole seconds: the run's
  // own time is taken here, from the call to the last answer.
  let lastAnswer = 0;
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: baseUrl,
      connections: concurrency,
      amount,
      timeout: 30,
      requests: [{
        setupRequest: (request) => {
          const r = make(Math.min(next++, last));
          return { ...request, method: r.method as 'POST', path: r.path, headers: { ...r.headers, 'content-type': 'application/json' }, body: r.body };
        },
      }],
    }, (error, done) => (error ? reject(error as Error) : resolve(done)));
    instance.on('response', () => {
      lastAnswer = performance.now();
    });
  });
  const ok = result['2xx'];
  return { ok, okPerSec: round3((ok / Math.max(1, lastAnswer - started)) * 1000), p99Ms: result.latency.p99 };
}

/**
 * The instrument itself: the bench's own load generator (http-load.generator.ts,
 * http-connection.client.ts, latency.histogram.ts) against autocannon, on the
 * same servers (the bare node:http baseline and holdfast's API) in the same
 * rounds, alternating which goes first. Reports each client's CPU per request
 * (both run in the bench process), and holdfast ÷ bare node as each client
 * measures it with the spread of the rounds: a library is adopted unless it
 * moves a ratio by more than that spread. The own client's latencies are also
 * recorded in HdrHistogram, and the two histograms' p99 compared.
 */
export async function instrumentSection(
  fixture: HoldfastFixture, api: ChildServer, redisUrl: string, options: InstrumentOptions, log: (line: string) => void,
): Promise<InstrumentReport> {
  const { rounds, requests, warmupRequests, concurrency } = options;
  const perClient = requests + warmupRequests;
  const seats = rounds * 2 * perClient;
  log(`instrument: a ${seats}-seat event; own load generator and autocannon, ${rounds} rounds of ${requests} requests each, ${concurrency} connections`);
  const event = await fixture.createEvent({ name: 'bench instrument', seats });
  const cursor = new SeatCursor(event, fixture, 'instrument');
  const prefix = `bench:inst:${process.pid}:`;
  const bare = await launchBaseline('bareNode', { BENCH_REDIS_URL: redisUrl, BENCH_KEY_PREFIX: prefix });
  const runs: Array<InstrumentRun & { round: number }> = [];
  let bareSeat = 0;
  try {
    for (let round = 1; round <= rounds; round += 1) {
      const order: LoadClient[] = round % 2 === 1 ? ['own', 'autocannon'] : ['autocannon', 'own'];
      for (const client of order) {
        for (const server of ['bareNode', 'holdfast'] as const) {
          const target = server === 'bareNode' ? bare : api;
          const make: (index: number) => LoadRequest = server === 'holdfast'
            ? cursor.take(perClient)
            : ((base) => (index: number) => ({ method: 'POST', path: '/hold', body: JSON.stringify({ seatId: `seat-${base + index}`, customerId: `c-${Math.floor((base + index) / 50)}` }) }))(bareSeat);
          if (server === 'bareNode') bareSeat += perClient;
          const serverBefore = await processCpuMs(target.pid);
          let run: InstrumentRun;
          if (client === 'own') {
            const logHist = new LogBucketHistogram();
            const before = cpuUs();
            const r = await runHttpLoad({
              baseUrl: target.baseUrl, concurrency, maxRequests: requests, warmupRequests, maxDurationMs: 120_000, makeRequest: make,
              onLatency: (ms, ok) => { if (ok) logHist.record(ms); },
            });
            const clientUs = cpuUs() - before;
            const logSummary = logHist.summary();
            run = {
              client, server, ok: r.ok, okPerSec: r.okPerSec, p99Ms: r.okLatency.p99Ms,
              clientCpuUsPerRequest: round3(clientUs / perClient), serverCpuMsPerRequest: null,
              hdr: { p50Ms: r.okLatency.p50Ms, p99Ms: r.okLatency.p99Ms }, ownHistogram: { p50Ms: logSummary.p50Ms, p99Ms: logSummary.p99Ms },
            };
          } else {
            const before = cpuUs();
            await autocannonLoad(target.baseUrl, concurrency, warmupRequests, make, 0);
            const r = await autocannonLoad(target.baseUrl, concurrency, requests, make, warmupRequests);
            const clientUs = cpuUs() - before;
            run = { client, server, ok: r.ok, okPerSec: r.okPerSec, p99Ms: r.p99Ms, clientCpuUsPerRequest: round3(clientUs / perClient), serverCpuMsPerRequest: null };
          }
          const serverAfter = await processCpuMs(target.pid);
          run.serverCpuMsPerRequest = serverBefore !== null && serverAfter !== null ? round3((serverAfter - serverBefore) / perClient) : null;
          if (run.ok < requests * 0.95) log(`  ${client} → ${server}: only ${run.ok} of ${requests} answered 2xx`);
          log(`  round ${round}, ${client} → ${server}: ${Math.round(run.okPerSec)}/s p99 ${run.p99Ms} ms, client CPU ${run.clientCpuUsPerRequest} µs/req, server ${run.serverCpuMsPerRequest} ms/req`);
          runs.push({ ...run, round });
        }
      }
    }
  } finally {
    await bare.stop();
    await deleteKeys(redisUrl, `${prefix}*`);
    await fixture.dropEvent(event.eventId);
  }
  return summariseInstrument(concurrency, runs);
}

function medianOf(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return round3(s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2);
}

const spreadOf = (values: number[]) => (values.length > 1 ? round3(Math.max(...values) - Math.min(...values)) : null);

export function summariseInstrument(concurrency: number, runs: Array<InstrumentRun & { round: number }>): InstrumentReport {
  const ratiosOf = (client: LoadClient, pick: (r: InstrumentRun) => number) => {
    const perRound: number[] = [];
    for (const round of new Set(runs.map((r) => r.round))) {
      const h = runs.find((r) => r.round === round && r.client === client && r.server === 'holdfast');
      const b = runs.find((r) => r.round === round && r.client === client && r.server === 'bareNode');
      if (h && b && pick(b) > 0) perRound.push(pick(h) / pick(b));
    }
    return { median: medianOf(perRound), spread: spreadOf(perRound) };
  };
  const ratios = {
    own: { throughput: ratiosOf('own', (r) => r.okPerSec), p99: ratiosOf('own', (r) => r.p99Ms) },
    autocannon: { throughput: ratiosOf('autocannon', (r) => r.okPerSec), p99: ratiosOf('autocannon', (r) => r.p99Ms) },
  };
  const clientCpuUsPerRequest = {
    own: medianOf(runs.filter((r) => r.client === 'own').map((r) => r.clientCpuUsPerRequest)),
    autocannon: medianOf(runs.filter((r) => r.client === 'autocannon').map((r) => r.clientCpuUsPerRequest)),
  };
  const hdrDiffs = runs.filter((r) => r.hdr && r.ownHistogram && r.ownHistogram.p99Ms > 0)
    .map((r) => Math.abs(r.hdr!.p99Ms - r.ownHistogram!.p99Ms) / r.ownHistogram!.p99Ms);
  const histogramP99Difference = hdrDiffs.length ? round3(Math.max(...hdrDiffs)) : null;
  const logP99Ratio = ratiosOf('own', (r) => r.ownHistogram?.p99Ms ?? 0);
  // A library is adopted unless it moves a ratio by more than the runs' own spread (the own client's rounds).
  const moved = (kind: 'throughput' | 'p99') => {
    const a = ratios.autocannon[kind].median;
    const o = ratios.own[kind].median;
    const spread = ratios.own[kind].spread;
    return a === null || o === null || spread === null ? null : { by: round3(Math.abs(a - o)), spread, beyond: Math.abs(a - o) > spread };
  };
  const t = moved('throughput');
  const p = moved('p99');
  const cpuText = clientCpuUsPerRequest.own && clientCpuUsPerRequest.autocannon
    ? `autocannon costs ${round3(clientCpuUsPerRequest.autocannon / clientCpuUsPerRequest.own)}× the own client's CPU per request (${clientCpuUsPerRequest.autocannon} against ${clientCpuUsPerRequest.own} µs)`
    : 'client CPU not measured';
  const movedText = (name: string, m: { by: number; spread: number; beyond: boolean }) =>
    `${name} by ${m.by} (${m.beyond ? 'more than' : 'within'} the rounds' spread ${m.spread})`;
  const loadGenerator = !t || !p
    ? `used: the own load generator (too few rounds here for a spread to decide); ${cpuText}`
    : t.beyond || p.beyond
      ? `used: the own load generator, because autocannon moves holdfast ÷ bare node ${movedText('throughput', t)} and ${movedText('p99', p)}; ` +
        `${cpuText}, CPU it takes from the servers on a machine whose cores they share`
      : `used: the own load generator; in this run autocannon agrees with it (holdfast ÷ bare node ${movedText('throughput', t)}, ${movedText('p99', p)}), ` +
        `so either would do by that rule, and the own one stays for its CPU: ${cpuText}`;
  const logMoved = logP99Ratio.median !== null && ratios.own.p99.median !== null ? round3(Math.abs(logP99Ratio.median - ratios.own.p99.median)) : null;
  const histogram = histogramP99Difference === null || logMoved === null
    ? 'not compared'
    : `HdrHistogram used (latency.histogram.ts): on the same samples its p99 is within ${round3(histogramP99Difference * 100)} % of the former log buckets', ` +
      `and holdfast ÷ bare node p99 moves by ${logMoved} between the two (the rounds' spread: ${ratios.own.p99.spread ?? '–'}, ` +
      `${ratios.own.p99.spread !== null && logMoved > ratios.own.p99.spread ? 'more than the spread: check before trusting either' : 'within it'})`;
  return { concurrency, runs, ratios, clientCpuUsPerRequest, histogramP99Difference, decisions: { loadGenerator, histogram } };
}

export function renderInstrumentSection(report: InstrumentReport | null | undefined): string[] {
  if (!report) return [];
  const rows: Cell[][] = report.runs.map((r) => [
    r.round, r.client, r.server, r.okPerSec, r.p99Ms, r.clientCpuUsPerRequest, r.serverCpuMsPerRequest, r.ownHistogram?.p99Ms ?? null,
  ]);
  const ratio = (c: LoadClient) => report.ratios[c];
  return [
    '',
    `## Instrument: the bench's own load generator against autocannon (${report.concurrency} connections, same servers, same rounds)`,
    '',
    markdownTable(['round', 'client', 'server', 'ok/s', 'p99 ms', 'client CPU µs/req', 'server CPU ms/req', 'former log-bucket p99 ms (same samples)'], rows),
    '',
    markdownTable(['client', 'holdfast ÷ bare node throughput (median, spread)', 'holdfast ÷ bare node p99 (median, spread)', 'client CPU µs/req'], (['own', 'autocannon'] as const).map((c) => [
      c, `${ratio(c).throughput.median ?? '–'} (±${ratio(c).throughput.spread ?? '–'})`, `${ratio(c).p99.median ?? '–'} (±${ratio(c).p99.spread ?? '–'})`, report.clientCpuUsPerRequest[c],
    ])),
    '',
    `- Load generator: ${report.decisions.loadGenerator}.`,
    `- Histogram: ${report.decisions.histogram}.`,
    '- autocannon reports latency in whole milliseconds; the own client records microseconds.',
  ];
}
