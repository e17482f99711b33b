/** The v1 API client: same-origin fetch, bearer token, contract error bodies. */
import { observeServerTime } from './clock';
import { randomId } from './format';
import type { AuditEntry, ErrorBody, Event, EventInput, EventPatch, Hold, HoldRequest, Order, Payment, Sales, Seat } from './types';

/** A failed call: the contract's error code, or NETWORK_ERROR / HTTP_<status> when the body is not one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
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

type Query = Record<string, string | undefined>;

function withQuery(path: string, query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value) params.set(key, value);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = (body as { error: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}

async function send(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<unknown> {
  const init: RequestInit = { method, headers: { Accept: 'application/json', ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
  }
  const sentAt = Date.now();
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'The server could not be reached.');
  }
  const date = response.headers.get('Date');
  if (date) observeServerTime(Date.parse(date), 1000, sentAt, Date.now());
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (response.ok) return parsed;
  const retryAfter = Number(response.headers.get('Retry-After'));
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
  if (isErrorBody(parsed)) {
    const { code, message, details } = parsed.error;
    throw new ApiError(response.status, code, message, details, retryAfterSeconds);
  }
  throw new ApiError(response.status, `HTTP_${response.status}`, `The server answered ${response.status}.`);
}

/** Asks for a demo token; `null` when the server is not in demo mode (404). */
export async function requestDemoToken(customerId: string, role: 'customer' | 'admin'): Promise<string | null> {
  try {
    const body = (await send('POST', '/v1/auth/demo-token', { customerId, role }, {})) as { token: string };
    return body.token;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

export function createApi(tokens: TokenProvider) {
  async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const attempt = async (token: string) =>
      (await send(method, path, body, { ...headers, Authorization: `Bearer ${token}` })) as T;
    try {
      return await attempt(await tokens.token());
    } catch (error) {
      if (error instanceof ApiError && error.code === 'UNAUTHORIZED') return attempt(await tokens.renew());
      throw error;
    }
  }

  async function page<K extends string, T>(key: K, path: string, query: Query): Promise<Page<T>> {
    const body = await call<Record<K, T[]> & { nextCursor: string | null }>('GET', withQuery(path, query));
    return { items: body[key], nextCursor: body.nextCursor };
  }

  return {
    listEvents: async () => (await call<{ events: Event[] }>('GET', '/v1/events?limit=1000')).events,
    getEvent: async (eventId: string) =>
      (await call<{ event: Event }>('GET', `/v1/events/${encodeURIComponent(eventId)}`)).event,
    listSeats: async (eventId: string) =>
      (await call<{ seats: Seat[] }>('GET', `/v1/events/${encodeURIComponent(eventId)}/seats`)).seats,
    createHold: async (eventId: string, request: HoldRequest) => {
      const sentAt = Date.now();
      const { hold } = await call<{ hold: Hold }>('POST', `/v1/events/${encodeURIComponent(eventId)}/holds`, request, {
        'Idempotency-Key': randomId(),
      }).catch((e: unknown) => {
        // SALES_CLOSED carries the server's time of the refusal, to the millisecond.
        const serverTime = e instanceof ApiError ? (e.details as { serverTime?: unknown } | undefined)?.serverTime : undefined;
        if (typeof serverTime === 'string') observeServerTime(Date.parse(serverTime), 1, sentAt, Date.now());
        throw e;
      });
      // The hold was created while this request was under way: a precise reading of the server's clock.
      observeServerTime(Date.parse(hold.createdAt), 1, sentAt, Date.now());
      return hold;
    },
    getHold: async (holdId: string) =>
      (await call<{ hold: Hold }>('GET', `/v1/holds/${encodeURIComponent(holdId)}`)).hold,
    extendHold: async (holdId: string) =>
      (await call<{ hold: Hold }>('POST', `/v1/holds/${encodeURIComponent(holdId)}/extend`)).hold,
    releaseHold: async (holdId: string) =>
      (await call<{ hold: Hold }>('DELETE', `/v1/holds/${encodeURIComponent(holdId)}`)).hold,
    /** Demo mode only: the API signs a payment_intent.succeeded event and delivers it to its own webhook. */
    demoPay: async (holdId: string) =>
      (await call<{ order?: Order } | undefined>('POST', `/v1/demo/holds/${encodeURIComponent(holdId)}/pay`))?.order,
    getOrder: async (orderId: string) =>
      (await call<{ order: Order }>('GET', `/v1/orders/${encodeURIComponent(orderId)}`)).order,

    adminHolds: (query: { eventId?: string; status?: string; cursor?: string }) =>
      page<'holds', Hold>('holds', '/v1/admin/holds', query),
    adminReleaseHold: async (holdId: string, reason: string) =>
      (await call<{ hold: Hold }>('DELETE', `/v1/admin/holds/${encodeURIComponent(holdId)}`, { reason })).hold,
    adminPayments: (query: { status?: string; cursor?: string }) =>
      page<'payments', Payment>('payments', '/v1/admin/payments', query),
    adminCreateEvent: async (input: EventInput) => (await call<{ event: Event }>('POST', '/v1/admin/events', input)).event,
    adminUpdateEvent: async (eventId: string, patch: EventPatch) =>
      (await call<{ event: Event }>('PATCH', `/v1/admin/events/${encodeURIComponent(eventId)}`, patch)).event,
    adminSales: async (eventId: string) =>
      (await call<{ sales: Sales }>('GET', `/v1/admin/events/${encodeURIComponent(eventId)}/sales`)).sales,
    adminOrders: (query: { eventId?: string; q?: string; cursor?: string }) =>
      page<'orders', Order>('orders', '/v1/admin/orders', query),
    adminMarkRefunded: async (paymentId: string, note: string) =>
      (await call<{ payment: Payment }>('POST', `/v1/admin/payments/${encodeURIComponent(paymentId)}/refund`, { note })).payment,
    /** Trades the token for the queue dashboard's cookie; answers the dashboard's address. */
    adminQueuesSession: async () => (await call<{ url: string }>('POST', '/v1/admin/queues/session')).url,
    adminAudit: (query: { eventId?: string; cursor?: string }) =>
      page<'entries', AuditEntry>('entries', '/v1/admin/audit', query),
  };
}

export type Api = ReturnType<typeof createApi>;
