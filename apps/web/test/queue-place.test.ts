import { QUEUE_READS, etaSecondsNow, nextPlan, nextReadAt, placeNow, reconnectReadAt, retryReadAt, type PlannedRead, type QueueReading } from '../src/checkout/queue-place';

const opened = 1_000_000;
const reading = (o: Partial<QueueReading> = {}): QueueReading => ({ position: 40, admitted: 100, etaSeconds: 40, atMs: opened + 10_000, ...o });

test('when the stream says admission moved on, then the place falls by the places admitted since the reading', () => {
  expect(placeNow(reading(), 100)).toBe(40);
  expect(placeNow(reading(), 103)).toBe(37);
  expect(placeNow(reading(), 140)).toBe(0);
  expect(placeNow(reading(), 150)).toBe(-10);
  // A message older than the reading (the answer crossed it) does not move the place back up.
  expect(placeNow(reading(), 97)).toBe(40);
});

test('when the stream gives a pace, then the wait is the place at that pace; without one, the reading\'s estimate scaled to the place', () => {
  expect(etaSecondsNow(reading(), 110, 60)).toBe(30);
  expect(etaSecondsNow(reading(), 110, 600)).toBe(3);
  expect(etaSecondsNow(reading({ etaSeconds: 80 }), 120, null)).toBe(40);
  expect(etaSecondsNow(reading(), 140, 60)).toBe(0);
});

test('when the buyer last read before the opening, then the next read is once, a little after the opening, spread by the jitter', () => {
  const before = reading({ atMs: opened - 60_000 });
  const first = nextReadAt({ reading: before, admittedNow: 100, perMinute: null, opensAtMs: opened, nowMs: opened - 30_000, jitter: 0 });
  const last = nextReadAt({ reading: before, admittedNow: 100, perMinute: null, opensAtMs: opened, nowMs: opened - 30_000, jitter: 0.999 });
  expect(first).toBe(opened + QUEUE_READS.openingDelayMs);
  expect(last).toBeGreaterThan(opened + 4_000);
  expect(last).toBeLessThanOrEqual(opened + QUEUE_READS.openingDelayMs + QUEUE_READS.openingJitterMs);
  // Messages after the opening do not bring it forward (the drawn places are not known until then).
  expect(nextReadAt({ reading: before, admittedNow: 150, perMinute: 60, opensAtMs: opened, nowMs: opened + 500, jitter: 0 })).toBe(first);
});

test('when the place reaches 0, then the page reads within the turn jitter; before that, on a fallback that grows with the place', () => {
  const now = opened + 20_000;
  const at = (admittedNow: number, perMinute: number | null, r = reading()) =>
    nextReadAt({ reading: r, admittedNow, perMinute, opensAtMs: opened, nowMs: now, jitter: 0.5 });
  expect(at(140, 60)).toBe(now + QUEUE_READS.turnJitterMs / 2);
  // 40 places read at 60 a minute: 40 s after the reading (the turn comes sooner if the stream says so), at 6 a minute 400 s.
  expect(at(101, 60)).toBe(reading().atMs + 40_000);
  expect(at(135, 60)).toBe(reading().atMs + 40_000);
  expect(at(101, 30)).toBe(reading().atMs + 80_000);
  // 5 places: never sooner than 30 s after the reading.
  expect(at(101, 60, reading({ position: 5 }))).toBe(reading().atMs + QUEUE_READS.minFallbackMs);
  // 100,000 places: never later than 5 minutes.
  expect(at(0, 600, reading({ position: 100_000, admitted: 0 }))).toBe(reading().atMs + QUEUE_READS.maxFallbackMs);
  // No pace known at all (paused before any admission): the longest fallback.
  expect(at(100, null, reading({ etaSeconds: 0 }))).toBe(reading().atMs + QUEUE_READS.maxFallbackMs);
  // With no opening (open already) the same rules.
  expect(nextReadAt({ reading: reading(), admittedNow: 140, perMinute: 60, opensAtMs: null, nowMs: now, jitter: 0 })).toBe(now);
});

test('when a buyer watches 40 places admitted one a second, then the page reads once at its turn, not once per admission', () => {
  // The page's loop: every message recomputes the next read; a read planned is never pushed back.
  let r = reading({ atMs: opened + 1_000 });
  let planned: PlannedRead | null = null;
  let reads = 0;
  for (let t = opened + 1_000; t <= opened + 45_000; t += 1_000) {
    const admittedNow = 100 + Math.floor((t - opened) / 1_000);
    planned = nextPlan(planned, r, nextReadAt({ reading: r, admittedNow, perMinute: 60, opensAtMs: opened, nowMs: t, jitter: 0.3 }));
    if (planned.at <= t) {
      reads += 1;
      const position = placeNow(r, admittedNow);
      if (position <= 0) break;
      r = { position, admitted: admittedNow, etaSeconds: position, atMs: t };
    }
  }
  expect(reads).toBe(1);
});

test('when the stream reconnects, then a read is planned within a few seconds; a sooner read planned stays', () => {
  expect(reconnectReadAt(5_000, 0.5)).toBe(5_000 + QUEUE_READS.reconnectJitterMs / 2);
  const r = reading();
  const first = nextPlan(null, r, 10);
  expect(first).toEqual({ at: 10, reading: r });
  expect(nextPlan(first, r, 20)).toBe(first);
  expect(nextPlan(first, r, 5)).toEqual({ at: 5, reading: r });
});

test('when a render that has not seen the newest answer plans from the one before, then the newest answer still gets its read planned', () => {
  // What a browser test caught: the opening read is due and fires; while its answer is on the way a stream message
  // re-renders the page, and that render's plan, made after the answer was taken but from the answer before the
  // opening, is the opening read again (already past, its timer spent). The newest answer's later reads must still be
  // planned, or the page waits for ever at place 1.
  const beforeOpening = reading({ atMs: opened - 5_000, admitted: 0, position: 18 });
  const openingRead = nextReadAt({ reading: beforeOpening, admittedNow: 2, perMinute: 60, opensAtMs: opened, nowMs: opened + 2_000, jitter: 0.5 });
  let planned = nextPlan(null, beforeOpening, openingRead);
  // The timer fires at the opening read; the answer comes back with a message crossing it.
  const afterOpening = reading({ atMs: openingRead + 50, admitted: 3, position: 15 });
  planned = nextPlan(planned, beforeOpening, nextReadAt({ reading: beforeOpening, admittedNow: 3, perMinute: 60, opensAtMs: opened, nowMs: openingRead + 60, jitter: 0.5 }));
  expect(planned.at).toBe(openingRead);
  // The render with the newest answer: its fallback is planned, later than the spent opening read.
  planned = nextPlan(planned, afterOpening, nextReadAt({ reading: afterOpening, admittedNow: 3, perMinute: 60, opensAtMs: opened, nowMs: openingRead + 70, jitter: 0.5 }));
  expect(planned).toEqual({ at: afterOpening.atMs + QUEUE_READS.minFallbackMs, reading: afterOpening });
  // Then its turn: 15 places later, a read within the turn jitter.
  const turnAt = openingRead + 15_000;
  planned = nextPlan(planned, afterOpening, nextReadAt({ reading: afterOpening, admittedNow: 18, perMinute: 60, opensAtMs: opened, nowMs: turnAt, jitter: 0.5 }));
  expect(planned.at).toBe(turnAt + QUEUE_READS.turnJitterMs / 2);
});

test('when reads fail in a row, then the next try backs off from 2 s, doubling up to a minute, spread by the jitter', () => {
  expect(retryReadAt(1_000, 1, 0)).toBe(1_000 + QUEUE_READS.retryMs / 2);
  expect(retryReadAt(1_000, 1, 1)).toBe(1_000 + QUEUE_READS.retryMs);
  expect(retryReadAt(1_000, 3, 1)).toBe(1_000 + 4 * QUEUE_READS.retryMs);
  expect(retryReadAt(1_000, 20, 1)).toBe(1_000 + QUEUE_READS.maxRetryMs);
  expect(retryReadAt(1_000, 20, 0)).toBe(1_000 + QUEUE_READS.maxRetryMs / 2);
});
