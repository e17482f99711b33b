/** Plain-language messages for the error codes the contract names. */
import { HoldfastError, PurchaseError } from './api';
import { TokenNeededError } from './auth';

export interface MessageContext {
  /** Seat id → label, to name the seats in SEATS_UNAVAILABLE. */
  seatLabel?: (seatId: string) => string | undefined;
  /** The event's per-customer ticket limit, for LIMIT_EXCEEDED. */
  maxTicketsPerCustomer?: number;
}

/** The seat ids a SEATS_UNAVAILABLE error names in `details.seatIds`. */
export function takenSeatIds(error: unknown): string[] {
  if (!(error instanceof HoldfastError) || error.code !== 'SEATS_UNAVAILABLE') return [];
  const details = error.details;
  if (typeof details !== 'object' || details === null) return [];
  const ids = (details as { seatIds?: unknown }).seatIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/** `details.fields` (or a bare list) of `{ path, message }`, as "quantity: too big". */
function describeValidation(details: unknown): string {
  const list = Array.isArray(details)
    ? details
    : typeof details === 'object' && details !== null && Array.isArray((details as { fields?: unknown }).fields)
      ? (details as { fields: unknown[] }).fields
      : [];
  const parts = list.flatMap((field: unknown) => {
    if (typeof field !== 'object' || field === null) return [];
    const { path, message } = field as { path?: unknown; message?: unknown };
    if (typeof message !== 'string') return [];
    return [typeof path === 'string' && path ? `${path}: ${message}` : message];
  });
  return parts.length ? `: ${parts.join('; ')}` : '';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function describeError(error: unknown, context: MessageContext = {}): string {
  if (error instanceof TokenNeededError) return 'This page needs an access token to talk to the booking service.';
  if (error instanceof PurchaseError) {
    return error.code === 'PAYMENT_PENDING'
      ? 'The payment was sent but has not been confirmed yet. Your order will appear once it is; please check again shortly.'
      : 'Demo payment is not available on this server, so this page cannot take payment.';
  }
  if (!(error instanceof HoldfastError)) return 'Something unexpected went wrong. Please try again.';
  switch (error.code) {
    case 'SEATS_UNAVAILABLE': {
      const labels = takenSeatIds(error).map((id) => context.seatLabel?.(id) ?? id);
      const which = labels.length ? `${labels.length === 1 ? 'Seat' : 'Seats'} ${labels.join(', ')}` : 'Those seats';
      return `Sorry, ${which} ${labels.length === 1 ? 'was' : 'were'} just taken by someone else. Nothing was held; please pick other seats.`;
    }
    case 'SOLD_OUT':
      return 'Sold out: there are not enough tickets left for that quantity. Try a smaller number or another tier.';
    case 'LIMIT_EXCEEDED':
      return context.maxTicketsPerCustomer
        ? `That would take you over the limit of ${plural(context.maxTicketsPerCustomer, 'ticket')} per customer for this event.`
        : 'That would take you over the per-customer ticket limit for this event.';
    case 'RATE_LIMITED':
      return error.retryAfterSeconds
        ? `Too many requests in a short time. Please wait ${plural(error.retryAfterSeconds, 'second')} and try again.`
        : 'Too many requests in a short time. Please wait a moment and try again.';
    case 'HOLD_EXPIRED':
      return 'Your hold expired and its seats have gone to someone else, so it can no longer be paid for. Nothing was charged.';
    case 'HOLD_NOT_ACTIVE':
      return 'This hold was released, so it can no longer be paid for.';
    case 'QUEUE_PASS_REQUIRED':
      return 'Your turn in the waiting room has ended (or has not come yet), so nothing was held. Join the queue again to get a new place.';
    case 'QUEUE_NOT_FOUND':
      return 'This event has no waiting room.';
    case 'SALES_CLOSED': {
      const d = (error.details ?? {}) as { salesStatus?: string; salesStartAt?: string | null; serverTime?: string };
      if (d.salesStatus === 'on_sale' && d.salesStartAt && d.serverTime && d.serverTime < d.salesStartAt)
        return 'Sales have not opened yet. The page enables buying the second they do.';
      return 'Sales for this event are closed, so nothing was held.';
    }
    case 'HOLD_EXTENSION_LIMIT':
      return 'This hold has already had all the extra time it can get.';
    case 'HOLD_TIME_CAP':
      return 'This hold has reached the longest time a hold may last.';
    case 'PAYMENT_NOT_REFUNDABLE':
      return 'That payment is not owed a refund (it paid for an order, or was already marked refunded).';
    case 'PAYMENT_NOT_FOUND':
      return 'That payment could not be found.';
    case 'HOLD_ALREADY_CONFIRMED':
      return 'This hold has already been paid for.';
    case 'HOLD_NOT_FOUND':
      return 'That hold could not be found.';
    case 'ORDER_NOT_FOUND':
      return 'That order could not be found.';
    case 'EVENT_NOT_FOUND':
      return 'That event could not be found. It may have been removed.';
    case 'SEAT_NOT_FOUND':
      return 'One of the chosen seats does not belong to this event. Please reload the seat map.';
    case 'TICKET_TYPE_NOT_FOUND':
      return 'That ticket type does not exist for this event. Please reload the page.';
    case 'VALIDATION_FAILED':
      return `The request was not accepted${describeValidation(error.details)}.`;
    case 'PAYLOAD_TOO_LARGE':
      return 'The request was too large.';
    case 'IDEMPOTENCY_IN_PROGRESS':
      return 'That request is still being processed. Please wait a moment.';
    case 'IDEMPOTENCY_KEY_REUSED':
      return 'That request conflicts with an earlier one. Please try again.';
    case 'INVALID_SIGNATURE':
      return 'The payment could not be verified, so nothing was booked.';
    case 'UNAUTHORIZED':
      return 'Your session is not valid any more. Please reload the page.';
    case 'FORBIDDEN':
      return 'Your token is not allowed to do that.';
    case 'SERVICE_UNAVAILABLE':
      return 'The booking service is briefly unavailable. Please try again in a moment.';
    case 'NETWORK_ERROR':
      return 'The booking service could not be reached. Check your connection and try again.';
    default:
      return error.message || 'Something went wrong. Please try again.';
  }
}
