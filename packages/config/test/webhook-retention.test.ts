// WEBHOOK_RETENTION_DAYS: whole days, 1 to 3650, 30 by default, and never shorter than the retry
// window; a bad value stops start-up with one line naming it.
import { ConfigError, loadConfig } from '../src';

const DAY_MS = 86_400_000;

test('when WEBHOOK_RETENTION_DAYS is not set, then webhook history is kept 30 days', () => {
  expect(loadConfig({}).webhooks.retentionMs).toBe(30 * DAY_MS);
});

test('when WEBHOOK_RETENTION_DAYS is a whole number of days in range, then it is the retention period', () => {
  expect(loadConfig({ WEBHOOK_RETENTION_DAYS: '7' }).webhooks.retentionMs).toBe(7 * DAY_MS);
  expect(loadConfig({ WEBHOOK_RETENTION_DAYS: '3650' }).webhooks.retentionMs).toBe(3650 * DAY_MS);
});

test.each([
  ['0', 'WEBHOOK_RETENTION_DAYS must be at least 1 (day)'],
  ['-5', 'WEBHOOK_RETENTION_DAYS must be at least 1 (day)'],
  ['3651', 'WEBHOOK_RETENTION_DAYS must be at most 3650 (days)'],
  ['1.5', 'WEBHOOK_RETENTION_DAYS must be a whole number of days'],
  ['thirty', 'WEBHOOK_RETENTION_DAYS must be a whole number of days'],
])('when WEBHOOK_RETENTION_DAYS is %j, then config parsing fails with a message naming it', (value, message) => {
  expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: value })).toThrow(ConfigError);
  expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: value })).toThrow(`Invalid configuration: ${message}`);
});

test('when WEBHOOK_RETENTION_DAYS is shorter than WEBHOOK_RETRY_WINDOW_SECONDS, then config parsing fails naming both', () => {
  expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: '1', WEBHOOK_RETRY_WINDOW_SECONDS: String(2 * 86400) }))
    .toThrow(/WEBHOOK_RETENTION_DAYS must cover WEBHOOK_RETRY_WINDOW_SECONDS/);
  expect(loadConfig({ WEBHOOK_RETENTION_DAYS: '2', WEBHOOK_RETRY_WINDOW_SECONDS: String(2 * 86400) }).webhooks.retentionMs).toBe(2 * DAY_MS);
});
