import { createSecretKey, type KeyObject } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import jwt from 'jsonwebtoken';
import { role as roleSchema, storableText } from '@holdfast/contracts';
import { errors, type Principal } from '@holdfast/domain';
import { verifyHs256 } from './jwt-hs256';

export type Role = Principal['role'];
const ROLES: readonly Role[] = roleSchema.options;

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
    requestId?: string;
  }
}

/**
 * The secret as a KeyObject, made once: given a string, jsonwebtoken first tries
 * to parse it as a PEM public key on every call, which cost about half a
 * millisecond of CPU per request.
 */
const secretKeys = new Map<string, KeyObject>();
function secretKey(secret: string): KeyObject {
  let key = secretKeys.get(secret);
  if (!key) secretKeys.set(secret, (key = createSecretKey(Buffer.from(secret, 'utf8'))));
  return key;
}

/**
 * Tokens this process verified, by their exact text (signature included) and
 * secret: a buyer sends the same token with every request, and verifying it
 * again (decode, HMAC, claims) showed in a hold's CPU profile (docs/benchmarks.md).
 * An entry is used only until the token's own `exp`; bounded, cleared when full.
 */
const verified = new Map<string, { principal: Principal; expiresAtMs: number }>();
const VERIFIED_MAX = 10_000;

/** Verifies `Authorization: Bearer <JWT>` (HS256 only) and returns the principal, or throws 401. */
export function verifyToken(header: string | undefined, secret: string): Principal {
  const m = /^Bearer ([\w-]+\.[\w-]+\.[\w-]*)$/.exec(header ?? '');
  if (!m) throw errors.unauthorized();
  const token = m[1]!;
  const cacheKey = `${secret}\n${token}`;
  const known = verified.get(cacheKey);
  if (known && Date.now() < known.expiresAtMs) return known.principal;
  const claims = verifyHs256(token, secretKey(secret));
  if (!claims) throw errors.unauthorized('The bearer token is invalid or expired.');
  const { sub, role } = claims;
  if (typeof sub !== 'string' || !sub || sub.length > 200 || !storableText(sub) || !ROLES.includes(role as Role)) {
    throw errors.unauthorized('The bearer token lacks a valid sub or role.');
  }
  const principal: Principal = { id: sub, role: role as Role };
  // Only tokens with an expiry are remembered, and never past it.
  const exp = claims.exp;
  if (typeof exp === 'number') {
    if (verified.size >= VERIFIED_MAX) verified.clear();
    verified.set(cacheKey, { principal, expiresAtMs: exp * 1000 });
  }
  return principal;
}

/** Checks the bearer token and the role: the caller's principal, or 401 UNAUTHORIZED / 403 FORBIDDEN. */
export function authorize(req: Request, secret: string, roles: readonly Role[]): Principal {
  const principal = verifyToken(req.headers.authorization, secret);
  if (!roles.includes(principal.role)) throw errors.forbidden();
  return principal;
}

/**
 * Authorization as a middleware: sets `req.principal`. It reads no body; the
 * endpoints read theirs after it (mount-endpoints.ts), so a caller without the
 * right token is refused before its body is parsed.
 */
export function requireRole(secret: string, ...roles: Role[]): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    req.principal = authorize(req, secret, roles);
    next();
  };
}

export function signToken(secret: string, sub: string, role: Role, expiresInSeconds = 12 * 3600): string {
  return jwt.sign({ sub, role }, secret, { algorithm: 'HS256', expiresIn: expiresInSeconds });
}
