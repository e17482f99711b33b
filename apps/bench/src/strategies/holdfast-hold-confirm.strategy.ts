import type { ChildServer } from '../baselines/child-server.launcher';
import { batchesBetween, readBatchMetric, type BatchCount } from '../holdfast/holdfast-confirm-batch.bench';
import type { HoldfastFixture } from '../holdfast/holdfast.fixture';
import { createHttpClient, type HttpClient } from '../http-load.generator';
import { round3 } from '../latency.histogram';
import { processCpuMs } from '../process-cpu.probe';
import type { PurchaseOutcome, SaleStrategy, WarmUpReport } from '../race-lab.types';

interface HoldfastStrategyDeps {
  fixture: HoldfastFixture;
  api: ChildServer;
}

/**
 * Warm-up tickets per concurrent client (twice as many buyers: half buy, half
 * are told sold out). At 2 (200 buyers at 50 clients) the API's hot paths had
 * not reached V8's optimizing compiler when the clock started: the same commit
 * read 0.44-0.48x SKIP LOCKED with it and 0.52-0.56x with 20 (2,000 buyers, about
 * 3,000 requests, as many as the hold path's warm-up), alternated in the same
 * minutes (`git show 5aa269b:docs/benchmarks.md`, issue 12, fourth pass).
 */
const WARM_UP_TICKETS_PER_CLIENT = 20;

/**
 * Warm-up sales (each of the size above) at most before the clock. They go on
 * until V8 has settled: until a sale's API CPU per request is no more than
 * WARM_UP_SETTLED below the best of the sales before it. One sale was not
 * enough: V8 was still compiling the paths (TurboFan, on a background thread
 * of the API process) through the measured sale and several after it, the
 * API's CPU per request falling from about 0.35 to 0.14 ms over ten quick-sized sales
 * after it, and the purchase rate rising from about 800 to 1,300 a second
 * (`git show aba00ee:docs/benchmarks.md`, issue 12, seventh pass). The SQL strategies run on a
 * PostgreSQL server long up, and SKIP LOCKED, paired with holdfast, gets warm-up sales of its own
 * (race-lab.runner.ts, MAX_SALES_WARM_UP); this measures holdfast's API the same way, in its
 * steady state. The lab runs it once, before holdfast's first measured sale.
 */
const MAX_WARM_UP_SALES = 6;
const WARM_UP_SETTLED = 0.08;

/**
 * Whether V8 has settled after these warm-up sales (the API's CPU per request
 * in each, in order): there were two or more, and the last is no more than
 * `within` below the best of those before it.
 */
export function warmUpSettled(cpuMsPerRequest: readonly number[], within = WARM_UP_SETTLED): boolean {
  if (cpuMsPerRequest.length < 2) return false;
  const last = cpuMsPerRequest[cpuMsPerRequest.length - 1]!;
  return last >= Math.min(...cpuMsPerRequest.slice(0, -1)) * (1 - within);
}

/**
 * holdfast's own path, through its real HTTP API: the buyer holds one
 * general-admission ticket (`POST /v1/events/{id}/holds`, a Redis script takes
 * it or answers SOLD_OUT), then the payment side confirms the hold
 * (`POST /v1/holds/{id}/confirm`, the fenced PostgreSQL transaction). Sold is
 * counted from the committed orders of the event.
 *
 * Measured like the SQL strategies: they run against a PostgreSQL server that
 * has long been up, over connections opened before the clock starts. So before
 * the clock, the API process (started a moment ago, its code not yet compiled
 * by V8) runs warm-up sales of its own on throwaway events, until V8 has
 * settled (MAX_WARM_UP_SALES; the report gives the sales and their CPU per
 * request). Every sale, warm-up or measured, runs the same requests in the
 * same order: its clients open their keep-alive connections one after another,
 * each with the event's page (`GET /v1/events/{id}`, what a buyer reads before
 * buying), then buy (hold, confirm, sold out). When only the measured sale read
 * the page, those 50 reads came right before the clock and were the first of
 * their kind the API saw: they changed the type feedback of the HTTP functions
 * every request shares, and V8 recompiled some 30 of them during the measured
 * sale, which cost about 1.5x the API CPU of the same sale run again
 * (`git show 76d546f:docs/benchmarks.md`, issue 12, eighth pass). Every purchase of the measured
 * sale still does all of its work: the hold script, the outbox, the fenced
 * confirm.
 */
export function holdfastHoldConfirmStrategy(deps: HoldfastStrategyDeps): SaleStrategy {
  let eventId = '';
  let ticketTypeId = '';
  let tokens: string[] = [];
  const serviceToken = deps.fixture.serviceToken();
  const purchase = async (http: HttpClient, sale: { eventId: string; ticketTypeId: string }, token: string, buyerId: number): Promise<PurchaseOutcome> => {
    const hold = await http.send({
      method: 'POST',
      path: `/v1/events/${sale.eventId}/holds`,
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ ticketTypeId: sale.ticketTypeId, quantity: 1 }),
    });
    if (hold.status === 409) {
      const code = errorCode(hold.body);
      if (code === 'SOLD_OUT') return { kind: 'sold_out' };
      throw new Error(`hold answered 409 ${code}`);
    }
    if (hold.status !== 201) throw new Error(`hold answered ${hold.status}: ${hold.body.toString().slice(0, 200)}`);
    const holdId = (JSON.parse(hold.body.toString()) as { hold: { id: string } }).hold.id;
    const confirm = await http.send({
      method: 'POST',
      path: `/v1/holds/${holdId}/confirm`,
      headers: { authorization: `Bearer ${serviceToken}` },
      body: JSON.stringify({ paymentReference: `race-${sale.eventId.slice(0, 8)}-${buyerId}` }),
    });
    if (confirm.status === 201 || confirm.status === 200) return { kind: 'bought' };
    throw new Error(`confirm answered ${confirm.status}: ${confirm.body.toString().slice(0, 200)}`);
  };
  /** A buyer's keep-alive connection, opened with the event's page (what a buyer reads before buying). */
  const openSaleConnection = async (saleEventId: string): Promise<HttpClient> => {
    const http = createHttpClient(deps.api.baseUrl);
    const page = await http.send({ method: 'GET', path: `/v1/events/${saleEventId}` });
    if (page.status !== 200) {
      http.close();
      throw new Error(`event page answered ${page.status}`);
    }
    return http;
  };
  /** A sale of the same shape on its own event, before the clock: V8 compiles the paths the sale takes. Returns the requests it sent. */
  const warmUpSale = async (concurrency: number): Promise<number> => {
    const tickets = concurrency * WARM_UP_TICKETS_PER_CLIENT;
    const buyers = tickets * 2;
    const event = await deps.fixture.createEvent({ name: 'bench race lab warm-up', seats: 0, ticketCapacity: tickets, maxTicketsPerCustomer: 1 });
    try {
      const sale = { eventId: event.eventId, ticketTypeId: event.ticketTypeId ?? '' };
      const warmTokens = Array.from({ length: buyers }, (_, i) => deps.fixture.customerToken(`race-warm-${event.eventId.slice(0, 8)}-${i}`));
      // Opened one after another, as the race lab opens the measured sale's clients.
      const connections: HttpClient[] = [];
      let next = 0;
      let bought = 0;
      try {
        for (let i = 0; i < concurrency; i++) connections.push(await openSaleConnection(sale.eventId));
        await Promise.all(
          connections.map(async (http) => {
            while (next < buyers) {
              const buyer = next++;
              if ((await purchase(http, sale, warmTokens[buyer]!, buyer)).kind === 'bought') bought++;
            }
          }),
        );
      } finally {
        for (const http of connections) http.close();
      }
      // Every client read the event's page, every buyer sent a hold, every one who bought a confirm.
      return concurrency + buyers + bought;
    } finally {
      await deps.fixture.dropEvent(event.eventId);
    }
  };
  /** Warm-up sales until the API's CPU per request stops falling (see MAX_WARM_UP_SALES). */
  const warmUp = async (concurrency: number): Promise<WarmUpReport> => {
    const cpuMsPerRequest: number[] = [];
    for (let i = 0; i < MAX_WARM_UP_SALES; i++) {
      const before = await processCpuMs(deps.api.pid);
      const requests = await warmUpSale(concurrency);
      const after = await processCpuMs(deps.api.pid);
      // Without /proc there is nothing to tell settling by: one sale, as it was.
      if (before === null || after === null) break;
      cpuMsPerRequest.push(round3((after - before) / requests));
      if (warmUpSettled(cpuMsPerRequest)) break;
    }
    return { sales: Math.max(1, cpuMsPerRequest.length), apiCpuMsPerRequest: cpuMsPerRequest };
  };
  // The API's confirm-batch totals before the sale (read at the end of prepare, before the clock),
  // and the sale's batches once it settled.
  let batchesBefore: BatchCount | null = null;
  return {
    id: 'holdfast',
    title: 'holdfast: Redis hold, then fenced confirm',
    fenced: true,
    async prepare({ sale }) {
      // Every sale on an event of its own (the lab calls prepare before each).
      const event = await deps.fixture.createEvent({ name: 'bench race lab', seats: 0, ticketCapacity: sale.tickets, maxTicketsPerCustomer: 1 });
      if (!event.ticketTypeId) throw new Error('the race-lab event has no ticket type');
      eventId = event.eventId;
      ticketTypeId = event.ticketTypeId;
      // One customer per buyer, as in a real flash sale; tokens signed before the clock starts
      // (once: the same buyers come to every sale, each sale's event allows each one ticket).
      if (tokens.length !== sale.buyers + 1) {
        tokens = Array.from({ length: sale.buyers + 1 }, (_, buyerId) => deps.fixture.customerToken(`race-buyer-${buyerId}`));
      }
      batchesBefore = await readBatchMetric(deps.api);
    },
    // Run by the lab once, before the first measured sale.
    warmUp: ({ sale }) => warmUp(sale.concurrency),
    // The holds the API persists from its outbox after answering are part of what the sale cost it:
    // the CPU is read until they are done (and the next sale, of either strategy, starts after them).
    settle: () => deps.fixture.outboxDrained(eventId),
    // Read after the sale's CPU window (the metrics request is not the sale's work).
    confirmBatches: async () => {
      const sale = batchesBetween(batchesBefore, await readBatchMetric(deps.api));
      return sale && { batches: sale.batches, meanSize: sale.batches > 0 ? sale.meanSize : null, statementMs: round3(sale.statementSeconds * 1000) };
    },
    async openClient() {
      // The connection is open (and the event's page read) before the clock starts, as the SQL strategies' are.
      const http = await openSaleConnection(eventId);
      const sale = { eventId, ticketTypeId };
      return {
        purchase: (buyerId) => purchase(http, sale, tokens[buyerId]!, buyerId),
        async close() {
          http.close();
        },
      };
    },
    async tally() {
      const rows = await deps.fixture.db.$queryRaw<{ orders: bigint; tickets: bigint | null; counter: number | null }[]>`
        SELECT (SELECT count(*) FROM orders WHERE event_id = ${eventId}::uuid) AS orders,
               (SELECT sum(i.quantity) FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.event_id = ${eventId}::uuid) AS tickets,
               (SELECT sold FROM ticket_types WHERE id = ${ticketTypeId}::uuid) AS counter`;
      const row = rows[0];
      return { sold: Number(row?.tickets ?? 0), counterSays: row?.counter ?? undefined };
    },
    async cleanup() {
      if (eventId) await deps.fixture.dropEvent(eventId);
    },
  };
}

function errorCode(body: Buffer): string {
  try {
    return (JSON.parse(body.toString()) as { error?: { code?: string } }).error?.code ?? 'unknown';
  } catch {
    return 'unparseable';
  }
}
