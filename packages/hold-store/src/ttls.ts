/**
 * How long the hold store's keys live, in one place: the scripts get them as
 * ARGV (never a literal of their own), reconciliation gives them to keys that
 * lost theirs.
 */

/** How long a hold's record stays readable in Redis after the hold ends (a live hold's: after its expiry). */
export const HOLD_RECORD_TTL_MS = 24 * 3600 * 1000;

/** The window of a customer's hold rate limit (holdRateLimitPerMinute): a minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** How long a stored idempotent answer is replayed: 24 hours, as the contract says. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
