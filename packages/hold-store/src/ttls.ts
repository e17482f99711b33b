/**
 * How long the hold store's keys live, in one place: the scripts get them as
 * ARGV (never a literal of their own), reconciliation gives them to keys that
 * lost theirs.
 */

/** How long a live hold's record outlives the hold's expiry (its items, for a confirm or a release before the outbox reaches PostgreSQL). */
export const HOLD_RECORD_TTL_MS = 24 * 3600 * 1000;

/**
 * How long an ended hold leaves its tombstone in Redis: the record shrunk to its
 * status (end-hold), every other key of the hold gone. PostgreSQL has the row by
 * then, so nothing reads the items; the status is read by
 * - end-hold, to answer ALREADY to the same end applied again: a repeated
 *   "confirmed" (a payment webhook delivered again, a confirm retried: it heals
 *   Redis on an existing order) must not add the order to the customer's bought
 *   count and the ticket type's sold count twice, so it stays as long as the
 *   contract replays a retry (24 hours, IDEMPOTENCY_TTL_SECONDS); reconciliation's
 *   repair of bought counts reads it too (repair-bought-2.lua);
 * - a late payment's claim (claim-hold), which answers ENDED at once for a released
 *   hold instead of taking its free seats again until PostgreSQL refuses the confirm.
 * A released or expired hold's end changes no counter when applied again (its
 * entries went with the first end), and a claim without the tombstone only holds
 * the free seats for the moment PostgreSQL takes to refuse: 15 minutes cover the
 * worker's retries and a payment under way when the hold ended, and an hour after
 * a sale nothing of such holds is left (about 200 bytes each while it lasts).
 */
export const ENDED_HOLD_TTL_MS = {
  confirmed: 24 * 3600 * 1000,
  released: 15 * 60 * 1000,
  expired: 15 * 60 * 1000,
} as const;

/**
 * How long Redis remembers that a waiting-list entry left its line (or was
 * answered "not needed" and deleted): putting PostgreSQL's waiting entries back
 * (reconciliation, priming) reads them first and then puts them back one by
 * one, so an entry that leaves in between must not be put back from that read.
 * An hour covers the longest such walk (100,000 entries, one round trip each).
 */
export const WAITLIST_GONE_TTL_MS = 3600 * 1000;

/** The window of a customer's hold rate limit (holdRateLimitPerMinute): a minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** How long a stored idempotent answer is replayed: 24 hours, as the contract says. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
