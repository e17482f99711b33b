import type { NextFunction, Request, RequestHandler, Response } from 'express';
import jwt from 'jsonwebtoken';
import { errors, type Principal } from '@holdfast/domain';
import type { Role, TokenVerifier } from './token-verifier';

export type { Role } from './token-verifier';

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
    requestId?: string;
  }
}

/** Checks the bearer token and the role: the caller's principal, or 401 UNAUTHORIZED / 403 FORBIDDEN. */
export async function authorize(req: Request, verifier: TokenVerifier, roles: readonly Role[]): Promise<Principal> {
  const principal = await verifier.verify(req.headers.authorization);
  if (!roles.includes(principal.role)) throw errors.forbidden();
  return principal;
}

/**
 * Authorization as a middleware: sets `req.principal`. It reads no body; the
 * endpoints read theirs after it (mount-endpoints.ts), so a caller without the
 * right token is refused before its body is parsed.
 */
export function requireRole(verifier: TokenVerifier, ...roles: Role[]): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    authorize(req, verifier, roles).then((principal) => {
      req.principal = principal;
      next();
    }, next);
  };
}

/** An HS256 token of holdfast's own format (demo tokens, tests): `sub`, `role`, 12 hours unless told. */
export function signToken(secret: string, sub: string, role: Role, expiresInSeconds = 12 * 3600): string {
  return jwt.sign({ sub, role }, secret, { algorithm: 'HS256', expiresIn: expiresInSeconds });
}
