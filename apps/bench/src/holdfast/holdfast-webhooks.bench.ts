/**
 * Issue 30: what a webhook receiver that never answers costs holds and confirms. The API and a
 * worker process run as usual; the same hold-then-confirm load runs with no endpoint registered,
 * with one endpoint (every event type) whose receiver answers 200 at once, and with one whose
 * receiver accepts connections and never answers, interleaved round by round. Hanging against
 * answering is what a dead receiver costs; answering against none is what webhooks cost at all
 * (the event and delivery rows the confirm and release transactions write, and the worker's
 * deliveries on the same cores).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ChildServer } from '../baselines/child-server.launcher';
import { runHttpLoad, type HttpLoadResult } from '../http-load.generator';
import { round3 } from '../latency.histogram';
import { markdownTable, type Cell } from '../report/markdown-table.format';
import { SeatCursor } from './holdfast-holds.bench';
import type { HoldfastFixture } from './holdfast.fixture';

export interface WebhookCostOptions {
  concurrency: number;
  /** Holds (then confirms) per run. */
  holds: number;
  /** Rounds of (no receiver, answering receiver, hanging receiver). */
  rounds: number;
  maxDurationMs: number;
}

type Mode = 'none' | 'answering' | 'hanging';
const MODES: readonly Mode[] = ['none', 'answering', 'hanging'];

export interface WebhookCostRun {
  round: number;
  receiver: Mode;
  holds: HttpLoadResult;
  confirms: HttpLoadResult;
  /** Deliveries recorded for the run's endpoint (0 without one). */
  deliveries: number;
  /** Requests the hanging receiver had accepted (and never answered) by the run's end. */
  receiverRequests: number;
}

interface Side {
  holdP99Ms: number;
  confirmP99Ms: number;
  holdOkPerSec: number;
  confirmOkPerSec: number;
}

export interface WebhookCostReport {
  concurrency: number;
  holdsPerRun: number;
  runs: WebhookCostRun[];
  none: Side;
  answering: Side;
  hanging: Side;
  /** hanging ÷ none, medians of the rounds. */
  holdP99Ratio: number | null;
  confirmP99Ratio: number | null;
  /** hanging ÷ answering: what the receiver's hanging itself costs. */
  holdP99VsAnswering: number | null;
  confirmP99VsAnswering: number | null;
}

/**
 * A receiver on loopback: `hanging` accepts every request and never answers (its sockets are
 * destroyed at close); otherwise it reads the body and answers 200 at once.
 */
async function receiverOf(hanging: boolean): Promise<{ url: string; requests(): number; close(): Promise<void> }> {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    requests += 1;
    if (hanging) return;
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${hanging ? 'hang' : 'answer'}`,
    requests: () => requests,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

async function holdsThenConfirms(api: ChildServer, fixture: HoldfastFixture, options: WebhookCostOptions, label: string) {
  const event = await fixture.createEvent({ name: `bench webhooks ${label}`, seats: options.holds });
  try {
    const cursor = new SeatCursor(event, fixture, `webhooks-${label}`);
    const holdIds: string[] = [];
    const holds = await runHttpLoad({
      baseUrl: api.baseUrl, concurrency: options.concurrency, maxRequests: options.holds, maxDurationMs: options.maxDurationMs,
      makeRequest: cursor.take(options.holds),
      isOk: (status) => status === 201,
      onResponse: (_index, status, body) => {
        if (status === 201) holdIds.push((JSON.parse(body.toString()) as { hold: { id: string } }).hold.id);
      },
    });
    const serviceToken = fixture.serviceToken();
    const confirms = await runHttpLoad({
      baseUrl: api.baseUrl, concurrency: options.concurrency, maxRequests: holdIds.length, maxDurationMs: options.maxDurationMs,
      makeRequest: (index) => ({
        method: 'POST', path: `/v1/holds/${holdIds[index]}/confirm`, headers: { authorization: `Bearer ${serviceToken}` },
        body: JSON.stringify({ paymentReference: `bench-webhooks-${label}-${index}` }),
      }),
      isOk: (status) => status === 201,
    });
    return { holds, confirms };
  } finally {
    await fixture.dropEvent(event.eventId);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const m = Math.floor(sorted.length / 2);
  return round3(sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2);
}

function side(runs: WebhookCostRun[]): Side {
  return {
    holdP99Ms: median(runs.map((r) => r.holds.okLatency.p99Ms)),
    confirmP99Ms: median(runs.map((r) => r.confirms.okLatency.p99Ms)),
    holdOkPerSec: median(runs.map((r) => r.holds.okPerSec)),
    confirmOkPerSec: median(runs.map((r) => r.confirms.okPerSec)),
  };
}

/** Runs `fn` while an endpoint subscribed to every event type points at `url`. */
async function withEndpoint<T>(fixture: HoldfastFixture, url: string, fn: () => Promise<T>): Promise<T> {
  const id = randomUUID();
  await fixture.db.$executeRaw`
    INSERT INTO webhook_endpoints (id, url, events, secret, created_by)
    VALUES (${id}::uuid, ${url},
            ARRAY['order.confirmed', 'hold.expired', 'hold.released', 'waitlist.offered', 'waitlist.offer_expired', 'payment.refund_required'],
            ${`whsec_bench_${randomUUID()}`}, 'bench')`;
  try {
    return await fn();
  } finally {
    await fixture.db.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ${id}::uuid`;
  }
}

export async function webhookCostSection(
  api: ChildServer, fixture: HoldfastFixture, options: WebhookCostOptions, log: (line: string) => void,
): Promise<WebhookCostReport> {
  const receiver = await receiverOf(true);
  const answering = await receiverOf(false);
  // The worker may call a receiver on loopback (WEBHOOK_ALLOW_PRIVATE), so its deliveries really hang.
  const worker = await fixture.startWorker({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_DISPATCH_EVERY_MS: '200' });
  const runs: WebhookCostRun[] = [];
  try {
    // Warm-up: the worker must be up and sending (and the receiver holding its requests) before
    // anything is measured; a loaded machine starts it slowly.
    await withEndpoint(fixture, receiver.url, async () => {
      await holdsThenConfirms(api, fixture, { ...options, holds: 50 }, 'warm-up');
      const deadline = Date.now() + 30_000;
      while (receiver.requests() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    });
    log(`webhooks: warm-up done, the receiver holds ${receiver.requests()} request(s) open`);
    for (let round = 1; round <= options.rounds; round += 1) {
      for (const mode of MODES) {
        const endpointId = randomUUID();
        if (mode !== 'none') {
          await fixture.db.$executeRaw`
            INSERT INTO webhook_endpoints (id, url, events, secret, created_by)
            VALUES (${endpointId}::uuid, ${mode === 'hanging' ? receiver.url : answering.url},
                    ARRAY['order.confirmed', 'hold.expired', 'hold.released', 'waitlist.offered', 'waitlist.offer_expired', 'payment.refund_required'],
                    ${`whsec_bench_${randomUUID()}`}, 'bench')`;
        }
        try {
          const { holds, confirms } = await holdsThenConfirms(api, fixture, options, `${mode}-${round}`);
          const [count] = await fixture.db.$queryRaw<{ n: number }[]>`
            SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ${endpointId}::uuid`;
          const run: WebhookCostRun = { round, receiver: mode, holds, confirms, deliveries: count?.n ?? 0, receiverRequests: receiver.requests() };
          runs.push(run);
          log(`webhooks round ${round}, receiver ${mode}: holds p99 ${holds.okLatency.p99Ms} ms (${Math.round(holds.okPerSec)}/s), ` +
            `confirms p99 ${confirms.okLatency.p99Ms} ms (${Math.round(confirms.okPerSec)}/s), ${run.deliveries} deliveries, ${run.receiverRequests} requests hanging`);
        } finally {
          if (mode !== 'none') await fixture.db.$executeRaw`DELETE FROM webhook_endpoints WHERE id = ${endpointId}::uuid`;
        }
      }
    }
    if (runs.some((r) => r.receiver === 'hanging') && receiver.requests() === 0) {
      log(`webhooks: the worker never reached the receiver; its last log lines:\n${worker.log.split('\n').slice(-15).join('\n')}`);
    }
  } finally {
    await worker.signal('SIGKILL');
    await receiver.close();
    await answering.close();
  }
  const none = side(runs.filter((r) => r.receiver === 'none'));
  const answeringSide = side(runs.filter((r) => r.receiver === 'answering'));
  const hanging = side(runs.filter((r) => r.receiver === 'hanging'));
  return {
    concurrency: options.concurrency,
    holdsPerRun: options.holds,
    runs,
    none,
    answering: answeringSide,
    hanging,
    holdP99Ratio: none.holdP99Ms > 0 ? round3(hanging.holdP99Ms / none.holdP99Ms) : null,
    confirmP99Ratio: none.confirmP99Ms > 0 ? round3(hanging.confirmP99Ms / none.confirmP99Ms) : null,
    holdP99VsAnswering: answeringSide.holdP99Ms > 0 ? round3(hanging.holdP99Ms / answeringSide.holdP99Ms) : null,
    confirmP99VsAnswering: answeringSide.confirmP99Ms > 0 ? round3(hanging.confirmP99Ms / answeringSide.confirmP99Ms) : null,
  };
}

export function renderWebhookCostSection(report: WebhookCostReport | null | undefined): string[] {
  if (!report) return [];
  const rows: Cell[][] = report.runs.map((r) => [
    r.round, r.receiver, r.holds.okLatency.p99Ms, Math.round(r.holds.okPerSec), r.confirms.okLatency.p99Ms, Math.round(r.confirms.okPerSec), r.deliveries, r.receiverRequests,
  ]);
  return [
    '',
    `## Webhooks: holds and confirms with no endpoint, a receiver that answers, and one that never answers (${report.concurrency} connections, ${report.holdsPerRun} holds then confirms per run)`,
    '',
    markdownTable(['round', 'receiver', 'hold p99 ms', 'holds ok/s', 'confirm p99 ms', 'confirms ok/s', 'deliveries recorded', 'hanging receiver: requests so far (never answered)'], rows),
    '',
    markdownTable(['', 'hold p99 ms', 'confirm p99 ms', 'holds ok/s', 'confirms ok/s'], [
      ['no endpoint', report.none.holdP99Ms, report.none.confirmP99Ms, report.none.holdOkPerSec, report.none.confirmOkPerSec],
      ['receiver answering 200', report.answering.holdP99Ms, report.answering.confirmP99Ms, report.answering.holdOkPerSec, report.answering.confirmOkPerSec],
      ['hanging receiver', report.hanging.holdP99Ms, report.hanging.confirmP99Ms, report.hanging.holdOkPerSec, report.hanging.confirmOkPerSec],
      ['ratio (hanging ÷ answering): a dead receiver', report.holdP99VsAnswering, report.confirmP99VsAnswering, null, null],
      ['ratio (hanging ÷ none): webhooks at all, receiver dead', report.holdP99Ratio, report.confirmP99Ratio, null, null],
    ]),
  ];
}
