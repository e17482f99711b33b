import { renderSoakSection, type SoakReport } from '../src/holdfast/holdfast-soak.bench';

function report(unfinished: SoakReport['ended']['unfinished']): SoakReport {
  return {
    durationSec: 240, holdsPerSecAsked: 300, holdTtlSeconds: 20,
    holds: { ok: 1000, failed: 0, statusCounts: { '201': 1000 } },
    confirmed: 50, paidByWebhook: 50, released: 400, expired: 500, actionFailures: 0, failureSamples: [], samples: [],
    peak: { liveHolds: 100, redisDeltaBytes: 1e6, bytesPerLiveHold: 10_000, census: [], holdKeyBytesPerLiveHold: 5_000 },
    ended: {
      holds: 1000, waitedSec: 140, unfinished, redisDeltaBytes: 40_000, bytesPerEndedHold: 40, census: [],
      bytesPerEndedHoldAfterHour: unfinished ? 300 : 39, otherBytesAfterHour: 0,
    },
    apiRssMb: { start: 100, max: 120, end: 110 }, note: '',
  };
}

test('when every hold ended before the wait\'s limit, then the soak section says so', () => {
  const text = renderSoakSection(report(null)).join('\n');
  expect(text).toContain('every hold ended 140 s after the sale.');
  expect(text).not.toContain('not every hold had ended');
});

test('when the wait hit its limit with holds not ended, then the soak section says how many were left instead of "every hold ended"', () => {
  const text = renderSoakSection(report({ activeInPostgres: 12_624, activeRecordsInRedis: 22_659, outboxEntries: 0 })).join('\n');
  expect(text).toContain('**not every hold had ended 140 s after the sale**');
  expect(text).toContain('12624 holds still ACTIVE in PostgreSQL, 22659 live records in Redis, 0 outbox entries');
  expect(text).not.toContain('every hold ended 140 s');
});

test('when Redis\'s used_memory ended below where it was before the sale, then no bytes per ended hold are made of it and the section says why', () => {
  const base = report(null);
  const shrunk: SoakReport = { ...base, ended: { ...base.ended, redisDeltaBytes: -7_347_912, bytesPerEndedHold: -102, bytesPerEndedHoldAfterHour: 45 } };
  const text = renderSoakSection(shrunk).join('\n');
  expect(text).not.toContain('-102');
  expect(text).toMatch(/\| ended \(all\) +\| +1,000 \| +-7\.35 \| +– \| +– \| +45 \|/);
  expect(text).toContain('the server-wide Δ says nothing per hold');
  // A delta that grew is still divided per hold.
  expect(renderSoakSection(base).join('\n')).toMatch(/\| ended \(all\) +\| +1,000 \| +0\.04 \| +40 \|/);
});

test('when holds, payments or releases failed, then the soak section lists what each answered, and says nothing of failures when none failed', () => {
  const base = report(null);
  const failed: SoakReport = {
    ...base, holds: { ...base.holds, failed: 1 }, actionFailures: 2,
    failureSamples: ['POST /v1/events/e/holds: read ECONNRESET', 'DELETE /v1/holds/h_1: 409 {"error":{"code":"HOLD_NOT_ACTIVE"}}', 'POST /v1/holds/h_2/confirm: socket hang up'],
  };
  const text = renderSoakSection(failed).join('\n');
  expect(text).toContain('(1 holds refused, 2 payments or releases failed)');
  expect(text).toContain('Failed requests (up to five distinct):\n\n- POST /v1/events/e/holds: read ECONNRESET\n- DELETE /v1/holds/h_1: 409 {"error":{"code":"HOLD_NOT_ACTIVE"}}\n- POST /v1/holds/h_2/confirm: socket hang up');
  expect(renderSoakSection(base).join('\n')).not.toContain('Failed requests');
});
