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
 * - else on a fallback that grows with the wait: clamp(position read ÷ pace, 30 s, 5 min) after the read.
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

/** The read already planned stands unless the new one is sooner (a due read is never pushed back). */
export function sooner(planned: number | null, next: number): number {
  return planned === null ? next : Math.min(planned, next);
}
