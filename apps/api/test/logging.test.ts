import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { loadConfig } from '@holdfast/config';
import { createApiRuntime, createLogger, signToken } from '../src';
import { RedisProcess } from '@holdfast/test-kit';

test('when requests carry tokens and signatures and some fail, then every request line has its request id and no secret is logged', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const redis = await RedisProcess.start();
  const config = loadConfig({
    ...process.env, REDIS_URL: redis.url, LOG_LEVEL: 'debug', DEMO_MODE: 'true',
    JWT_SECRET: 'log-test-jwt-secret-0123456789', STRIPE_WEBHOOK_SECRET: 'whsec_log_test_secret_abcdef',
  });
  const rt = await createApiRuntime(config, createLogger(config, 'holdfast-api', sink));
  const server = rt.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const secrets: string[] = [config.jwtSecret, config.stripeWebhookSecret];
  try {
    const demo = await fetch(`${base}/v1/auth/demo-token`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customerId: 'log-c1', role: 'customer' }),
    });
    const { token: demoToken } = (await demo.json()) as { token: string };
    secrets.push(demoToken);
    const admin = signToken(config.jwtSecret, 'log-admin', 'admin');
    secrets.push(admin);
    const signature = 't=1700000000,v1=' + 'ab'.repeat(32);
    secrets.push(signature);
    const requestIds: string[] = [demo.headers.get('x-request-id')!];
    const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
      const res = await fetch(base + path, {
        method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
      });
      await res.text();
      requestIds.push(res.headers.get('x-request-id')!);
      return res.status;
    };
    expect(await call('GET', '/v1/events', { authorization: `Bearer ${demoToken}` })).toBe(200);
    expect(await call('POST', '/v1/admin/reconcile', { authorization: `Bearer ${demoToken}x` })).toBe(401);
    expect(await call('POST', '/v1/webhooks/stripe', { 'stripe-signature': signature }, { id: 'evt_1' })).not.toBe(500);
    expect(await call('GET', '/v1/admin/reconcile/last', { authorization: `Bearer ${admin}` })).toBe(200);
    await redis.kill();
    const down = await call('DELETE', '/v1/holds/hld_00000000000000000000000000000000_000000000000000000000000', {
      authorization: `Bearer ${demoToken}`,
    });
    expect([503, 404]).toContain(down);
    const ready = await call('GET', '/readyz', {});
    expect(ready).toBe(503);
    await new Promise((r) => setTimeout(r, 100));

    const text = lines.join('\n');
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).not.toMatch(/Bearer /i);
    const parsed = lines.map((l) => JSON.parse(l) as { msg?: string; reqId?: string });
    const requestLines = parsed.filter((l) => l.msg === 'request');
    expect(requestLines.length).toBe(requestIds.length);
    expect(requestLines.map((l) => l.reqId).sort()).toEqual([...requestIds].sort());
    for (const l of parsed.filter((x) => x.msg === 'dependency unavailable' || x.msg === 'unhandled error')) {
      expect(requestIds).toContain(l.reqId);
    }
  } finally {
    await redis.start();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await rt.close();
    await redis.stop();
  }
});
