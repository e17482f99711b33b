import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * Verifies an HS256 JSON Web Token the way `jsonwebtoken.verify(token, key,
 * { algorithms: ['HS256'] })` does, step for step, and returns its claims, or
 * null where jsonwebtoken would throw. It does only what that call does for this
 * one algorithm: in the race lab, where every buyer's token is new, the general
 * library (decode twice, streams, per-call option handling) was a tenth of the
 * API's CPU. `jwt-hs256.test.ts` holds it to jsonwebtoken's answers.
 *
 * - three base64url parts, the signature not empty (jws's JWS_REGEX);
 * - the header JSON (read as latin1, as jws does) names `alg` "HS256";
 * - the signature is the HMAC-SHA256 of `header.payload`, compared in constant time;
 * - the payload parses as JSON (it must when the header says `typ` "JWT") to an object;
 * - `nbf`, when present, is a number not after now; `exp`, when present, a number after now.
 */
export function verifyHs256(token: string, key: KeyObject, nowSeconds = Math.floor(Date.now() / 1000)): Record<string, unknown> | null {
  if (!TOKEN.test(token)) return null;
  const firstDot = token.indexOf('.');
  const secondDot = token.indexOf('.', firstDot + 1);
  if (!isHs256Header(token.slice(0, firstDot))) return null;

  const expected = Buffer.from(createHmac('sha256', key).update(token.slice(0, secondDot)).digest('base64url'));
  const given = Buffer.from(token.slice(secondDot + 1));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;

  const payload = parseJson(Buffer.from(token.slice(firstDot + 1, secondDot), 'base64').toString('utf8'));
  if (payload === null || typeof payload !== 'object') return null;
  const claims = payload as Record<string, unknown>;
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > nowSeconds)) return null;
  if (claims.exp !== undefined && (typeof claims.exp !== 'number' || nowSeconds >= claims.exp)) return null;
  return claims;
}

/** jws's own pattern, the signature required (jsonwebtoken refuses an empty one when given a key). */
const TOKEN = /^[a-zA-Z0-9\-_]+\.[a-zA-Z0-9\-_]+\.[a-zA-Z0-9\-_]+$/;

/**
 * The header part's verdict, by its text: every token one issuer signs has the
 * same header, so it is decoded and parsed once, not per token. Bounded: a
 * stream of made-up headers only empties the memo.
 */
const headerVerdicts = new Map<string, boolean>();
const HEADER_VERDICTS_MAX = 64;

function isHs256Header(part: string): boolean {
  let verdict = headerVerdicts.get(part);
  if (verdict === undefined) {
    const header = parseJson(Buffer.from(part, 'base64').toString('latin1'));
    verdict = Boolean(header) && (header as { alg?: unknown }).alg === 'HS256';
    if (headerVerdicts.size >= HEADER_VERDICTS_MAX) headerVerdicts.clear();
    headerVerdicts.set(part, verdict);
  }
  return verdict;
}

/** The parsed JSON, or undefined when the text is not JSON (JSON itself never yields undefined). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
