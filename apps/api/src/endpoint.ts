import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response, Router } from 'express';
import type { z } from '@holdfast/contracts';
import type { KeyClaim, Principal } from '@holdfast/domain';
import type { Role } from './middleware/auth';
import { formatBytes, JSON_BODY_LIMIT_BYTES } from './middleware/body';
import { forbidden, invalid, issuerUnavailable, tooLargeOf, unauthorized } from './response-docs';

export type Method = 'get' | 'post' | 'patch' | 'delete';

/** One answer an endpoint gives: a JSON body with its schema, or another content type. */
export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

export interface HeaderDoc {
  name: string;
  description: string;
  required: boolean;
}

/** `/v1/holds/{holdId}/confirm` → `'holdId'`. */
type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;
type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;
/** The JSON bodies an endpoint documents (2xx and errors), as `res.json` may send them. */
type BodyOf<R> = { [K in keyof R]: R[K] extends { schema: infer S } ? (S extends z.ZodType ? z.input<S> : never) : never }[keyof R];
/** Endpoints that document no JSON body (pages, metrics, this document) send what they like. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type SendOf<R> = [BodyOf<R>] extends [never] ? any : BodyOf<R>;

/** What a handler gets: the request and response, its group's dependencies, and its input parsed with the declared schemas. */
export interface Call<D, P extends string = string, Q = unknown, B = unknown, R = unknown> {
  req: Request;
  res: Response<SendOf<R>>;
  deps: D;
  params: Record<ParamNames<P>, string>;
  /** The query parsed with `query` (undefined when the endpoint declares none: the query is then not read). */
  query: Parsed<Q>;
  /** The JSON body parsed with `body` (undefined when the endpoint declares none). */
  body: Parsed<B>;
}

/** What an `answer` handler gives back: the status and the JSON body (the steps write it). */
export interface Answer<B = unknown> {
  status: number;
  body: B;
}

/** The JSON bodies of an endpoint's 2xx answers. */
type SuccessBodyOf<R> = BodyOf<Pick<R, Extract<keyof R, 200 | 201 | 202>>>;

/**
 * What an `answer` handler gets: its input parsed, the caller, and no request or
 * response object, so the endpoint can be served by the Express steps and by
 * the lean path (fast-path.ts) alike.
 */
export interface AnswerCall<D, P extends string = string, Q = unknown, B = unknown> {
  deps: D;
  params: Record<ParamNames<P>, string>;
  query: Parsed<Q>;
  body: Parsed<B>;
  /** Set for endpoints with roles. */
  principal: Principal | undefined;
  /** The request's headers (Node's, names in lower case). */
  headers: IncomingHttpHeaders;
  /** The claim of the request's Idempotency-Key, on an `idempotent` endpoint when the request has one. */
  keyClaim?: KeyClaim;
}

/** What an endpoint's error hook sees of a refused request. */
export interface RefusedCall {
  principal: Principal | undefined;
  params: Record<string, string>;
}

/**
 * One endpoint, declared once: the router is mounted from it (mount-endpoints.ts)
 * and the OpenAPI document is rendered from it (openapi.ts).
 *
 * Request handling, in this order: authorization by `roles` (401/403 before the
 * body is read), the body read (JSON; raw bytes for `signedBody`), the
 * Idempotency-Key step when `idempotent`, the query and then the body parsed
 * with their schemas (400 VALIDATION_FAILED), then `handler` (or `answer`).
 */
export interface EndpointSpec<
  D, P extends string, Q extends z.ZodObject | undefined, B extends z.ZodType | undefined, R extends Record<number, ResponseDoc>,
> {
  method: Method;
  /** OpenAPI form: `/v1/holds/{holdId}`. */
  path: P;
  operationId: string;
  tag: string;
  summary: string;
  /** Roles that may call it; absent for public endpoints. */
  roles?: readonly Role[];
  /** Parsed from the query string; without it the query string is not looked at. */
  query?: Q;
  /** Read as JSON and parsed. Endpoints with roles read a JSON body even without one (as they always have). */
  body?: B;
  /**
   * The largest JSON body this endpoint reads, when it needs more than the
   * 100 KiB every other endpoint keeps (event creation with its seats); a larger
   * body is `413 PAYLOAD_TOO_LARGE` before any of it is parsed.
   */
  bodyLimitBytes?: number;
  /**
   * Read as raw bytes (the Stripe webhook: its signature is over the exact bytes);
   * the handler checks them. The schema documents the JSON inside.
   */
  signedBody?: z.ZodType;
  /**
   * The body's parse for its common valid shape, checked by hand (no schema
   * walk), or undefined: then `body` parses it. Must give what `body` gives for
   * every input it accepts (a test of the endpoint's contract says so).
   */
  quickBody?: (raw: unknown) => Parsed<B> | undefined;
  /**
   * Takes an `Idempotency-Key` (middleware/idempotency.ts); `leaseMs`: how long a
   * request holds the key's claim without answering, when not the store's own.
   */
  idempotent?: boolean | { leaseMs: (deps: D) => number };
  headers?: HeaderDoc[];
  responses: R;
  handler?: (call: Call<D, P, Q, B, R>) => unknown;
  /**
   * The handler of a hot endpoint, instead of `handler`: it returns its answer and
   * touches no request or response, so a plain request to it (fast-path.ts says
   * which) is served without Express's per-request machinery; any other request
   * to it goes through the Express steps, to the same answer.
   */
  answer?: (call: AnswerCall<D, P, Q, B>) => Promise<Answer<SuccessBodyOf<R>>>;
  /**
   * Runs on the errors of the steps and the handler, and gives the error to answer
   * with (the hold route counts refused requests, and may answer RATE_LIMITED instead).
   */
  onError?: (deps: D) => (err: unknown, call: RefusedCall) => Promise<unknown>;
  /**
   * An endpoint the standard steps cannot serve (the queue dashboard: a cookie as well as a
   * bearer header, and pages under its path) mounts itself; it is still documented from this entry.
   */
  mount?: (router: Router, endpoint: Endpoint<D>, deps: D) => void;
}

/** An endpoint as the table stores it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Endpoint<D = any> = EndpointSpec<D, string, z.ZodObject | undefined, z.ZodType | undefined, Record<number, ResponseDoc>> & {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler?: (call: Call<D, string, any, any, any>) => unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  answer?: (call: AnswerCall<D, string, any, any>) => Promise<Answer>;
};

/**
 * Declares one endpoint of a group, with its handler's input typed from its path
 * and schemas: `const endpoint = endpointOf<Deps>(); export const X = [endpoint({...}), ...]`.
 */
export function endpointOf<D>() {
  return <P extends string, Q extends z.ZodObject | undefined = undefined, B extends z.ZodType | undefined = undefined, R extends Record<number, ResponseDoc> = Record<number, ResponseDoc>>(
    spec: EndpointSpec<D, P, Q, B, R>,
  ): Endpoint<D> => spec as unknown as Endpoint<D>;
}

/**
 * Every answer an endpoint can give: the ones it declares, and the ones its
 * declaration implies (the steps of mount-endpoints.ts): 401/403 with roles; 400
 * when it parses a query or reads a body; 413 when it reads a body; 503 with roles
 * (the token issuer of AUTH_ISSUER could not be reached), unless it declares its own 503.
 */
export function responsesOf(e: Endpoint): Record<number, ResponseDoc> {
  if (e.mount) return e.responses;
  const all: Record<number, ResponseDoc> = { ...e.responses };
  const readsBody = Boolean(e.roles || e.body || e.signedBody);
  if (readsBody || e.query) all[400] ??= invalid;
  if (e.roles) {
    all[401] ??= unauthorized;
    all[403] ??= forbidden;
    all[503] ??= issuerUnavailable;
  }
  if (readsBody) {
    const limit = e.bodyLimitBytes ?? JSON_BODY_LIMIT_BYTES;
    all[413] ??= tooLargeOf(limit, formatBytes(limit));
  }
  return all;
}
