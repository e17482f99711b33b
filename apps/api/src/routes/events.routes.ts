import {
  CREATE_EVENT_BODY_LIMIT_BYTES, createEventBody, createHoldBody, emptyQuery, listQuery, quickHoldBody, responses, updateEventBody,
} from '@holdfast/contracts';
import {
  appErrorOf, countRefusedHoldRequest, createEvent, DEFAULT_HOLD_IDEMPOTENCY_LEASE_MS, createHold, getEvent, listEvents, listSeats, updateEvent,
  type DomainContext, type HoldSelector,
} from '@holdfast/domain';
import { endpointOf, type RefusedCall } from '../endpoint';
import { bodyParserError } from '../middleware/errors';
import { err, unavailable } from '../response-docs';

/** The header a hold carries its queue pass in (issue 29). */
const QUEUE_PASS_HEADER = 'Holdfast-Queue-Pass';
/** As Node's request headers name it (lower-cased once, not per hold). */
const QUEUE_PASS_KEY = QUEUE_PASS_HEADER.toLowerCase();

const dateOrNull = (iso: string | null | undefined): Date | null => (iso ? new Date(iso) : null);

/**
 * Every hold request counts against the customer's rate limit, also one refused
 * before its script ran (its body, an unknown seat or ticket type): the domain
 * counts it and may answer RATE_LIMITED instead.
 */
function countRefusal(ctx: DomainContext) {
  return async (err: unknown, { principal, params }: RefusedCall): Promise<unknown> => {
    const code = (appErrorOf(err) ?? bodyParserError(err as { type?: string }))?.code;
    if (!code || !principal) return err;
    return (await countRefusedHoldRequest(ctx, { eventId: String(params.eventId), customerId: principal.id, code })) ?? err;
  };
}

const endpoint = endpointOf<DomainContext>();

/** Events and hold creation (the hot path, with its Idempotency-Key). */
export const EVENT_ENDPOINTS = [
  endpoint({
    method: 'post', path: '/v1/admin/events', operationId: 'createEvent', tag: 'Events', roles: ['admin'], body: createEventBody,
    // Sized for its largest valid body (100,000 seats at their longest); every other endpoint keeps 100 KiB.
    bodyLimitBytes: CREATE_EVENT_BODY_LIMIT_BYTES,
    summary: 'Put an event on sale with its seats (a list of up to 100,000, or a layout of sections × rows × seats per row) and ticket types.',
    responses: { 201: { description: 'created', schema: responses.event }, 503: unavailable },
    handler: async ({ req, res, deps: ctx, body }) => {
      const event = await createEvent(
        ctx,
        { ...body, startsAt: new Date(body.startsAt), salesStartAt: dateOrNull(body.salesStartAt), salesEndAt: dateOrNull(body.salesEndAt) },
        req.principal!.id,
      );
      res.status(201).json({ event });
    },
  }),
  endpoint({
    method: 'patch', path: '/v1/admin/events/{eventId}', operationId: 'updateEvent', tag: 'Events', roles: ['admin'], query: emptyQuery,
    body: updateEventBody,
    summary: 'Change an event\'s settings (name, start, hold time, limits, extensions, sale window and status); seats and ticket types stay as created. Audited.',
    responses: {
      200: { description: 'the event as it is now', schema: responses.event }, 404: err('EVENT_NOT_FOUND'), 503: unavailable,
    },
    handler: async ({ req, res, deps: ctx, params, body }) => {
      const { startsAt, salesStartAt, salesEndAt, ...rest } = body;
      const patch = {
        ...rest,
        ...(startsAt !== undefined ? { startsAt: new Date(startsAt) } : {}),
        ...(salesStartAt !== undefined ? { salesStartAt: dateOrNull(salesStartAt) } : {}),
        ...(salesEndAt !== undefined ? { salesEndAt: dateOrNull(salesEndAt) } : {}),
      };
      res.json({ event: await updateEvent(ctx, params.eventId, patch, req.principal!.id) });
    },
  }),
  endpoint({
    method: 'get', path: '/v1/events', operationId: 'listEvents', tag: 'Events', query: listQuery, summary: 'Events, oldest first.',
    responses: { 200: { description: 'a page of events', schema: responses.events }, 503: unavailable },
    handler: async ({ res, deps: ctx, query }) => {
      const page = await listEvents(ctx, query.limit, query.cursor);
      res.json({ events: page.items, nextCursor: page.nextCursor });
    },
  }),
  endpoint({
    method: 'get', path: '/v1/events/{eventId}', operationId: 'getEvent', tag: 'Events', query: emptyQuery,
    summary: 'An event with its ticket types and their availability.',
    responses: { 200: { description: 'the event', schema: responses.event }, 404: err('EVENT_NOT_FOUND'), 503: unavailable },
    handler: async ({ res, deps: ctx, params }) => {
      res.json({ event: await getEvent(ctx, params.eventId) });
    },
  }),
  endpoint({
    method: 'get', path: '/v1/events/{eventId}/seats', operationId: 'listSeats', tag: 'Events', query: emptyQuery,
    summary: 'Every seat of the event with its status.',
    responses: { 200: { description: 'the seat map', schema: responses.seats }, 404: err('EVENT_NOT_FOUND'), 503: unavailable },
    handler: async ({ res, deps: ctx, params }) => {
      res.json({ seats: await listSeats(ctx, params.eventId) });
    },
  }),
  endpoint({
    method: 'post', path: '/v1/events/{eventId}/holds', operationId: 'createHold', tag: 'Holds', roles: ['customer'], body: createHoldBody,
    quickBody: quickHoldBody,
    idempotent: { leaseMs: (ctx) => ctx.settings.holdIdempotencyLeaseMs ?? DEFAULT_HOLD_IDEMPOTENCY_LEASE_MS },
    headers: [{
      name: QUEUE_PASS_HEADER, required: false,
      description: 'The queue pass the waiting room gave (POST /v1/events/{eventId}/queue); needed while the event has a waiting room.',
    }],
    summary: 'Hold seats (by id or best available in a tier) or general-admission tickets for the event\'s hold time.',
    responses: {
      201: { description: 'held', schema: responses.hold }, 404: err('EVENT_NOT_FOUND, SEAT_NOT_FOUND or TICKET_TYPE_NOT_FOUND'),
      403: err('FORBIDDEN (not a customer), or QUEUE_PASS_REQUIRED: the event has a waiting room and the request carries no live pass of this customer and event (details.reason: missing, forged, other_event, other_customer, ended); nothing held'),
      409: err('SEATS_UNAVAILABLE (details.seatIds), SOLD_OUT, SALES_CLOSED (draft or closed, or outside [salesStartAt, salesEndAt): details.salesStatus, salesStartAt, salesEndAt, serverTime), or IDEMPOTENCY_IN_PROGRESS'),
      422: err('LIMIT_EXCEEDED, or IDEMPOTENCY_KEY_REUSED'), 429: err('RATE_LIMITED, with Retry-After'),
      503: err('SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable, or details.reason hold_backlog_full (holds not yet written to PostgreSQL reached HOLD_OUTBOX_MAX_PENDING), with Retry-After'),
    },
    answer: async ({ deps: ctx, params, body, principal, headers, keyClaim }) => {
      const selector: HoldSelector = body.seatIds
        ? { kind: 'seats', seatIds: body.seatIds }
        : body.tier !== undefined
          ? { kind: 'best', tier: body.tier, quantity: body.quantity! }
          : { kind: 'tickets', ticketTypeId: body.ticketTypeId!, quantity: body.quantity! };
      const pass = headers[QUEUE_PASS_KEY];
      const hold = await createHold(ctx, {
        eventId: params.eventId, customerId: principal!.id, selector, queuePass: Array.isArray(pass) ? pass[0] : pass, keyClaim,
      });
      return { status: 201, body: { hold } };
    },
    onError: countRefusal,
  }),
];
