import type { IncomingMessage } from 'node:http';
import express from 'express';

/** The largest JSON body an endpoint reads, unless it declares its own limit (`bodyLimitBytes`). */
export const JSON_BODY_LIMIT_BYTES = 100 * 1024;

/**
 * A JSON body parser (objects and arrays only) refusing bodies over `limitBytes`
 * with `413 PAYLOAD_TOO_LARGE`. It runs per route, after authentication and the
 * role check, so a caller without a valid token never gets its body read: it is
 * answered 401/403, whatever the body.
 */
export const jsonBodyOf = (limitBytes: number) =>
  express.json({ limit: limitBytes, strict: true, type: ['application/json', 'application/*+json'] });

/** The JSON body parser of every endpoint without a limit of its own (100 KiB). */
export const jsonBody = jsonBodyOf(JSON_BODY_LIMIT_BYTES);

/** A limit as people read it: `100 KiB`, `59.5 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB`;
  return `${Number((bytes / 1024).toFixed(1))} KiB`;
}

const PLAIN_JSON_TYPE = /^application\/json(?:;[ \t]*charset="?utf-8"?)?$/i;
const DIGITS = /^\d{1,6}$/;

/**
 * Whether `jsonBody` would read this request's body as plain UTF-8 JSON: type
 * `application/json` (no charset or UTF-8), a Content-Length of 1 byte to the
 * limit, no Content-Encoding and no chunked transfer. `readPlainJson` reads
 * exactly such a body to what `jsonBody` would make of it; every other body is
 * left to `jsonBody` (fast-path.ts passes the request on to Express).
 */
export function isPlainJson(req: IncomingMessage): boolean {
  const { headers } = req;
  const type = headers['content-type'];
  const length = headers['content-length'];
  if (type === undefined || length === undefined || !DIGITS.test(length)) return false;
  if (headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return false;
  const bytes = Number(length);
  return bytes >= 1 && bytes <= JSON_BODY_LIMIT_BYTES && PLAIN_JSON_TYPE.test(type);
}

/** The error `jsonBody` gives a body that is not JSON (errors.ts words it 400 VALIDATION_FAILED). */
const notJson = () => Object.assign(new SyntaxError('the body is not valid JSON'), { type: 'entity.parse.failed', status: 400 });
const requestAborted = () => Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400 });
const FIRST_CHAR = /^[ \t\n\r]*([^ \t\n\r])/;

/**
 * Reads a body `isPlainJson` accepted, as `jsonBody` would: UTF-8 without its
 * byte-order mark, objects and arrays only (strict), `{}` for an empty text. A
 * request that ends before its body does is `request.aborted`, as there.
 */
export function readPlainJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      const text = bytes.toString('utf8');
      if (text.length === 0) return resolve({});
      const first = text[0] === '{' || text[0] === '[' ? text[0] : FIRST_CHAR.exec(text)?.[1];
      if (first !== '{' && first !== '[') return reject(notJson());
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(notJson());
      }
    });
    // Unnamed listeners: a closure declared under a name is given it on every
    // request (keepNames, in tsx and in the bundle). readableEnded: 'end' was emitted.
    req.on('error', () => {
      if (!req.readableEnded) reject(requestAborted());
    });
    req.on('close', () => {
      if (!req.readableEnded) reject(requestAborted());
    });
  });
}
