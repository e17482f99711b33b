/**
 * The v1 API for the pages: @holdfast/client (generated from the API's OpenAPI
 * document) with the page's token, same origin, and the server's clock read
 * from every answer. A refusal throws HoldfastError with the documented code.
 */
import { createHoldfastClient, HoldfastError, type HoldfastClientOptions, type paths } from '@holdfast/client';
import { observeServerTime } from './clock';
import type { EventInput, EventPatch, HoldRequest } from './types';

export { HoldfastError };

/** A state of the page's own purchase flow that is not an API answer (the demo payment's). */
export class PurchaseError extends Error {
  constructor(
    readonly code: 'PAYMENT_PENDING' | 'DEMO_PAY_UNAVAILABLE',
    message: string,
  ) {
    super(message);
    this.name = 'PurchaseError';
  }
}

/** Supplies the bearer token; `renew` is called once after a 401. */
export interface TokenProvider {
  token(): Promise<string>;
  renew(): Promise<string>;
}

/** One page of a list endpoint. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

type QueryOf<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;

/** The list filters as the pages hold them: an empty string means no filter. */
function filters<Q>(query: Record<string, string | undefined>): Q {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v)) as Q;
}

/** Same-origin calls; every answer's Date header is a reading of the server's clock (clock.ts). */
const observingFetch = async (request: Request): Promise<Response> => {
  const sentAt = Date.now();
  const response = await fetch(request);
  const date = response.headers.get('Date');
  if (date) observeServerTime(Date.parse(date), 1000, sentAt, Date.now());
  return response;
};

/** The page's own origin (read when a client is made, so this module loads outside a browser too). */
const base = (): Pick<HoldfastClientOptions, 'baseUrl' | 'fetch' | 'retry'> => ({
  baseUrl: location.origin,
  fetch: observingFetch,
  // A short Retry-After is waited out; a long one is shown to the buyer instead of a spinner.
  retry: { maxRetries: 2, maxDelaySeconds: 5 },
});

/** Asks for a demo token; `null` when the server is not in demo mode (404). */
export async function requestDemoToken(customerId: string, role: 'customer' | 'admin'): Promise<string | null> {
  try {
    return (await createHoldfastClient(base()).POST('/v1/auth/demo-token', { body: { customerId, role } })).token;
  } catch (error) {
    if (error instanceof HoldfastError && error.status === 404) return null;
    throw error;
  }
}

export function createApi(tokens: TokenProvider) {
  const client = createHoldfastClient({ ...base(), getToken: ({ refresh }) => (refresh ? tokens.renew() : tokens.token()) });
  const { GET, POST, PATCH, DELETE } = client;

  return {
    client,
    listEvents: async () => (await GET('/v1/events', { params: { query: { limit: 1000 } } })).events,
    getEvent: (eventId: string) => client.getEvent(eventId),
    listSeats: (eventId: string) => client.listSeats(eventId),
    /** `queuePass`: the waiting room's pass, while the event has one. */
    createHold: async (eventId: string, request: HoldRequest, queuePass?: string) => {
      const sentAt = Date.now();
      const hold = await client.hold(eventId, request, queuePass ? { queuePass } : undefined).catch((e: unknown) => {
        // SALES_CLOSED carries the server's time of the refusal, to the millisecond.
        const serverTime = e instanceof HoldfastError ? (e.details as { serverTime?: unknown } | undefined)?.serverTime : undefined;
        if (typeof serverTime === 'string') observeServerTime(Date.parse(serverTime), 1, sentAt, Date.now());
        throw e;
      });
      // The hold was created while this request was under way: a precise reading of the server's clock.
      observeServerTime(Date.parse(hold.createdAt), 1, sentAt, Date.now());
      return hold;
    },
    getHold: (holdId: string) => client.getHold(holdId),
    /** The waiting list of a sold-out tier or ticket type (join, the buyer's entries, leave). */
    joinWaitlist: async (eventId: string, request: { tier: string; quantity: number } | { ticketTypeId: string; quantity: number }) =>
      (await POST('/v1/events/{eventId}/waitlist', { params: { path: { eventId } }, body: request })).entry,
    myWaitlist: async (eventId: string) =>
      (await GET('/v1/events/{eventId}/waitlist/me', { params: { path: { eventId } } })).entries,
    leaveWaitlist: async (eventId: string, entryId: string) =>
      (await DELETE('/v1/events/{eventId}/waitlist/{entryId}', { params: { path: { eventId, entryId } } })).entry,
    joinQueue: (eventId: string, nonce?: string) => client.joinQueue(eventId, nonce),
    queueStanding: (eventId: string) => client.queueStanding(eventId),
    /** The token's subject: the customer a proof of work is made for. */
    customerId: async () => {
      const payload = (await tokens.token()).split('.')[1] ?? '';
      const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
      return String((JSON.parse(json) as { sub?: unknown }).sub ?? '');
    },
    extendHold: (holdId: string) => client.extendHold(holdId),
    releaseHold: (holdId: string) => client.releaseHold(holdId),
    /** Demo mode only: the API signs a payment_intent.succeeded event and delivers it to its own webhook. */
    demoPay: async (holdId: string) =>
      (await POST('/v1/demo/holds/{holdId}/pay', { params: { path: { holdId } } }) as { order?: Awaited<ReturnType<typeof client.getOrder>> } | undefined)?.order,
    getOrder: (orderId: string) => client.getOrder(orderId),

    adminHolds: async (query: { eventId?: string; status?: string; cursor?: string }) => {
      const body = await GET('/v1/admin/holds', { params: { query: filters<QueryOf<'/v1/admin/holds'>>(query) } });
      return { items: body.holds, nextCursor: body.nextCursor };
    },
    adminReleaseHold: async (holdId: string, reason: string) =>
      (await DELETE('/v1/admin/holds/{holdId}', { params: { path: { holdId } }, body: { reason } })).hold,
    adminPayments: async (query: { status?: string; cursor?: string }) => {
      const body = await GET('/v1/admin/payments', { params: { query: filters<QueryOf<'/v1/admin/payments'>>(query) } });
      return { items: body.payments, nextCursor: body.nextCursor };
    },
    adminCreateEvent: async (input: EventInput) => (await POST('/v1/admin/events', { body: input })).event,
    adminUpdateEvent: async (eventId: string, patch: EventPatch) =>
      (await PATCH('/v1/admin/events/{eventId}', { params: { path: { eventId } }, body: patch })).event,
    adminQueue: (eventId: string) => GET('/v1/admin/events/{eventId}/queue', { params: { path: { eventId } } }),
    adminUpdateQueue: (eventId: string, patch: { paused?: boolean; admitPerMinute?: number; maxActive?: number }) =>
      PATCH('/v1/admin/events/{eventId}/queue', { params: { path: { eventId } }, body: patch }),
    adminWaitlist: async (eventId: string) =>
      (await GET('/v1/admin/events/{eventId}/waitlist', { params: { path: { eventId } } })).entries,
    adminRemoveWaitlistEntry: async (eventId: string, entryId: string, reason: string) =>
      (await DELETE('/v1/admin/events/{eventId}/waitlist/{entryId}', { params: { path: { eventId, entryId } }, body: { reason } })).entry,
    adminSales: async (eventId: string) =>
      (await GET('/v1/admin/events/{eventId}/sales', { params: { path: { eventId } } })).sales,
    adminOrders: async (query: { eventId?: string; q?: string; cursor?: string }) => {
      const body = await GET('/v1/admin/orders', { params: { query: filters<QueryOf<'/v1/admin/orders'>>(query) } });
      return { items: body.orders, nextCursor: body.nextCursor };
    },
    adminMarkRefunded: async (paymentId: string, note: string) =>
      (await POST('/v1/admin/payments/{paymentId}/refund', { params: { path: { paymentId } }, body: { note } })).payment,
    /** Trades the token for the queue dashboard's cookie; answers the dashboard's address. */
    adminQueuesSession: async () => (await POST('/v1/admin/queues/session')).url,
    adminAudit: async (query: { eventId?: string; cursor?: string }) => {
      const body = await GET('/v1/admin/audit', { params: { query: filters<QueryOf<'/v1/admin/audit'>>(query) } });
      return { items: body.entries, nextCursor: body.nextCursor };
    },
  };
}

export type Api = ReturnType<typeof createApi>;
