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
  const header = parseJson(Buffer.from(token.slice(0, firstDot), 'base64').toString('latin1'));
  if (!header.ok || !header.value || (header.value as { alg?: unknown }).alg !== 'HS256') return null;

  const expected = Buffer.from(createHmac('sha256', key).update(token.slice(0, secondDot)).digest('base64url'));
  const given = Buffer.from(token.slice(secondDot + 1));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;

  const payload = parseJson(Buffer.from(token.slice(firstDot + 1, secondDot), 'base64').toString('utf8'));
  if (!payload.ok || payload.value === null || typeof payload.value !== 'object') return null;
  const claims = payload.value as Record<string, unknown>;
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > nowSeconds)) return null;
  if (claims.exp !== undefined && (typeof claims.exp !== 'number' || nowSeconds >= claims.exp)) return null;
  return claims;
}

/** jws's own pattern, the signature required (jsonwebtoken refuses an empty one when given a key). */
const TOKEN = /^[a-zA-Z0-9\-_]+\.[a-zA-Z0-9\-_]+\.[a-zA-Z0-9\-_]+$/;

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
