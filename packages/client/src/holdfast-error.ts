import type { components } from './api.generated';

/** Every `error.code` the API documents (the document's `ErrorCode` enum). */
export type ErrorCode = components['schemas']['ErrorCode'];
/** The body of every non-2xx answer. */
export type ErrorBody = components['schemas']['Error'];
/**
 * Failures without an error body: the server could not be reached
 * (`NETWORK_ERROR`, status 0) or answered something that is not the error body
 * (`UNEXPECTED_RESPONSE`, e.g. a proxy's HTML page).
 */
export type TransportErrorCode = 'NETWORK_ERROR' | 'UNEXPECTED_RESPONSE';

/** A refused or failed call: `code` is one of the documented codes (or a transport failure), `details` as the API sent them. */
export class HoldfastError<C extends ErrorCode | TransportErrorCode = ErrorCode | TransportErrorCode> extends Error {
  override name = 'HoldfastError';
  constructor(
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    readonly code: C,
    message: string,
    readonly details?: unknown,
    /** The answer's `Retry-After`, in seconds, when it had one. */
    readonly retryAfterSeconds?: number,
    /** The answer's `X-Request-Id` (quote it when asking for help). */
    readonly requestId?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** True when the call was refused with this code (or one of these codes): narrows `code`. */
  is<K extends C>(...codes: K[]): this is HoldfastError<K> {
    return (codes as string[]).includes(this.code);
  }
}

/** True when `error` is a HoldfastError (with one of `codes`, when given). */
export function isHoldfastError<K extends ErrorCode | TransportErrorCode>(error: unknown, ...codes: K[]): error is HoldfastError<K> {
  return error instanceof HoldfastError && (codes.length === 0 || (codes as string[]).includes(error.code));
}

export function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = (body as { error: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    && typeof (error as { message?: unknown }).message === 'string';
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined. */
export function retryAfterOf(response: Response, now = Date.now()): number | undefined {
  const value = response.headers.get('Retry-After')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The error a non-2xx answer stands for, from its parsed body (`undefined` or text when it was not JSON). */
export function errorOfAnswer(response: Response, body: unknown): HoldfastError {
  const retryAfterSeconds = retryAfterOf(response);
  const requestId = response.headers.get('X-Request-Id') ?? undefined;
  if (isErrorBody(body)) {
    const { code, message, details } = body.error;
    return new HoldfastError(response.status, code, message, details, retryAfterSeconds, requestId);
  }
  return new HoldfastError(
    response.status, 'UNEXPECTED_RESPONSE', `The server answered ${response.status} without an error body.`, undefined, retryAfterSeconds, requestId,
  );
}
