// A variable set to nothing (`PORT=`, or Compose's `${X:-}` with X unset) is not set: its default
// applies, or the error a missing required one gives, never a 0 parsed from ''.
import { loadConfig } from '../src';

test('when numeric settings are set to nothing, then their defaults apply', () => {
  const config = loadConfig({ PORT: '', WORKER_METRICS_PORT: '', DATABASE_QUERY_TIMEOUT_MS: '', DATABASE_CONNECT_TIMEOUT_MS: '', LOG_LEVEL: '' });
  expect(config.port).toBe(3000);
  expect(config.workerMetricsPort).toBe(9464);
  expect(config.logLevel).toBe('info');
  expect(config.database).toEqual(loadConfig({}).database);
});

test('when a production secret is set to nothing, then start-up stops naming it as missing', () => {
  const base = { NODE_ENV: 'production', DATABASE_URL: 'postgresql://postgres@db:5432/holdfast', REDIS_URL: 'redis://redis:6379' };
  expect(() => loadConfig({ ...base, JWT_SECRET: '', STRIPE_WEBHOOK_SECRET: 'whsec_live_12345678' })).toThrow(/JWT_SECRET/);
  expect(() => loadConfig({ ...base, JWT_SECRET: 'x'.repeat(32), STRIPE_WEBHOOK_SECRET: '' })).toThrow(/STRIPE_WEBHOOK_SECRET/);
});
