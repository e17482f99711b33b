// Bearer tokens from an OIDC issuer: a real issuer started by the test (discovery
// and a JWKS over HTTP on loopback, keys made with jose), the real API verifying
// its RS256 and ES256 tokens next to HS256 ones, and every refusal a 401 with its reason.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import jwt from 'jsonwebtoken';
import { ConfigError, loadConfig } from '@holdfast/config';
import { startApi, type TestApi } from '@holdfast/test-kit';

const AUDIENCE = 'holdfast-api';
const COOLDOWN_MS = 300;
const UNKNOWN_EVENT = '00000000-0000-4000-8000-000000000000';

interface Key { kid: string; alg: 'RS256' | 'ES256'; privateKey: CryptoKey; publicKey: CryptoKey; jwk: JWK }

async function makeKey(kid: string, alg: 'RS256' | 'ES256'): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** A small OIDC issuer: discovery and a JWKS whose keys the test changes; counts the JWKS reads. */
class TestIssuer {
  published: Key[] = [];
  jwksReads = 0;
  discoveryReads = 0;
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        this.discoveryReads += 1;
        res.end(JSON.stringify({ issuer: this.url, jwks_uri: `${this.url}/jwks`, id_token_signing_alg_values_supported: ['RS256', 'ES256'] }));
      } else if (req.url === '/jwks') {
        this.jwksReads += 1;
        res.end(JSON.stringify({ keys: this.published.map((k) => k.jwk) }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** A token signed by `key` with the right issuer and audience, 10 minutes, unless `claims`/`header` say otherwise. */
  sign(key: Key, claims: Record<string, unknown> = {}, options: { iss?: string; aud?: string; exp?: number; nbf?: number; sub?: string } = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const signer = new SignJWT({ role: 'admin', ...claims })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .setIssuer(options.iss ?? this.url)
      .setAudience(options.aud ?? AUDIENCE)
      .setSubject(options.sub ?? `user-${Math.random().toString(36).slice(2)}`)
      .setIssuedAt(now)
      .setExpirationTime(options.exp ?? now + 600);
    if (options.nbf !== undefined) signer.setNotBefore(options.nbf);
    return signer.sign(key.privateKey);
  }
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const issuer = new TestIssuer();
let api: TestApi;
let rsa: Key;
let ec: Key;

/** An admin-only call: 404 EVENT_NOT_FOUND once the token is accepted as admin, 403 for another role, 401 when refused. */
const adminCall = (token: string) => api.call('GET', `/v1/admin/events/${UNKNOWN_EVENT}/sales`, { token });

async function expectRefused(token: string, reason: string): Promise<void> {
  const res = await adminCall(token);
  expect([res.status, res.body.error?.code, res.body.error?.details?.reason]).toEqual([401, 'UNAUTHORIZED', reason]);
}

async function expectAdmin(token: string): Promise<void> {
  const res = await adminCall(token);
  expect([res.status, res.body.error?.code]).toEqual([404, 'EVENT_NOT_FOUND']);
}

beforeAll(async () => {
  await issuer.start();
  [rsa, ec] = await Promise.all([makeKey('rsa-1', 'RS256'), makeKey('ec-1', 'ES256')]);
  issuer.published = [rsa, ec];
  api = await startApi({
    AUTH_ISSUER: issuer.url,
    AUTH_AUDIENCE: `other-api,${AUDIENCE}`,
    AUTH_ROLE_MAP: 'buyer=customer,ops=admin',
    AUTH_JWKS_COOLDOWN_MS: String(COOLDOWN_MS),
  });
});

afterAll(async () => {
  await api?.close();
  await issuer.stop();
});

test('when RS256 and ES256 tokens carry the right iss and aud, then they are accepted; HS256 tokens of JWT_SECRET are still accepted beside them', async () => {
  await expectAdmin(await issuer.sign(rsa));
  await expectAdmin(await issuer.sign(ec));
  await expectAdmin(api.token('admin'));
  expect(issuer.discoveryReads).toBe(1);
});

test('when the role claim holds the provider\'s own names, then the mapping renames them and our names count as they are', async () => {
  const buyer = await adminCall(await issuer.sign(rsa, { role: 'buyer' }));
  expect([buyer.status, buyer.body.error?.code]).toEqual([403, 'FORBIDDEN']);
  await expectAdmin(await issuer.sign(ec, { role: ['offline_access', 'ops'] }));
  const customer = await adminCall(await issuer.sign(rsa, { role: 'customer' }));
  expect([customer.status, customer.body.error?.code]).toEqual([403, 'FORBIDDEN']);
  await expectRefused(await issuer.sign(rsa, { role: 'superuser' }), 'unknown_role');
  await expectRefused(await issuer.sign(rsa, { role: undefined }), 'unknown_role');
});

test('when a token names another issuer or another audience, then 401 wrong_issuer or wrong_audience', async () => {
  await expectRefused(await issuer.sign(rsa, {}, { iss: 'https://evil.example.com' }), 'wrong_issuer');
  await expectRefused(await issuer.sign(ec, {}, { aud: 'someone-else' }), 'wrong_audience');
});

test('when a token is expired or not yet valid beyond the clock skew, then 401 token_expired or token_not_yet_valid; within the skew it is accepted', async () => {
  const now = Math.floor(Date.now() / 1000);
  await expectRefused(await issuer.sign(rsa, {}, { exp: now - 120 }), 'token_expired');
  await expectRefused(await issuer.sign(ec, {}, { nbf: now + 120 }), 'token_not_yet_valid');
  await expectAdmin(await issuer.sign(rsa, {}, { exp: now - 5 }));
  await expectAdmin(await issuer.sign(ec, {}, { nbf: now + 5 }));
});

test('when a token says alg none, or is HS256 signed with the issuer\'s public key, or uses an algorithm not pinned, then 401', async () => {
  const claims = { sub: 'attacker', role: 'admin', iss: issuer.url, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 600 };
  await expectRefused(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`, 'algorithm_not_allowed');
  await expectRefused(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.c2lnbmF0dXJl`, 'algorithm_not_allowed');
  const publicPem = await exportSPKI(rsa.publicKey);
  await expectRefused(jwt.sign(claims, publicPem, { algorithm: 'HS256', header: { alg: 'HS256', kid: rsa.kid } as never }), 'bad_signature');
  // An issuer key used with an algorithm outside AUTH_ALGORITHMS (RS256,ES256 by default).
  const key384 = await generateKeyPair('RS384');
  const rs384 = await new SignJWT({ role: 'admin' }).setProtectedHeader({ alg: 'RS384', kid: rsa.kid }).setIssuer(issuer.url).setAudience(AUDIENCE)
    .setSubject('s').setExpirationTime('5m').sign(key384.privateKey);
  await expectRefused(rs384, 'algorithm_not_allowed');
  // An ES256 header over the RSA key's kid: no key of that type under that kid.
  const forged = `${b64({ alg: 'ES256', kid: rsa.kid })}.${b64(claims)}.${Buffer.alloc(64).toString('base64url')}`;
  const res = await adminCall(forged);
  expect([res.status, res.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
});

test('when a token names an unknown kid, then the JWKS is fetched once more and the token refused; a second one within the cooldown fetches nothing', async () => {
  await sleep(COOLDOWN_MS + 100);
  const ghost = await makeKey('ghost', 'RS256');
  const reads = issuer.jwksReads;
  await expectRefused(await issuer.sign(ghost), 'unknown_key');
  expect(issuer.jwksReads).toBe(reads + 1);
  await expectRefused(await issuer.sign(ghost), 'unknown_key');
  expect(issuer.jwksReads).toBe(reads + 1);
});

test('when the issuer rotates its keys mid-run, then a token of the new key is accepted after one JWKS fetch and a new token of the removed key is refused', async () => {
  const before = await issuer.sign(rsa);
  await expectAdmin(before);
  const next = await makeKey('rsa-2', 'RS256');
  issuer.published = [next, ec];
  await sleep(COOLDOWN_MS + 100);
  const reads = issuer.jwksReads;
  await expectAdmin(await issuer.sign(next));
  expect(issuer.jwksReads).toBe(reads + 1);
  await sleep(COOLDOWN_MS + 100);
  await expectRefused(await issuer.sign(rsa), 'unknown_key');
  await expectAdmin(await issuer.sign(ec));
});

test('when the issuer cannot be reached, then the API still starts, its tokens answer 503 issuer_unavailable and HS256 tokens still work', async () => {
  const down = new TestIssuer();
  await down.start();
  const url = down.url;
  await down.stop();
  const other = await startApi({ AUTH_ISSUER: url, AUTH_AUDIENCE: AUDIENCE });
  try {
    const token = await new SignJWT({ role: 'admin' }).setProtectedHeader({ alg: 'RS256', kid: rsa.kid }).setIssuer(url).setAudience(AUDIENCE)
      .setSubject('s').setExpirationTime('5m').sign(rsa.privateKey);
    const res = await other.call('GET', `/v1/admin/events/${UNKNOWN_EVENT}/sales`, { token });
    expect([res.status, res.body.error?.code, res.body.error?.details?.reason]).toEqual([503, 'SERVICE_UNAVAILABLE', 'issuer_unavailable']);
    expect(res.headers.get('retry-after')).toBe('5');
    const hs = await other.call('GET', `/v1/admin/events/${UNKNOWN_EVENT}/sales`, { token: other.token('admin') });
    expect(hs.status).toBe(404);
  } finally {
    await other.close();
  }
});

describe('configuration', () => {
  const base = { NODE_ENV: 'production', JWT_SECRET: 'a-secret-long-enough-0123', STRIPE_WEBHOOK_SECRET: 'whsec_0123456789' };

  test('when AUTH_ISSUER is plain http off loopback outside demo mode and tests, then start-up stops with one line; https, or http on loopback, is taken', () => {
    expect(() => loadConfig({ ...base, AUTH_ISSUER: 'http://idp.example.com', AUTH_AUDIENCE: 'a' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, AUTH_ISSUER: 'http://idp.example.com', AUTH_AUDIENCE: 'a' })).toThrow(/AUTH_ISSUER must be an https:\/\/ URL/);
    expect(loadConfig({ ...base, AUTH_ISSUER: 'http://127.0.0.1:8080/realms/x', AUTH_AUDIENCE: 'a' }).auth.issuer?.issuer).toBe('http://127.0.0.1:8080/realms/x');
    expect(loadConfig({ ...base, NODE_ENV: 'test', AUTH_ISSUER: 'http://idp.example.com', AUTH_AUDIENCE: 'a' }).auth.issuer?.allowPlainHttp).toBe(true);
  });

  test('when AUTH_ISSUER is a discovery URL or an issuer, then both name the same issuer and discovery document; AUTH_AUDIENCE is required with it', () => {
    const byDiscovery = loadConfig({ ...base, AUTH_ISSUER: 'https://idp.example.com/tenant/.well-known/openid-configuration', AUTH_AUDIENCE: 'a, b' }).auth.issuer!;
    expect(byDiscovery).toMatchObject({ issuer: 'https://idp.example.com/tenant', discoveryUrl: 'https://idp.example.com/tenant/.well-known/openid-configuration', audience: ['a', 'b'] });
    expect(loadConfig({ ...base, AUTH_ISSUER: 'https://idp.example.com/tenant/', AUTH_AUDIENCE: 'a' }).auth.issuer).toMatchObject({
      issuer: 'https://idp.example.com/tenant/', discoveryUrl: 'https://idp.example.com/tenant/.well-known/openid-configuration', algorithms: ['RS256', 'ES256'], clockSkewSeconds: 30,
    });
    expect(() => loadConfig({ ...base, AUTH_ISSUER: 'https://idp.example.com' })).toThrow(/AUTH_AUDIENCE must be set/);
    expect(() => loadConfig({ ...base, AUTH_ALGORITHMS: 'HS256' })).toThrow(/AUTH_ALGORITHMS/);
    expect(() => loadConfig({ ...base, AUTH_ROLE_MAP: 'staff=root' })).toThrow(/AUTH_ROLE_MAP/);
  });

  test('when only AUTH_ISSUER is set outside demo mode, then JWT_SECRET may be left out and HS256 tokens have no secret', () => {
    const config = loadConfig({ ...base, JWT_SECRET: undefined, AUTH_ISSUER: 'https://idp.example.com', AUTH_AUDIENCE: 'a' });
    expect(config.jwtSecret).toBeNull();
    expect(() => loadConfig({ ...base, JWT_SECRET: undefined })).toThrow(/JWT_SECRET must be set/);
  });
});
