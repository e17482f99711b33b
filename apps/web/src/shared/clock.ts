/**
 * The server's clock, estimated from the `Date` header of API responses so a
 * skewed client clock does not change a countdown.
 *
 * `Date` has one-second resolution. A response whose request left at local
 * time `sent`, arrived at local time `received` and carries `Date: D` bounds
 * the offset (server time − local time) to `[D − received, D + 1000 − sent)`.
 * Every response narrows the interval; the estimate is its midpoint. If a
 * response contradicts the interval (a clock was changed), start over from it.
 */
let low = -Infinity;
let high = Infinity;
let offsetMs = 0;

export function observeServerDate(dateHeader: string | null, sentAt: number, receivedAt: number): void {
  if (!dateHeader) return;
  const serverMs = Date.parse(dateHeader);
  if (Number.isNaN(serverMs)) return;
  const lo = serverMs - receivedAt;
  const hi = serverMs + 1000 - sentAt;
  if (lo >= high || hi <= low) {
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
