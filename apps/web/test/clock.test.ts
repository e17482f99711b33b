import { formatMmSs, observeServerTime, serverNow } from '../src/shared/clock';

test('when time is left, then it reads mm:ss rounded up, and 00:00 only at the end', () => {
  expect(formatMmSs(600_000)).toBe('10:00');
  expect(formatMmSs(59_001)).toBe('01:00');
  expect(formatMmSs(2_100)).toBe('00:03');
  expect(formatMmSs(1)).toBe('00:01');
  expect(formatMmSs(0)).toBe('00:00');
});

test('when the local clock is an hour behind, then the server clock is estimated from Date headers and createdAt', () => {
  const skew = 3_600_000;
  const local = Date.now();
  const server = local + skew;
  // A Date header (one-second resolution) from a 40 ms round trip.
  observeServerTime(Math.floor(server / 1000) * 1000, 1000, local - 20, local + 20);
  expect(Math.abs(serverNow() - (Date.now() + skew))).toBeLessThanOrEqual(1000);
  // A hold's createdAt (millisecond resolution) from the same kind of round trip narrows it to the trip.
  observeServerTime(server, 1, local - 20, local + 20);
  expect(Math.abs(serverNow() - (Date.now() + skew))).toBeLessThanOrEqual(25);
});

test('when a sample contradicts the estimate (a clock was changed), then the estimate starts over from it', () => {
  const local = Date.now();
  observeServerTime(local + 5_000, 1, local - 10, local + 10);
  observeServerTime(local - 7_000, 1, local - 10, local + 10);
  expect(Math.abs(serverNow() - (Date.now() - 7_000))).toBeLessThanOrEqual(15);
});
