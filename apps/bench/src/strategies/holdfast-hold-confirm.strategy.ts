import type { ChildServer } from '../baselines/child-server.launcher';
import type { HoldfastFixture } from '../holdfast/holdfast.fixture';
import { createHttpClient, type HttpClient } from '../http-load.generator';
import type { PurchaseOutcome, SaleStrategy } from '../race-lab.types';

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
 * minutes (docs/benchmarks.md, issue 12, fourth pass).
 */
const WARM_UP_TICKETS_PER_CLIENT = 20;

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
 * by V8) runs a warm-up sale of its own on a throwaway event, through the
 * same requests (hold, confirm, sold out), and every client opens its
 * keep-alive connection with the event's page (`GET /v1/events/{id}`, what a
 * buyer reads before buying). Every purchase of the measured sale still does
 * all of its work: the hold script, the outbox, the fenced confirm.
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
  /** A sale of the same shape on its own event, before the clock: V8 compiles the paths the sale takes. */
  const warmUp = async (concurrency: number): Promise<void> => {
    const tickets = concurrency * WARM_UP_TICKETS_PER_CLIENT;
    const buyers = tickets * 2;
    const event = await deps.fixture.createEvent({ name: 'bench race lab warm-up', seats: 0, ticketCapacity: tickets, maxTicketsPerCustomer: 1 });
    try {
      const sale = { eventId: event.eventId, ticketTypeId: event.ticketTypeId ?? '' };
      const warmTokens = Array.from({ length: buyers }, (_, i) => deps.fixture.customerToken(`race-warm-${event.eventId.slice(0, 8)}-${i}`));
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          const http = createHttpClient(deps.api.baseUrl);
          try {
            while (next < buyers) {
              const buyer = next++;
              await purchase(http, sale, warmTokens[buyer]!, buyer);
            }
          } finally {
            http.close();
          }
        }),
      );
    } finally {
      await deps.fixture.dropEvent(event.eventId);
    }
  };
  return {
    id: 'holdfast',
    title: 'holdfast: Redis hold, then fenced confirm',
    fenced: true,
    async prepare({ sale }) {
      const event = await deps.fixture.createEvent({ name: 'bench race lab', seats: 0, ticketCapacity: sale.tickets, maxTicketsPerCustomer: 1 });
      if (!event.ticketTypeId) throw new Error('the race-lab event has no ticket type');
      eventId = event.eventId;
      ticketTypeId = event.ticketTypeId;
      // One customer per buyer, as in a real flash sale; tokens signed before the clock starts.
      tokens = Array.from({ length: sale.buyers + 1 }, (_, buyerId) => deps.fixture.customerToken(`race-buyer-${buyerId}`));
      await warmUp(sale.concurrency);
    },
    async openClient() {
      const http = createHttpClient(deps.api.baseUrl);
      // The connection is open (and the event's page read) before the clock starts, as the SQL strategies' are.
      const page = await http.send({ method: 'GET', path: `/v1/events/${eventId}` });
      if (page.status !== 200) throw new Error(`event page answered ${page.status}`);
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
