import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import jwt from 'jsonwebtoken';
import { requireRole } from '../src/middleware/auth';
import { TokenVerifier } from '../src/middleware/token-verifier';
import { errorHandler } from '../src/middleware/errors';
import { safeEqual } from '../src/middleware/safe-equal';
import { createTestEvent, dropTestEvent, seatGrid, startApi, useTestApi } from '@holdfast/test-kit';

const { api } = useTestApi();

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const claims = () => ({ sub: 'admin-x', role: 'admin', exp: Math.floor(Date.now() / 1000) + 600 });

test('when a token is not HS256 with the secret (alg none, HS384, RS256, wrong secret, expired, bad claims), then it is 401', async () => {
  const secret = api.config.jwtSecret!;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const tokens: Record<string, string> = {
    none: `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`,
    noneWithSig: `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.${Buffer.from('x').toString('base64url')}`,
    hs384: jwt.sign(claims(), secret, { algorithm: 'HS384' }),
    hs512: jwt.sign(claims(), secret, { algorithm: 'HS512' }),
    rs256: jwt.sign(claims(), privateKey, { algorithm: 'RS256' }),
    wrongSecret: jwt.sign(claims(), `${secret}-not`, { algorithm: 'HS256' }),
    expired: jwt.sign({ ...claims(), exp: Math.floor(Date.now() / 1000) - 10 }, secret, { algorithm: 'HS256' }),
    noSub: jwt.sign({ role: 'admin' }, secret, { algorithm: 'HS256' }),
    badRole: jwt.sign({ sub: 'x', role: 'root' }, secret, { algorithm: 'HS256' }),
    numericSub: jwt.sign({ sub: 42, role: 'admin' } as object, secret, { algorithm: 'HS256' }),
    notAJwt: 'hello',
  };
  for (const [name, token] of Object.entries(tokens)) {
    const res = await api.call('GET', '/v1/admin/audit', { token });
    expect([name, res.status, res.body.error.code]).toEqual([name, 401, 'UNAUTHORIZED']);
  }
  for (const header of ['Basic abc', `bearer ${jwt.sign(claims(), secret)}`, `Bearer  ${jwt.sign(claims(), secret)}`, '']) {
    const res = await api.call('GET', '/v1/admin/audit', { headers: { authorization: header } });
    expect([header.slice(0, 8), res.status]).toEqual([header.slice(0, 8), 401]);
  }
  const good = await api.call('GET', '/v1/admin/audit', { token: jwt.sign(claims(), secret, { algorithm: 'HS256' }) });
  expect(good.status).toBe(200);
});

test('when a caller without the right token sends a malformed or oversized body, then it is refused 401/403 before the body is read', async () => {
  const { event } = await createTestEvent(api, { seats: seatGrid(['A'], 1, 1) });
  try {
    const huge = JSON.stringify({ seatIds: Array.from({ length: 20000 }, () => randomUUID()) }); // > 100 KiB
    expect(huge.length).toBeGreaterThan(102400);
    const path = `/v1/events/${event.id}/holds`;
    for (const raw of ['{"seatIds": [', huge, 'not json at all']) {
      expect((await api.call('POST', path, { raw })).status).toBe(401);
      expect((await api.call('POST', path, { raw, token: api.token('admin') })).status).toBe(403);
      expect((await api.call('POST', '/v1/admin/events', { raw, token: api.token('customer') })).status).toBe(403);
      expect((await api.call('DELETE', '/v1/admin/holds/x', { raw })).status).toBe(401);
    }
    const tooBig = await api.call('POST', path, { raw: huge, token: api.token('customer') });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const malformed = await api.call('POST', path, { raw: '{"seatIds": [', token: api.token('customer') });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('VALIDATION_FAILED');
  } finally {
    await dropTestEvent(api, event.id);
  }
});

test('when any answer is sent, then helmet\'s security headers are on it and X-Powered-By is not', async () => {
  for (const p of ['/healthz', '/v1/events', '/nope', '/docs']) {
    const res = await api.call('GET', p);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('strict-transport-security')).toContain('max-age=');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('x-request-id')).toMatch(/^[\w\-.]+$/);
  }
  const nope = await api.call('GET', '/nope');
  expect(nope.status).toBe(404);
  expect(nope.body.error.code).toBe('NOT_FOUND');
});

test('when CORS_ORIGINS is unset, then no CORS header is sent; when set, then only the listed origins get them', async () => {
  const off = await api.call('GET', '/v1/events', { headers: { origin: 'https://shop.example' } });
  expect(off.headers.get('access-control-allow-origin')).toBeNull();
  const pre = await api.call('OPTIONS', '/v1/admin/audit', { headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
  expect(pre.headers.get('access-control-allow-origin')).toBeNull();

  const on = await startApi({ CORS_ORIGINS: 'https://shop.example, https://admin.example' });
  try {
    const ok = await on.call('GET', '/v1/events', { headers: { origin: 'https://shop.example' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    expect(ok.headers.get('vary')).toContain('Origin');
    const other = await on.call('GET', '/v1/events', { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await on.call('OPTIONS', '/v1/events/x/holds', {
      headers: { origin: 'https://admin.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,idempotency-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    // The typed client's waiting-room header, and an admin's PATCH.
    const withPass = await on.call('OPTIONS', '/v1/events/x/holds', {
      headers: { origin: 'https://admin.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,holdfast-queue-pass' },
    });
    expect(withPass.headers.get('access-control-allow-headers')?.toLowerCase().split(/,\s*/)).toEqual(expect.arrayContaining(['authorization', 'content-type', 'holdfast-queue-pass']));
    const patch = await on.call('OPTIONS', '/v1/admin/events/x', {
      headers: { origin: 'https://admin.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(patch.headers.get('access-control-allow-methods')?.split(/,\s*/)).toContain('PATCH');
  } finally {
    await on.close();
  }
});

test('when a handler fails unexpectedly, then the answer is a structured 500 with the request id and no internal message or stack', async () => {
  const app = express();
  app.use((req, res, next) => {
    req.requestId = randomUUID();
    res.setHeader('X-Request-Id', req.requestId);
    next();
  });
  app.get('/boom', requireRole(new TokenVerifier({ jwtSecret: api.config.jwtSecret, auth: api.config.auth }), 'admin'), () => {
    throw new Error('relation "secret_table" does not exist at /srv/app/db.ts:42');
  });
  app.use(errorHandler(api.rt.log));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/boom`, {
      headers: { authorization: `Bearer ${api.token('admin')}` },
    });
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = JSON.parse(text);
    expect(body).toEqual({ error: { code: 'INTERNAL', message: expect.any(String), details: { requestId: res.headers.get('x-request-id') } } });
    expect(text).not.toMatch(/secret_table|db\.ts|at \/|Error:/);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('when secrets are compared, then safeEqual tells equal from unequal whatever the lengths', () => {
  expect(safeEqual('whsec_abc', 'whsec_abc')).toBe(true);
  expect(safeEqual('whsec_abc', 'whsec_abd')).toBe(false);
  expect(safeEqual('short', 'a much longer string')).toBe(false);
  expect(safeEqual('', '')).toBe(true);
  expect(safeEqual(Buffer.from('ab'), 'ab')).toBe(true);
});

test('when text with a NUL character or a lone surrogate reaches a field PostgreSQL would store, then it is 400 VALIDATION_FAILED, not 500', async () => {
  const { event } = await createTestEvent(api, { ticketTypes: [{ name: 'GA', priceCents: 1000, capacity: 10 }] });
  try {
    const held = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { ticketTypeId: event.ticketTypes[0].id, quantity: 1 } });
    const cases: [string, string, unknown, string][] = [
      ['POST', `/v1/holds/${held.body.hold.id}/confirm`, { paymentReference: 'pi_\u0000' }, api.token('service')],
      ['DELETE', `/v1/admin/holds/${held.body.hold.id}`, { reason: 'x\u0000' }, api.token('admin')],
      ['DELETE', `/v1/admin/holds/${held.body.hold.id}`, { reason: 'x\ud800' }, api.token('admin')],
      ['POST', `/v1/holds/${held.body.hold.id}/confirm`, { paymentReference: '\udc00pi' }, api.token('service')],
      ['POST', '/v1/admin/events', { name: 'n\u0000', startsAt: '2027-01-01T00:00:00Z' }, api.token('admin')],
      ['POST', '/v1/admin/events', { name: 'n', startsAt: '2027-01-01T00:00:00Z', seats: [{ section: 'A\u0000', row: '1', number: 1, tier: 't', priceCents: 1 }] }, api.token('admin')],
      ['POST', '/v1/admin/events', { name: 'n', startsAt: '2027-01-01T00:00:00Z', seats: [{ section: 'A', row: '1', number: 1, tier: 't\u0000', priceCents: 1 }] }, api.token('admin')],
    ];
    for (const [method, path, body, token] of cases) {
      const res = await api.call(method, path, { token, body });
      expect([path, res.status, res.body.error.code]).toEqual([path, 400, 'VALIDATION_FAILED']);
    }
    const nulSub = jwt.sign({ sub: 'c\u0000x', role: 'customer' }, api.config.jwtSecret!, { algorithm: 'HS256' });
    const res = await api.call('POST', `/v1/events/${event.id}/holds`, { token: nulSub, body: { ticketTypeId: event.ticketTypes[0].id, quantity: 1 } });
    expect(res.status).toBe(401);
    const get = await api.call('GET', `/v1/holds/${held.body.hold.id}`, { token: api.token('admin') });
    expect(get.body.hold.status).toBe('active');
  } finally {
    await dropTestEvent(api, event.id);
  }
});
