import type { ChildServer } from '../baselines/child-server.launcher';
import type { HoldfastFixture } from '../holdfast/holdfast.fixture';
import { createHttpClient } from '../http-load.generator';
import type { PurchaseOutcome, SaleStrategy } from '../race-lab.types';

export interface HoldfastStrategyDeps {
  fixture: HoldfastFixture;
  api: ChildServer;
}

/**
 * holdfast's own path, through its real HTTP API: the buyer holds one
 * general-admission ticket (`POST /v1/events/{id}/holds`, a Redis script takes
 * it or answers SOLD_OUT), then the payment side confirms the hold
 * (`POST /v1/holds/{id}/confirm`, the fenced PostgreSQL transaction). Sold is
 * counted from the committed orders of the event.
 */
export function holdfastHoldConfirmStrategy(deps: HoldfastStrategyDeps): SaleStrategy {
  let eventId = '';
  let ticketTypeId = '';
  let tokens: string[] = [];
  const serviceToken = deps.fixture.serviceToken();
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
    },
    async openClient() {
      const http = createHttpClient(deps.api.baseUrl);
      return {
        async purchase(buyerId): Promise<PurchaseOutcome> {
          const hold = await http.send({
            method: 'POST',
            path: `/v1/events/${eventId}/holds`,
            headers: { authorization: `Bearer ${tokens[buyerId]}` },
            body: JSON.stringify({ ticketTypeId, quantity: 1 }),
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
            body: JSON.stringify({ paymentReference: `race-${buyerId}` }),
          });
          if (confirm.status === 201 || confirm.status === 200) return { kind: 'bought' };
          throw new Error(`confirm answered ${confirm.status}: ${confirm.body.toString().slice(0, 200)}`);
        },
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
