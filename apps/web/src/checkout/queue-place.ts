/**
 * A waiting buyer's place without asking the server (issue 29): the event
 * stream's `queue` messages carry how many places the room has admitted so far
 * (`admitted`), the same count a `queue/me` answer carries; places are admitted
 * in order, so the place now is the answer's position less what admission did
 * since. The page asks `queue/me` again only when it must:
 *
 * - once shortly after the opening, when its last answer came before it (places
 *   taken before the opening are drawn then), spread over a few seconds;
 * - when its place reaches 0 (its turn: the pass waits for it), spread over a second or two;
 * - when the stream reconnects (messages may have been missed), spread too;
 * - else on a fallback that grows with the wait: clamp(position read ÷ pace, 30 s, 5 min) after the read;
 * - after a failed read, again with a growing backoff (2 s doubling to a minute), spread too.
 *
 * So a crowd of 100,000 asks about as often as places are admitted, not 100,000 times a second.
 */

/** What the last `queue/me` (or join) answer said, and when (server clock, ms). */
export interface QueueReading {
  position: number;
  /** The room's admitted count in that answer. */
  admitted: number;
  etaSeconds: number;
  atMs: number;
}

export const QUEUE_READS = {
  /** After the opening, the one read of a buyer who last read before it: 1 s + up to this. */
  openingDelayMs: 1_000,
  openingJitterMs: 4_000,
  /** When the place reaches 0: within this. */
  turnJitterMs: 1_500,
  /** After the stream reconnects: within this. */
  reconnectJitterMs: 3_000,
  /** The fallback: the expected wait, but never sooner than this... */
  minFallbackMs: 30_000,
  /** ...nor later than this. */
  maxFallbackMs: 300_000,
  /** After a failed read: the first try again (doubling with each failure in a row)... */
  retryMs: 2_000,
  /** ...up to this. */
  maxRetryMs: 60_000,
} as const;

/** The place now: 1 is next; 0 or less: admitted (read to get the pass). */
export function placeNow(reading: QueueReading, admittedNow: number): number {
  return reading.position - Math.max(0, admittedNow - reading.admitted);
}

/** Places a minute: the stream's pace, else the one the last answer's estimate implies; null when unknown. */
export function paceOf(reading: QueueReading, perMinute: number | null): number | null {
  if (perMinute !== null && perMinute > 0) return perMinute;
  if (reading.position > 0 && reading.etaSeconds > 0) return (reading.position * 60) / reading.etaSeconds;
  return null;
}

/** The estimated wait of the place now, seconds. */
export function etaSecondsNow(reading: QueueReading, admittedNow: number, perMinute: number | null): number {
  const place = placeNow(reading, admittedNow);
  if (place <= 0) return 0;
  const pace = paceOf(reading, perMinute);
  return pace === null ? reading.etaSeconds : Math.ceil((place * 60) / pace);
}

export interface NextReadInput {
  reading: QueueReading;
  /** The latest admitted count heard on the stream (or the reading's own). */
  admittedNow: number;
  /** The stream's latest pace, places a minute (null: none heard). */
  perMinute: number | null;
  /** The sale's opening (server clock, ms); null: open already. */
  opensAtMs: number | null;
  nowMs: number;
  /** This buyer's draw in [0, 1): spreads the crowd's reads. */
  jitter: number;
}

/** When (server clock, ms) the page should next ask `queue/me`, from what it knows now. */
export function nextReadAt({ reading, admittedNow, perMinute, opensAtMs, nowMs, jitter }: NextReadInput): number {
  if (opensAtMs !== null && reading.atMs < opensAtMs) {
    return opensAtMs + QUEUE_READS.openingDelayMs + jitter * QUEUE_READS.openingJitterMs;
  }
  const place = placeNow(reading, admittedNow);
  if (place <= 0) return nowMs + jitter * QUEUE_READS.turnJitterMs;
  // The fallback: when the reading's place should have come at the pace (it comes sooner by the stream's count).
  const pace = paceOf(reading, perMinute);
  const wait = pace === null ? QUEUE_READS.maxFallbackMs : (reading.position * 60_000) / pace;
  return reading.atMs + Math.min(QUEUE_READS.maxFallbackMs, Math.max(QUEUE_READS.minFallbackMs, wait));
}

/** After the stream reconnected: a read soon, spread over a few seconds. */
export function reconnectReadAt(nowMs: number, jitter: number): number {
  return nowMs + jitter * QUEUE_READS.reconnectJitterMs;
}

/** A read planned: when (server clock, ms), and from which answer (null: none, as after a failed read). */
export interface PlannedRead {
  at: number;
  reading: QueueReading | null;
}

/**
 * The read to plan from what the page knows now. A plan made from the same
 * answer stands unless the new time is sooner: the stream's messages never push
 * a due read back. A plan made from another answer gives way whatever its time:
 * a render that had not seen the newest answer yet may have planned from the
 * one before (a read time already past, whose timer has fired), and that plan
 * must not keep the newest answer's reads from being planned. Returns
 * `planned` itself when it stands.
 */
export function nextPlan(planned: PlannedRead | null, reading: QueueReading | null, at: number): PlannedRead {
  if (planned !== null && planned.reading === reading && planned.at <= at) return planned;
  return { at, reading };
}

/** After `failures` reads in a row failed: the next try, backing off (2 s, 4 s, ... up to a minute), spread by the jitter. */
export function retryReadAt(nowMs: number, failures: number, jitter: number): number {
  const backoff = Math.min(QUEUE_READS.maxRetryMs, QUEUE_READS.retryMs * 2 ** Math.max(0, failures - 1));
  return nowMs + backoff * (0.5 + jitter / 2);
}
