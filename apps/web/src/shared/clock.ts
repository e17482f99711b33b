/**
 * The server's clock, estimated from API responses so a skewed client clock
 * does not change a countdown.
 *
 * A server time `T` read while a request was under way (it left at local time
 * `sent` and its answer arrived at local time `received`) bounds the offset
 * (server time − local time) to `[T − received, T + resolution − sent]`. The
 * `Date` header is such a time with one-second resolution; a new hold's
 * `createdAt` is one with millisecond resolution. Every sample narrows the
 * interval and the estimate is its midpoint. A sample that contradicts the
 * interval (a clock was changed) starts it over.
 */
let low = -Infinity;
let high = Infinity;
let offsetMs = 0;

export function observeServerTime(serverMs: number, resolutionMs: number, sentAt: number, receivedAt: number): void {
  if (Number.isNaN(serverMs)) return;
  const lo = serverMs - receivedAt;
  const hi = serverMs + resolutionMs - sentAt;
  if (lo > high || hi < low) {
    low = lo;
    high = hi;
  } else {
    low = Math.max(low, lo);
    high = Math.min(high, hi);
  }
  offsetMs = Math.round((low + high) / 2);
}

/** Milliseconds since the epoch on the server's clock. */
export function serverNow(): number {
  return Date.now() + offsetMs;
}

/** Milliseconds left until `iso` (a server time), never negative. */
export function msUntil(iso: string): number {
  return Math.max(0, Date.parse(iso) - serverNow());
}

/** `mm:ss`, rounding up so the display reads 00:00 only when time is up. */
export function formatMmSs(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}`;
}
