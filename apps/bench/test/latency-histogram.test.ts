// The bench's latency histogram is HdrHistogram (hdr-histogram-js): percentiles
// of known samples within its 3 significant digits, and the former log buckets
// (kept for the instrument section's comparison) within their 1 %.
import { LatencyHistogram, LogBucketHistogram } from '../src/latency.histogram';

test('when 1 to 10,000 ms are recorded once each, then p50, p90 and p99 are those values to within 0.1 %, and min, max and count are exact', () => {
  const h = new LatencyHistogram();
  for (let ms = 1; ms <= 10_000; ms += 1) h.record(ms);
  const s = h.summary();
  expect(s.count).toBe(10_000);
  expect(s.minMs).toBe(1);
  expect(Math.abs(s.maxMs - 10_000) / 10_000).toBeLessThanOrEqual(0.001);
  for (const [value, want] of [[s.p50Ms, 5000], [s.p90Ms, 9000], [s.p99Ms, 9900]] as const) {
    expect(Math.abs(value - want) / want).toBeLessThanOrEqual(0.001);
  }
  expect(Math.abs(s.meanMs - 5000.5) / 5000.5).toBeLessThanOrEqual(0.001);
});

test('when two histograms are merged, then the result counts both; sub-microsecond, negative and non-finite samples are handled', () => {
  const a = new LatencyHistogram();
  const b = new LatencyHistogram();
  a.record(0.0001);
  a.record(-1);
  a.record(Number.NaN);
  b.record(2);
  b.record(4);
  a.merge(b);
  expect(a.count).toBe(3);
  expect(a.summary().maxMs).toBeCloseTo(4, 2);
  expect(new LatencyHistogram().summary()).toEqual({ count: 0, minMs: 0, meanMs: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, maxMs: 0 });
});

test('when the same samples go to both histograms, then their p99 agree within the log buckets\' 1 %', () => {
  const hdr = new LatencyHistogram();
  const log = new LogBucketHistogram();
  let x = 7;
  for (let i = 0; i < 5000; i += 1) {
    x = (x * 48271) % 2147483647;
    const ms = 0.2 + (x / 2147483647) ** 4 * 300; // skewed: most fast, a long tail
    hdr.record(ms);
    log.record(ms);
  }
  const p99 = hdr.summary().p99Ms;
  expect(Math.abs(log.summary().p99Ms - p99) / p99).toBeLessThanOrEqual(0.011);
});
