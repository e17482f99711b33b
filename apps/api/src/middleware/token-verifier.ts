// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- jose's types by path (jose-types.d.ts says why); every program that compiles this file gets them
/// <reference path="../jose-types.d.ts" />
import { createVerifier, TokenError } from 'fast-jwt';
import { createRemoteJWKSet, decodeProtectedHeader, errors as jose, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Logger } from 'pino';
import { isLoopbackHost, type AuthConfig, type IssuerConfig } from '@holdfast/config';
import { role as roleSchema, storableText } from '@holdfast/contracts';
import { AppError, type Principal } from '@holdfast/domain';

export type Role = Principal['role'];
const ROLES: readonly Role[] = roleSchema.options;
/** When a token names several of our roles, the first of these wins. */
const ROLE_PRECEDENCE: readonly Role[] = ['admin', 'service', 'customer'];

/**
 * Why a bearer token was refused: `401 UNAUTHORIZED` with `details.reason`
 * (docs/http-api.md, "Authentication and roles").
 */
export const TOKEN_REFUSALS = {
  missing: 'A valid bearer token is required.',
  malformed: 'The bearer token is not a signed JWT.',
  algorithm_not_allowed: 'The token\'s signing algorithm is not accepted here.',
  bad_signature: 'The token\'s signature does not verify.',
  token_expired: 'The token has expired.',
  token_not_yet_valid: 'The token is not valid yet (nbf).',
  wrong_issuer: 'The token was issued by another issuer.',
  wrong_audience: 'The token is meant for another audience.',
  unknown_key: 'No key of the issuer matches the token\'s kid.',
  invalid_claims: 'The token lacks a valid sub, or one of its claims is malformed.',
  unknown_role: 'The token\'s role claim names no role of holdfast.',
} as const;
export type TokenRefusal = keyof typeof TOKEN_REFUSALS;

const refuse = (reason: TokenRefusal) => new AppError('UNAUTHORIZED', TOKEN_REFUSALS[reason], 401, { reason });
const issuerUnavailable = () =>
  new AppError('SERVICE_UNAVAILABLE', 'The token issuer cannot be reached to check this token; retry shortly.', 503, { reason: 'issuer_unavailable' }, { 'Retry-After': '5' });

/** fast-jwt's verdicts on an HS256 token as our refusals (the same reasons jose's gave). */
const FAST_JWT_REFUSALS: Partial<Record<string, TokenRefusal>> = {
  [TokenError.codes.invalidSignature]: 'bad_signature',
  [TokenError.codes.missingSignature]: 'bad_signature',
  [TokenError.codes.expired]: 'token_expired',
  [TokenError.codes.inactive]: 'token_not_yet_valid',
  [TokenError.codes.invalidAlgorithm]: 'algorithm_not_allowed',
  [TokenError.codes.invalidClaimType]: 'invalid_claims',
  [TokenError.codes.invalidClaimValue]: 'invalid_claims',
  [TokenError.codes.missingRequiredClaim]: 'invalid_claims',
};

/** jose's and fast-jwt's verdicts as our refusals; anything else (a fetch that failed) means the issuer is unavailable. */
function refusalOf(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof TokenError) return refuse(FAST_JWT_REFUSALS[err.code] ?? 'malformed');
  if (err instanceof jose.JWTExpired) return refuse('token_expired');
  if (err instanceof jose.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return refuse('token_not_yet_valid');
    if (err.claim === 'iss') return refuse('wrong_issuer');
    if (err.claim === 'aud') return refuse('wrong_audience');
    return refuse('invalid_claims');
  }
  if (err instanceof jose.JWSSignatureVerificationFailed) return refuse('bad_signature');
  if (err instanceof jose.JOSEAlgNotAllowed) return refuse('algorithm_not_allowed');
  if (err instanceof jose.JWKSNoMatchingKey || err instanceof jose.JWKSMultipleMatchingKeys) return refuse('unknown_key');
  if (err instanceof jose.JWKSTimeout || err instanceof jose.JWKSInvalid) return issuerUnavailable();
  if (err instanceof jose.JWSInvalid || err instanceof jose.JWTInvalid || err instanceof jose.JOSENotSupported) return refuse('malformed');
  // jose's own "Expected 200 OK from the JSON Web Key Set HTTP response", a refused connection, a DNS failure.
  return issuerUnavailable();
}

const BEARER = /^Bearer ([\w-]+\.[\w-]+\.[\w-]*)$/;

/** A JWKS, its host, and our scheme rule: https, or plain http on loopback or in demo mode or tests. */
function allowedUrl(url: URL, issuer: IssuerConfig): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && (issuer.allowPlainHttp || isLoopbackHost(url.hostname)));
}

/** How long a failed discovery is remembered before the next token tries again. */
const DISCOVERY_RETRY_MS = 5_000;
const FETCH_TIMEOUT_MS = 5_000;

/**
 * One OIDC issuer: its discovery document read on first need (or at start-up,
 * by `warmUp`), its JWKS through jose's remote key set (cached; fetched again
 * for a `kid` it does not know, at most once per `jwksCooldownMs`), its tokens
 * checked for the configured algorithms, `iss`, `aud`, `exp` and `nbf` with the
 * clock skew. A discovery that fails is an error for the tokens that needed it
 * (503), retried by a later token after a few seconds: it never stops the API.
 */
export class OidcIssuer {
  private ready: { issuer: string; jwks: JWTVerifyGetKey } | null = null;
  private pending: Promise<{ issuer: string; jwks: JWTVerifyGetKey }> | null = null;
  private failedAtMs = -Infinity;

  constructor(readonly config: IssuerConfig, private readonly log?: Logger) {}

  /** Reads the discovery document now (the API calls it at start-up); a failure is logged, not thrown. */
  async warmUp(): Promise<boolean> {
    try {
      await this.discover();
      return true;
    } catch {
      return false;
    }
  }

  private async discover(): Promise<{ issuer: string; jwks: JWTVerifyGetKey }> {
    if (this.ready) return this.ready;
    if (this.pending) return this.pending;
    if (Date.now() - this.failedAtMs < DISCOVERY_RETRY_MS) throw issuerUnavailable();
    this.pending = this.fetchDiscovery()
      .then((found) => (this.ready = found))
      .catch((err: unknown) => {
        this.failedAtMs = Date.now();
        this.log?.error({ discoveryUrl: this.config.discoveryUrl, err: (err as Error).message }, 'AUTH_ISSUER: discovery failed; tokens of the issuer answer 503 until it succeeds');
        throw issuerUnavailable();
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  private async fetchDiscovery(): Promise<{ issuer: string; jwks: JWTVerifyGetKey }> {
    const res = await fetch(this.config.discoveryUrl, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`${this.config.discoveryUrl} answered ${res.status}`);
    const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
    if (typeof doc.issuer !== 'string' || doc.issuer.replace(/\/$/, '') !== this.config.issuer.replace(/\/$/, '')) {
      throw new Error(`the discovery document names issuer ${JSON.stringify(doc.issuer)}, not ${this.config.issuer}`);
    }
    if (typeof doc.jwks_uri !== 'string') throw new Error('the discovery document has no jwks_uri');
    const jwksUrl = new URL(doc.jwks_uri);
    if (!allowedUrl(jwksUrl, this.config)) throw new Error(`jwks_uri ${jwksUrl.href} is not https`);
    const jwks = createRemoteJWKSet(jwksUrl, { cooldownDuration: this.config.jwksCooldownMs, cacheMaxAge: 10 * 60_000, timeoutDuration: FETCH_TIMEOUT_MS });
    this.log?.info({ issuer: doc.issuer, jwksUri: jwksUrl.href }, 'AUTH_ISSUER: discovery read');
    return { issuer: doc.issuer, jwks };
  }

  /** The token's claims once its signature (a key of the JWKS), algorithm, iss, aud, exp and nbf check out. */
  async verify(token: string): Promise<JWTPayload> {
    const { issuer, jwks } = await this.discover();
    const { payload } = await jwtVerify(token, jwks, {
      algorithms: this.config.algorithms,
      issuer,
      audience: this.config.audience,
      clockTolerance: this.config.clockSkewSeconds,
      requiredClaims: ['exp', 'sub'],
    });
    return payload;
  }
}

/** The claim at `name`: the claim of that exact name, else a dotted path into objects (`realm_access.roles`). */
function claimAt(payload: JWTPayload, name: string): unknown {
  if (name in payload) return payload[name];
  let value: unknown = payload;
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Our role from an issuer's token: its role claim (a string or an array), each value renamed by the map or taken as is. */
export function roleOfClaims(payload: JWTPayload, auth: Pick<AuthConfig, 'roleClaim' | 'roleMap'>): Role | null {
  const claim = claimAt(payload, auth.roleClaim);
  const values = typeof claim === 'string' ? [claim] : Array.isArray(claim) ? claim.filter((v): v is string => typeof v === 'string') : [];
  const roles = new Set<Role>();
  for (const value of values) {
    const mapped = Object.hasOwn(auth.roleMap, value) ? auth.roleMap[value] : (ROLES as readonly string[]).includes(value) ? (value as Role) : undefined;
    if (mapped) roles.add(mapped);
  }
  return ROLE_PRECEDENCE.find((r) => roles.has(r)) ?? null;
}

function subjectOf(payload: JWTPayload): string {
  const { sub } = payload;
  if (typeof sub !== 'string' || !sub || sub.length > 200 || !storableText(sub)) throw refuse('invalid_claims');
  return sub;
}

export interface TokenVerifierOptions {
  /** HS256 tokens are checked against it; null refuses them. */
  jwtSecret: string | null;
  auth: AuthConfig;
  log?: Logger;
}

/**
 * Verifies `Authorization: Bearer <JWT>` by the token's header: HS256 against
 * JWT_SECRET with fast-jwt (claims `sub` and `role`, `exp`/`nbf` exact), an
 * issuer's algorithms against its JWKS with jose (`iss`, `aud`, `exp`, `nbf`
 * with the clock skew, the role from AUTH_ROLE_CLAIM). Any other algorithm,
 * `none` included, is refused. HS256 goes through fast-jwt because its check is
 * synchronous on node's createHmac: jose's HS256 goes through WebCrypto, about
 * ten times the CPU of a new token (`git show 2f325bf:docs/benchmarks.md`, "HS256 through fast-jwt").
 */
export class TokenVerifier {
  readonly issuer: OidcIssuer | null;
  /** fast-jwt's HS256 verifier, algorithms pinned; null when there is no secret. Its own cache is off: `verified` below serves both kinds of token. */
  private readonly hs256: ((token: string) => JWTPayload) | null;
  private readonly auth: AuthConfig;
  /**
   * Tokens this verifier accepted, by their header's exact text: a buyer sends the same
   * token with every request, and checking it again showed in a hold's CPU
   * profile (docs/benchmarks.md, "Settings chosen by measurement"). An entry serves only until the token's own
   * `exp`; bounded, cleared when full.
   */
  private readonly verified = new Map<string, { principal: Principal; expiresAtMs: number }>();
  private static readonly VERIFIED_MAX = 10_000;
  /**
   * The `alg` of each token header text met lately (a token's first segment, before its
   * first dot): the header of every token of one signer is the same text, and decoding it
   * for every new token (jose's decodeProtectedHeader: base64url, JSON, checks) only to be
   * decoded again by the verifier was about a third of a new token's check in a hold's CPU
   * profile. A header that does not decode is not remembered (refused each time); bounded,
   * cleared when full.
   */
  private readonly algOfHeader = new Map<string, unknown>();
  private static readonly HEADERS_MAX = 64;

  constructor(options: TokenVerifierOptions) {
    this.hs256 = options.jwtSecret === null ? null : createVerifier({ key: options.jwtSecret, algorithms: ['HS256'], cache: false });
    this.auth = options.auth;
    this.issuer = options.auth.issuer ? new OidcIssuer(options.auth.issuer, options.log) : null;
  }

  /** The caller's principal, or throws 401 UNAUTHORIZED (`details.reason`), or 503 when the issuer cannot be reached. */
  async verify(authorization: string | undefined): Promise<Principal> {
    if (!authorization) throw refuse('missing');
    // Remembered by the whole header (`Bearer <token>`): a header found there matched BEARER
    // when it was verified, so the pattern (a scan of the whole token) runs only for new ones.
    const known = this.verified.get(authorization);
    if (known && Date.now() < known.expiresAtMs) return known.principal;
    const m = BEARER.exec(authorization);
    if (!m) throw refuse('malformed');
    const token = m[1]!;
    const { principal, exp } = await this.check(token).catch((err: unknown) => {
      throw refusalOf(err);
    });
    // Only tokens with an expiry are remembered, and never past it.
    if (typeof exp === 'number') {
      if (this.verified.size >= TokenVerifier.VERIFIED_MAX) this.verified.clear();
      this.verified.set(authorization, { principal, expiresAtMs: exp * 1000 });
    }
    return principal;
  }

  private async check(token: string): Promise<{ principal: Principal; exp: number | undefined }> {
    const alg = this.algOf(token);
    if (alg === 'HS256') {
      if (!this.hs256) throw refuse('algorithm_not_allowed');
      const payload = this.hs256(token);
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw refuse('malformed');
      const id = subjectOf(payload);
      const role = payload.role;
      if (!(ROLES as readonly unknown[]).includes(role)) throw refuse('unknown_role');
      return { principal: { id, role: role as Role }, exp: payload.exp };
    }
    if (this.issuer && typeof alg === 'string' && this.issuer.config.algorithms.includes(alg)) {
      const payload = await this.issuer.verify(token);
      const id = subjectOf(payload);
      const role = roleOfClaims(payload, this.auth);
      if (!role) throw refuse('unknown_role');
      return { principal: { id, role }, exp: payload.exp };
    }
    throw refuse('algorithm_not_allowed');
  }

  /** The token's header's `alg` (the token matched BEARER: it has its dots). */
  private algOf(token: string): unknown {
    const header = token.slice(0, token.indexOf('.'));
    if (this.algOfHeader.has(header)) return this.algOfHeader.get(header);
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw refuse('malformed');
    }
    if (this.algOfHeader.size >= TokenVerifier.HEADERS_MAX) this.algOfHeader.clear();
    this.algOfHeader.set(header, alg);
    return alg;
  }
}
