/**
 * The one error family of the domain; a middleware maps it to the contract's error body.
 * A client error (status below 500) is an answer, not a fault: it carries no stack
 * trace, which no answer or log shows and which V8 would capture at every refusal
 * (SOLD_OUT for every late buyer of a flash sale: 5 % of the API's CPU).
 */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    const stackTraceLimit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
  }
}

export const errors = {
  validation: (details: unknown, message = 'The request is not valid.') =>
    new AppError('VALIDATION_FAILED', message, 400, details),
  unauthorized: (message = 'A valid bearer token is required.') => new AppError('UNAUTHORIZED', message, 401),
  forbidden: (message = 'Your role may not call this endpoint.') => new AppError('FORBIDDEN', message, 403),
  eventNotFound: () => new AppError('EVENT_NOT_FOUND', 'No event has this id.', 404),
  queueNotFound: () => new AppError('QUEUE_NOT_FOUND', 'This event has no waiting room.', 404),
  queuePassRequired: (reason: 'missing' | 'forged' | 'other_event' | 'other_customer' | 'ended') =>
    new AppError('QUEUE_PASS_REQUIRED', 'This event has a waiting room: a hold needs your live queue pass (header Holdfast-Queue-Pass); nothing was held.', 403, { reason }),
  seatNotFound: (seatIds: string[]) =>
    new AppError('SEAT_NOT_FOUND', 'Some seats are not part of this event.', 404, { seatIds }),
  ticketTypeNotFound: () => new AppError('TICKET_TYPE_NOT_FOUND', 'No ticket type of this event has this id.', 404),
  holdNotFound: () => new AppError('HOLD_NOT_FOUND', 'No hold has this id.', 404),
  orderNotFound: () => new AppError('ORDER_NOT_FOUND', 'No order has this id.', 404),
  waitlistEntryNotFound: () => new AppError('WAITLIST_ENTRY_NOT_FOUND', 'No waiting-list entry of this event has this id.', 404),
  waitlistNotNeeded: (available: number) =>
    new AppError('WAITLIST_NOT_NEEDED', 'Nobody waits and enough is free for this quantity: hold it instead.', 409, { available }),
  webhookNotFound: () => new AppError('WEBHOOK_NOT_FOUND', 'No webhook endpoint has this id.', 404),
  seatsUnavailable: (seatIds: string[]) =>
    new AppError('SEATS_UNAVAILABLE', 'Some of these seats are held or sold; nothing was held.', 409, { seatIds }),
  soldOut: (available: number) =>
    new AppError('SOLD_OUT', 'Not enough tickets are left for this quantity; nothing was held.', 409, { available }),
  limitExceeded: (limit: number, inUse: number) =>
    new AppError('LIMIT_EXCEEDED', `A customer may hold or buy at most ${limit} tickets for this event.`, 422, {
      limit,
      inUse,
    }),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('RATE_LIMITED', 'Too many hold requests; try again shortly.', 429, { retryAfterSeconds }, {
      'Retry-After': String(retryAfterSeconds),
    }),
  streamLimit: (scope: 'client' | 'total', limit: number) =>
    new AppError(
      'STREAM_LIMIT_REACHED',
      scope === 'client'
        ? 'Too many event streams are open from your address; close one or try again shortly.'
        : 'This server has as many event streams open as it serves; try again shortly.',
      503, { scope, limit }, { 'Retry-After': '5' },
    ),
  holdAlreadyConfirmed: () => new AppError('HOLD_ALREADY_CONFIRMED', 'This hold is already confirmed.', 409),
  holdExpired: () =>
    new AppError('HOLD_EXPIRED', 'This hold has expired and its seats or tickets are no longer available.', 409),
  holdNotActive: () => new AppError('HOLD_NOT_ACTIVE', 'This hold was released and cannot be confirmed.', 409),
  holdReleased: () => new AppError('HOLD_NOT_ACTIVE', 'This hold was released.', 409),
  extensionLimitReached: (limit: number) =>
    new AppError('HOLD_EXTENSION_LIMIT', `This hold may be extended at most ${limit} time(s).`, 409, { maxHoldExtensions: limit }),
  holdTimeCapReached: (maxHoldSeconds: number, expiresAt: string) =>
    new AppError('HOLD_TIME_CAP', `A hold may last at most ${maxHoldSeconds} seconds from its creation.`, 409, {
      maxHoldSeconds, expiresAt,
    }),
  salesClosed: (details: { salesStatus: string; salesStartAt: string | null; salesEndAt: string | null; serverTime: string }) =>
    new AppError(
      'SALES_CLOSED',
      details.salesStatus === 'on_sale' && details.salesStartAt && details.serverTime < details.salesStartAt
        ? 'Sales for this event have not opened yet.'
        : 'Sales for this event are closed.',
      409,
      details,
    ),
  paymentNotFound: () => new AppError('PAYMENT_NOT_FOUND', 'No payment has this id.', 404),
  paymentNotRefundable: (reason: 'not_owed' | 'already_refunded') =>
    new AppError(
      'PAYMENT_NOT_REFUNDABLE',
      reason === 'not_owed' ? 'This payment is not owed a refund (it paid for an order, or was ignored).' : 'This payment is already marked refunded.',
      409,
      { reason },
    ),
  idempotencyKeyReused: () =>
    new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request.', 422),
  // Retry-After 1: the running request's answer is stored the moment it has one, and a
  // request that will never answer gives the key up at the end of its lease.
  idempotencyInProgress: () =>
    new AppError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running; retry shortly.', 409, { retryAfterSeconds: 1 }, {
      'Retry-After': '1',
    }),
  invalidSignature: () =>
    new AppError('INVALID_SIGNATURE', 'The Stripe-Signature header is missing, wrong or too old for this body.', 400),
  paymentRejected: (reason: string) =>
    new AppError('PAYMENT_REJECTED', 'This payment cannot pay for the hold; it is recorded for a refund.', 409, { reason }),
  overloaded: (retryAfterSeconds: number) =>
    new AppError('OVERLOADED', 'Too many confirms are waiting right now; nothing was done, try again shortly.', 503, { retryAfterSeconds }, {
      'Retry-After': String(retryAfterSeconds),
    }),
  holdBacklogFull: (retryAfterSeconds: number) =>
    new AppError(
      'SERVICE_UNAVAILABLE',
      'Holds are paused while earlier holds are being saved; try again shortly.',
      503,
      { reason: 'hold_backlog_full', retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) },
    ),
  unavailable: (what: string) =>
    new AppError('SERVICE_UNAVAILABLE', `${what} is unavailable right now; try again shortly.`, 503, { dependency: what }),
};
