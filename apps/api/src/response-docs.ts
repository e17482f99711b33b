import { errorBody } from '@holdfast/contracts';
import type { ResponseDoc } from './endpoint';

/** An error answer: the contract's error body, with the codes it may carry. */
export const err = (description: string) => ({ description, schema: errorBody }) satisfies ResponseDoc;
export const unauthorized = err('UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which');
export const issuerUnavailable = err('SERVICE_UNAVAILABLE (`details.reason: "issuer_unavailable"`): the token issuer (AUTH_ISSUER) could not be reached to check the token; retry after Retry-After seconds');
export const forbidden = err('FORBIDDEN: the role may not call this endpoint');
export const invalid = err('VALIDATION_FAILED: `details.fields` names each field and why');
export const unavailable = err('SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable');
export const overloadedOrUnavailable = err(
  'OVERLOADED (too many confirms waiting; nothing was done, retry after Retry-After seconds), or SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable',
);
/** `413`: a body over the endpoint's limit (`details.limitBytes`). */
export const tooLargeOf = (limitBytes: number, size: string) =>
  err(`PAYLOAD_TOO_LARGE: the body is larger than ${size} (${limitBytes} bytes; details.limitBytes)`);
