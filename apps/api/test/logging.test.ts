import { holdIdOf } from '@holdfast/contracts';
import { signToken } from '../src';
import { logLines, useTestApi, waitFor } from '@holdfast/test-kit';

const { lines, sink } = logLines();
const { api, redis } = useTestApi({
  LOG_LEVEL: 'debug', DEMO_MODE: 'true',
  JWT_SECRET: 'log-test-jwt-secret-0123456789', STRIPE_WEBHOOK_SECRET: 'whsec_log_test_secret_abcdef',
}, { privateRedis: true, logTo: sink });

test('when requests carry tokens and signatures and some fail, then every request line has its request id and no secret is logged', async () => {
  const config = api.config;
  const base = api.url;
  const secrets: string[] = [config.jwtSecret!, config.stripeWebhookSecret];
  try {
    const demo = await fetch(`${base}/v1/auth/demo-token`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customerId: 'log-c1', role: 'customer' }),
    });
    const { token: demoToken } = (await demo.json()) as { token: string };
    secrets.push(demoToken);
    const admin = signToken(config.jwtSecret!, 'log-admin', 'admin');
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
    const down = await call('DELETE', `/v1/holds/${holdIdOf('0'.repeat(32), '0'.repeat(24))}`, {
      authorization: `Bearer ${demoToken}`,
    });
    expect([503, 404]).toContain(down);
    const ready = await call('GET', '/readyz', {});
    expect(ready).toBe(503);
    // A request's line is written once its answer has gone out.
    const requestLineCount = () => lines.filter((l) => (JSON.parse(l) as { msg?: string }).msg === 'request').length;
    await waitFor('a log line for every request', () => requestLineCount() >= requestIds.length, { timeoutMs: 5000 });

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
  }
});
