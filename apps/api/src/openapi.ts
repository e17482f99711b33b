import {
  adminAuditQuery, adminHoldsQuery, adminRefundBody, updateEventBody, confirmBody, stripeEventEnvelope, adminOrdersQuery, adminPaymentsQuery, adminReleaseBody, auditEntryObject, createEventBody,
  createHoldBody, demoTokenBody, emptyQuery, errorBody, eventObject, holdItem, holdObject, listQuery, orderObject, paymentObject,
  responses, salesObject, seatObject, z,
} from '@holdfast/contracts';
import type { Role } from './middleware/auth';

type Schema = z.ZodType;
interface Resp { description: string; schema?: Schema; contentType?: string }

/** One documented endpoint. The routers and this table must list the same endpoints (a test walks both). */
export interface RouteDoc {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form: `/v1/holds/{holdId}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  /** Roles that may call it; absent for public endpoints. */
  roles?: Role[];
  query?: z.ZodObject;
  body?: Schema;
  idempotent?: boolean;
  demoOnly?: boolean;
  headers?: { name: string; description: string; required: boolean }[];
  responses: Record<number, Resp>;
}

const err = (description: string): Resp => ({ description, schema: errorBody });
const unauthorized = err('UNAUTHORIZED: no token, a bad signature or an expired token');
const forbidden = err('FORBIDDEN: the role may not call this endpoint');
const invalid = err('VALIDATION_FAILED: `details.fields` names each field and why');
const unavailable = err('SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable');
const overloadedOrUnavailable = err('OVERLOADED (too many confirms waiting; nothing was done, retry after Retry-After seconds), or SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable');
export const ROUTES: RouteDoc[] = [
  { method: 'get', path: '/healthz', operationId: 'health', tag: 'Operations', summary: 'The process runs.', responses: { 200: { description: 'ok', schema: responses.health } } },
  {
    method: 'get', path: '/readyz', operationId: 'ready', tag: 'Operations', summary: 'PostgreSQL and Redis both answer.',
    responses: { 200: { description: 'ready', schema: responses.ready }, 503: err('SERVICE_UNAVAILABLE naming what is down') },
  },
  {
    method: 'get', path: '/metrics', operationId: 'metrics', tag: 'Operations', summary: 'Prometheus text exposition.',
    responses: { 200: { description: 'metrics', contentType: 'text/plain' } },
  },
  {
    method: 'get', path: '/openapi.json', operationId: 'openapi', tag: 'Operations', summary: 'This document (OpenAPI 3.1).',
    responses: { 200: { description: 'the OpenAPI document', contentType: 'application/json' } },
  },
  {
    method: 'get', path: '/docs', operationId: 'docs', tag: 'Operations', summary: 'This document as a readable page.',
    responses: { 200: { description: 'HTML', contentType: 'text/html' } },
  },
  {
    method: 'post', path: '/v1/auth/demo-token', operationId: 'demoToken', tag: 'Auth', demoOnly: true, body: demoTokenBody,
    summary: 'Demo mode only: a signed token for a customer id and role (404 outside demo mode).',
    responses: { 200: { description: 'a token', schema: responses.token }, 400: invalid },
  },
  {
    method: 'post', path: '/v1/admin/events', operationId: 'createEvent', tag: 'Events', roles: ['admin'], body: createEventBody,
    summary: 'Put an event on sale with its seats and ticket types.',
    responses: { 201: { description: 'created', schema: responses.event }, 400: invalid, 401: unauthorized, 403: forbidden, 503: unavailable },
  },
  {
    method: 'patch', path: '/v1/admin/events/{eventId}', operationId: 'updateEvent', tag: 'Events', roles: ['admin'], query: emptyQuery,
    body: updateEventBody,
    summary: 'Change an event\'s settings (name, start, hold time, limits, extensions, sale window and status); seats and ticket types stay as created. Audited.',
    responses: {
      200: { description: 'the event as it is now', schema: responses.event }, 400: invalid, 401: unauthorized, 403: forbidden,
      404: err('EVENT_NOT_FOUND'), 503: unavailable,
    },
  },
  {
    method: 'get', path: '/v1/events', operationId: 'listEvents', tag: 'Events', query: listQuery, summary: 'Events, oldest first.',
    responses: { 200: { description: 'a page of events', schema: responses.events }, 400: invalid, 503: unavailable },
  },
  {
    method: 'get', path: '/v1/events/{eventId}', operationId: 'getEvent', tag: 'Events', query: emptyQuery,
    summary: 'An event with its ticket types and their availability.',
    responses: { 200: { description: 'the event', schema: responses.event }, 404: err('EVENT_NOT_FOUND'), 503: unavailable },
  },
  {
    method: 'get', path: '/v1/events/{eventId}/seats', operationId: 'listSeats', tag: 'Events', query: emptyQuery,
    summary: 'Every seat of the event with its status.',
    responses: { 200: { description: 'the seat map', schema: responses.seats }, 404: err('EVENT_NOT_FOUND'), 503: unavailable },
  },
  {
    method: 'get', path: '/v1/events/{eventId}/stream', operationId: 'streamEvent', tag: 'Events', query: emptyQuery,
    summary: 'Server-Sent Events: `seat` {seatId, status} when a seat changes status, `availability` {ticketTypeId, available} when a ticket type\'s availability changes.',
    responses: {
      200: { description: 'an event stream', contentType: 'text/event-stream' }, 404: err('EVENT_NOT_FOUND'),
      503: err('SERVICE_UNAVAILABLE: Redis (or PostgreSQL) is unavailable; or STREAM_LIMIT_REACHED: too many streams from this address or on the server (Retry-After)'),
    },
  },
  {
    method: 'post', path: '/v1/events/{eventId}/holds', operationId: 'createHold', tag: 'Holds', roles: ['customer'], body: createHoldBody,
    idempotent: true,
    summary: 'Hold seats (by id or best available in a tier) or general-admission tickets for the event\'s hold time.',
    responses: {
      201: { description: 'held', schema: responses.hold }, 400: invalid, 401: unauthorized, 403: forbidden,
      404: err('EVENT_NOT_FOUND, SEAT_NOT_FOUND or TICKET_TYPE_NOT_FOUND'),
      409: err('SEATS_UNAVAILABLE (details.seatIds), SOLD_OUT, SALES_CLOSED (draft or closed, or outside [salesStartAt, salesEndAt): details.salesStatus, salesStartAt, salesEndAt, serverTime), or IDEMPOTENCY_IN_PROGRESS'),
      422: err('LIMIT_EXCEEDED, or IDEMPOTENCY_KEY_REUSED'), 429: err('RATE_LIMITED, with Retry-After'),
      503: err('SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable, or details.reason hold_backlog_full (holds not yet written to PostgreSQL reached HOLD_OUTBOX_MAX_PENDING), with Retry-After'),
    },
  },
  {
    method: 'get', path: '/v1/holds/{holdId}', operationId: 'getHold', tag: 'Holds', roles: ['customer', 'service', 'admin'], query: emptyQuery,
    summary: 'A hold (a customer sees only their own).',
    responses: { 200: { description: 'the hold', schema: responses.hold }, 401: unauthorized, 403: forbidden, 404: err('HOLD_NOT_FOUND'), 503: unavailable },
  },
  {
    method: 'delete', path: '/v1/holds/{holdId}', operationId: 'releaseHold', tag: 'Holds', roles: ['customer'], query: emptyQuery,
    summary: 'The owner releases a hold; its seats and tickets are free at once.',
    responses: {
      200: { description: 'released (or as it was, when already released or expired)', schema: responses.hold }, 401: unauthorized, 403: forbidden,
      404: err('HOLD_NOT_FOUND'), 409: err('HOLD_ALREADY_CONFIRMED'), 503: unavailable,
    },
  },
  {
    method: 'post', path: '/v1/holds/{holdId}/extend', operationId: 'extendHold', tag: 'Holds', roles: ['customer', 'admin'],
    query: emptyQuery,
    summary: 'More time: expiresAt moves to now + the event\'s hold time, at most maxHoldExtensions times and never past createdAt + maxHoldSeconds; every seat key and ticket lease moves together (body empty or `{}`).',
    responses: {
      200: { description: 'extended', schema: responses.hold }, 400: invalid, 401: unauthorized, 403: forbidden,
      404: err('HOLD_NOT_FOUND (also another customer\'s hold)'),
      409: err('HOLD_EXPIRED, HOLD_NOT_ACTIVE (released), HOLD_ALREADY_CONFIRMED, HOLD_EXTENSION_LIMIT (details.maxHoldExtensions), or HOLD_TIME_CAP (details.maxHoldSeconds, expiresAt)'),
      503: unavailable,
    },
  },
  {
    method: 'post', path: '/v1/holds/{holdId}/confirm', operationId: 'confirmHold', tag: 'Confirming', roles: ['service', 'admin'],
    query: emptyQuery, body: confirmBody, idempotent: true,
    summary: 'Turn a hold into an order after the payment was captured elsewhere; a hold becomes at most one order.',
    responses: {
      201: { description: 'the order, created now', schema: responses.order }, 200: { description: 'the order this hold already became', schema: responses.order },
      400: invalid, 401: unauthorized, 403: forbidden, 404: err('HOLD_NOT_FOUND'),
      409: err('HOLD_EXPIRED (its items are gone), HOLD_NOT_ACTIVE (released), or IDEMPOTENCY_IN_PROGRESS'),
      422: err('IDEMPOTENCY_KEY_REUSED'), 503: overloadedOrUnavailable,
    },
  },
  {
    method: 'post', path: '/v1/webhooks/stripe', operationId: 'stripeWebhook', tag: 'Confirming', query: emptyQuery, body: stripeEventEnvelope,
    headers: [{ name: 'Stripe-Signature', required: true, description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed with STRIPE_WEBHOOK_SECRET; 300 s tolerance.' }],
    summary: 'Stripe events (`payment_intent.succeeded`, `checkout.session.completed` when paid, `checkout.session.async_payment_succeeded`); a paid event that cannot become an order is recorded as refund_required, one without a holdId as ignored; `async_payment_failed` makes no order.',
    responses: { 200: { description: 'received (also duplicates and unhandled types)', schema: responses.received }, 400: err('INVALID_SIGNATURE, or VALIDATION_FAILED'), 503: overloadedOrUnavailable },
  },
  {
    method: 'post', path: '/v1/demo/holds/{holdId}/pay', operationId: 'demoPay', tag: 'Confirming', roles: ['customer'], demoOnly: true, query: emptyQuery,
    summary: 'Demo mode only: pay for your hold through the webhook\'s own code path (a signed payment_intent.succeeded).',
    responses: {
      201: { description: 'the order', schema: responses.order }, 200: { description: 'the order this hold already became', schema: responses.order },
      401: unauthorized, 403: forbidden, 404: err('HOLD_NOT_FOUND'), 409: err('PAYMENT_REJECTED (recorded for a refund)'), 503: unavailable,
    },
  },
  {
    method: 'get', path: '/v1/orders/{orderId}', operationId: 'getOrder', tag: 'Orders', roles: ['customer', 'service', 'admin'], query: emptyQuery,
    summary: 'An order (a customer sees only their own).',
    responses: { 200: { description: 'the order', schema: responses.order }, 401: unauthorized, 403: forbidden, 404: err('ORDER_NOT_FOUND'), 503: unavailable },
  },
  {
    method: 'get', path: '/', operationId: 'checkoutPage', tag: 'Pages', summary: 'The checkout page (built by apps/web).',
    responses: { 200: { description: 'HTML', contentType: 'text/html' }, 404: err('NOT_FOUND when the web app is not built') },
  },
  {
    method: 'get', path: '/admin', operationId: 'adminPage', tag: 'Pages', summary: 'The admin console page (built by apps/web).',
    responses: { 200: { description: 'HTML', contentType: 'text/html' }, 404: err('NOT_FOUND when the web app is not built') },
  },
  {
    method: 'post', path: '/v1/admin/reconcile', operationId: 'adminReconcile', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    summary: 'Ask the worker to reconcile Redis against PostgreSQL now (body empty or `{}`).',
    responses: { 202: { description: 'queued: `{jobId, status}`', contentType: 'application/json' }, 400: invalid, 401: unauthorized, 403: forbidden, 503: unavailable },
  },
  {
    method: 'get', path: '/v1/admin/reconcile/last', operationId: 'adminReconcileLast', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    summary: 'The last reconciliation report: `{report}`.',
    responses: { 200: { description: 'the report', contentType: 'application/json' }, 401: unauthorized, 403: forbidden, 503: unavailable },
  },
  {
    method: 'get', path: '/v1/admin/holds', operationId: 'adminListHolds', tag: 'Admin', roles: ['admin'], query: adminHoldsQuery,
    summary: 'Holds by event and status (an active hold past its time is listed as expired), oldest first.',
    responses: { 200: { description: 'a page of holds', schema: responses.holds }, 400: invalid, 401: unauthorized, 403: forbidden, 503: unavailable },
  },
  {
    method: 'delete', path: '/v1/admin/holds/{holdId}', operationId: 'adminReleaseHold', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    body: adminReleaseBody, summary: 'Force-release a hold with a reason; recorded in the audit log.',
    responses: {
      200: { description: 'released', schema: responses.hold }, 400: invalid, 401: unauthorized, 403: forbidden, 404: err('HOLD_NOT_FOUND'),
      409: err('HOLD_ALREADY_CONFIRMED'), 503: unavailable,
    },
  },
  {
    method: 'get', path: '/v1/admin/orders', operationId: 'adminListOrders', tag: 'Admin', roles: ['admin'], query: adminOrdersQuery,
    summary: 'Orders, optionally of one event and matching `q` (part of an order number, a customer id, or a seat label), oldest first.',
    responses: { 200: { description: 'a page of orders', schema: responses.orders }, 400: invalid, 401: unauthorized, 403: forbidden, 503: unavailable },
  },
  {
    method: 'get', path: '/v1/admin/payments', operationId: 'adminListPayments', tag: 'Admin', roles: ['admin'], query: adminPaymentsQuery,
    summary: 'Payments, refund-required ones first.',
    responses: { 200: { description: 'a page of payments', schema: responses.payments }, 400: invalid, 401: unauthorized, 403: forbidden, 503: unavailable },
  },
  {
    method: 'post', path: '/v1/admin/payments/{paymentId}/refund', operationId: 'adminMarkRefunded', tag: 'Admin', roles: ['admin'],
    query: emptyQuery, body: adminRefundBody,
    summary: 'Record that a refund_required payment was refunded at the provider (who, when, a note); audited as payment.refunded.',
    responses: {
      200: { description: 'the payment with its refund', schema: responses.payment }, 400: invalid, 401: unauthorized, 403: forbidden,
      404: err('PAYMENT_NOT_FOUND'), 409: err('PAYMENT_NOT_REFUNDABLE (details.reason: not_owed or already_refunded)'), 503: unavailable,
    },
  },
  {
    method: 'get', path: '/v1/admin/events/{eventId}/sales', operationId: 'adminEventSales', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    summary: 'The sales dashboard\'s numbers: sold, held and available per tier and ticket type, revenue, holds and orders per minute (last 30 minutes).',
    responses: {
      200: { description: 'the numbers', schema: responses.sales }, 401: unauthorized, 403: forbidden, 404: err('EVENT_NOT_FOUND'), 503: unavailable,
    },
  },
  {
    method: 'post', path: '/v1/admin/queues/session', operationId: 'adminQueuesSession', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    summary: 'Trade the admin\'s bearer token for an HttpOnly, SameSite=Strict cookie scoped to /admin/queues (at most an hour, never past the token), so a browser can open the queue dashboard.',
    responses: {
      200: { description: '`{url, expiresInSeconds}` and a Set-Cookie header', contentType: 'application/json' }, 400: invalid, 401: unauthorized,
      403: forbidden,
    },
  },
  {
    method: 'get', path: '/admin/queues', operationId: 'adminQueues', tag: 'Pages', roles: ['admin'],
    summary: 'The BullMQ queues on @bull-board/express (its pages and API live under this path); a bearer header or the cookie from /v1/admin/queues/session.',
    responses: { 200: { description: 'HTML', contentType: 'text/html' }, 302: { description: 'to /admin/queues/' }, 401: unauthorized, 403: forbidden },
  },
  {
    method: 'get', path: '/v1/admin/audit', operationId: 'adminListAudit', tag: 'Admin', roles: ['admin'], query: adminAuditQuery,
    summary: 'The audit log (admin releases, refund-required payments), oldest first.',
    responses: { 200: { description: 'a page of entries', schema: responses.audit }, 400: invalid, 401: unauthorized, 403: forbidden, 503: unavailable },
  },
];

/** Shared objects, named in components.schemas and referenced from the operations. */
const NAMED: Record<string, Schema> = {
  Error: errorBody, Hold: holdObject, HoldItem: holdItem, Order: orderObject, Event: eventObject, Seat: seatObject,
  Payment: paymentObject, AuditEntry: auditEntryObject, Sales: salesObject,
};

type Json = Record<string, unknown>;

function clean(schema: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The OpenAPI 3.1 document, generated from the zod schemas that validate the
 * requests (and describe the answers). Nothing here is written by hand twice.
 */
export function buildOpenApi(opts: { demoMode: boolean; version?: string }): Json {
  const routes = ROUTES.filter((r) => opts.demoMode || !r.demoOnly);
  const registry = z.registry<{ id: string }>();
  for (const [id, s] of Object.entries(NAMED)) registry.add(s, { id });
  const refOf = new Map<Schema, string>();
  const name = (s: Schema, id: string) => {
    const known =
      Object.entries(NAMED).find(([, v]) => v === s)?.[0] ??
      refOf.get(s) ??
      Object.entries(responses).find(([, v]) => v === s)?.[0];
    if (known && !NAMED[known] && !refOf.has(s)) {
      // A shared response shape, named after its key in `responses`.
      const id = `${cap(known)}Response`;
      registry.add(s, { id });
      refOf.set(s, id);
      return id;
    }
    if (known) return known;
    registry.add(s, { id });
    refOf.set(s, id);
    return id;
  };
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const op: Json = { operationId: r.operationId, tags: [r.tag], summary: r.summary };
    if (r.roles) {
      op.security = [{ bearer: [] }];
      op.description = `Roles: ${r.roles.join(', ')}.`;
      op['x-roles'] = r.roles;
    }
    const parameters: Json[] = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (r.query) {
      for (const [key, field] of Object.entries(r.query.shape)) {
        const schema = clean(z.toJSONSchema(field as Schema, { io: 'input', unrepresentable: 'any' }) as Json);
        parameters.push({ name: key, in: 'query', required: !(field as Schema).safeParse(undefined).success, schema });
      }
    }
    for (const h of r.headers ?? []) parameters.push({ name: h.name, in: 'header', required: h.required, description: h.description, schema: { type: 'string' } });
    if (r.idempotent) {
      parameters.push({
        name: 'Idempotency-Key', in: 'header', required: false,
        description: 'Replays the first answer for 24 hours (header `Idempotent-Replayed: true`) when the same principal sends the same key and body; 422 IDEMPOTENCY_KEY_REUSED with another body; 409 IDEMPOTENCY_IN_PROGRESS while the first runs. 5xx and 429 answers are not kept.',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
      });
    }
    if (parameters.length) op.parameters = parameters;
    if (r.body) {
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${name(r.body, `${cap(r.operationId)}Body`)}` } } },
      };
    }
    op.responses = Object.fromEntries(
      Object.entries(r.responses).map(([status, resp]) => {
        const out: Json = { description: resp.description };
        if (resp.schema) {
          out.content = { 'application/json': { schema: { $ref: `#/components/schemas/${name(resp.schema, `${cap(r.operationId)}${status}`)}` } } };
        } else if (resp.contentType) {
          out.content = { [resp.contentType]: { schema: { type: 'string' } } };
        }
        return [status, out];
      }),
    );
    (paths[r.path] ??= {})[r.method] = op;
  }
  const converted = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, io: 'input', unrepresentable: 'any' });
  const schemas = Object.fromEntries(Object.entries(converted.schemas).map(([k, v]) => [k, clean(v as Json)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'holdfast API',
      version: opts.version ?? '1',
      description:
        'Two-phase hold-and-confirm booking. Every non-2xx answer has the body `{"error": {"code", "message", "details"?}}`. ' +
        'Lists take `limit` (default 100, max 1000) and `cursor` and answer `nextCursor` (null on the last page).',
    },
    servers: [{ url: '/' }],
    tags: [...new Set(routes.map((r) => r.tag))].map((t) => ({ name: t })),
    paths,
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT (HS256; claims sub, role)' } },
    },
  };
}
