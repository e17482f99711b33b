import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, appErrorOf, errors } from '@holdfast/domain';
import { translateRedisError } from '@holdfast/hold-store';
import { formatBytes, JSON_BODY_LIMIT_BYTES } from './body';

/** Express's body parser errors, as the contract words them. */
export function bodyParserError(err: { type?: string; status?: number; limit?: number; code?: unknown }): AppError | null {
  if (err.type === 'entity.too.large') {
    // The endpoint's own limit (the parser that refused says which), 100 KiB unless it declares one.
    const limitBytes = typeof err.limit === 'number' ? err.limit : JSON_BODY_LIMIT_BYTES;
    return new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${formatBytes(limitBytes)} (${limitBytes} bytes).`, 413, { limitBytes });
  }
  if (err.type === 'entity.parse.failed') {
    return errors.validation({ fields: [{ path: '(body)', message: 'the body is not valid JSON' }] });
  }
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported' || err.type === 'request.aborted') {
    return errors.validation({ fields: [{ path: '(body)', message: 'the body could not be read as UTF-8 JSON' }] });
  }
  // A body its Content-Encoding does not describe (not gzip, deflate or br data after all): the parser
  // passes zlib's error on with status 400 and no type.
  if (err.status === 400 && typeof err.code === 'string' && err.code.startsWith('Z_')) {
    return errors.validation({ fields: [{ path: '(body)', message: 'the body could not be decompressed as its Content-Encoding says' }] });
  }
  return null;
}

/**
 * A path parameter that is not even valid percent-encoding (the router throws a
 * URIError) names nothing: the same 404 as an unknown id of that resource.
 */
function undecodableParam(err: unknown, req: Request): AppError | null {
  if (!(err instanceof URIError) || (err as { status?: number }).status !== 400) return null;
  if (/^\/v1\/(admin\/)?holds\//.test(req.path)) return errors.holdNotFound();
  if (/^\/v1\/(admin\/)?orders\//.test(req.path)) return errors.orderNotFound();
  if (/^\/v1\/events\//.test(req.path)) return errors.eventNotFound();
  return new AppError('NOT_FOUND', 'No such endpoint.', 404);
}

/** An error's answer: status, extra headers and the contract's error body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: { error: { code: string; message: string; details?: unknown } };
}

/**
 * The one mapping from errors to the contract's error body (both request paths
 * use it: this module's middleware and fast-path.ts). Never a stack trace. The
 * stores translate their errors themselves; BullMQ's queues share their Redis
 * connection and are translated here, by the hold store's translation.
 * `mapped` is what the caller already made of the error (the router's
 * undecodable parameters), used when nothing above knows it.
 */
export function errorAnswer(err: unknown, requestId: string | undefined, log: () => Logger, mapped?: AppError | null): ErrorAnswer {
  const known = appErrorOf(translateRedisError(err)) ?? bodyParserError(err as { type?: string }) ?? mapped;
  if (known) {
    if (known.code === 'OVERLOADED') log().debug({ reqId: requestId, code: known.code }, 'refused: overloaded');
    else if (known.status >= 500) log().warn({ reqId: requestId, code: known.code, err: describe(err) }, 'dependency unavailable');
    return {
      status: known.status,
      headers: { ...known.headers },
      body: { error: { code: known.code, message: known.message, ...(known.details !== undefined ? { details: known.details } : {}) } },
    };
  }
  log().error({ reqId: requestId, err: describe(err) }, 'unhandled error');
  return { status: 500, headers: {}, body: { error: { code: 'INTERNAL', message: 'Something went wrong on our side.', details: { requestId } } } };
}

/** The errors of the Express steps, answered by `errorAnswer`. */
export function errorHandler(log: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    const answer = errorAnswer(err, req.requestId, () => req.log ?? log, undecodableParam(err, req));
    for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
    res.status(answer.status).json(answer.body);
  };
}

function describe(err: unknown): { name?: string; message?: string; stack?: string } {
  return err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : { message: String(err) };
}

export function notFound(_req: Request, res: Response) {
  res.status(404).json({ error: { code: 'NOT_FOUND', message: 'No such endpoint.' } });
}
