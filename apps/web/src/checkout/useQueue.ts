/**
 * The buyer's place in the event's waiting room: joined on request (with the
 * proof of work solved in a Web Worker when the room asks for one), then kept
 * from the event stream's `queue` messages without asking the server
 * (queue-place.ts: the place is the last answer's position less the places
 * admitted since). `queue/me` is read again only at the buyer's turn, once
 * after the opening, after the stream reconnects, and on a long fallback.
 * The pass then goes with every hold.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { QueueStanding } from '@holdfast/client';
import type { Api } from '../shared/api';
import { serverNow } from '../shared/clock';
import type { Event } from '../shared/types';
import { etaSecondsNow, nextPlan, nextReadAt, placeNow, reconnectReadAt, retryReadAt, type PlannedRead, type QueueReading } from './queue-place';

function solveProof(eventId: string, customerId: string, bits: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./pow.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (m: MessageEvent<{ nonce: string }>) => {
      worker.terminate();
      resolve(m.data.nonce);
    };
    worker.onerror = (e) => {
      worker.terminate();
      reject(new Error(e.message));
    };
    worker.postMessage({ eventId, customerId, bits });
  });
}

/** What the stream said last: places admitted so far and the pace. */
interface Heard {
  admitted: number;
  perMinute: number | null;
}

export function useQueue(api: Api, event: Event | null, onError: (e: unknown) => void) {
  const room = event?.waitingRoom ?? null;
  const eventId = event?.id ?? '';
  const opensAtMs = event?.salesStartAt ? Date.parse(event.salesStartAt) : null;
  const [standing, setStanding] = useState<QueueStanding | null>(null);
  const [reading, setReading] = useState<QueueReading | null>(null);
  const [heard, setHeard] = useState<Heard>({ admitted: 0, perMinute: null });
  const [joining, setJoining] = useState(false);
  /** This buyer's draw: spreads a crowd's reads over the jitter windows. */
  const jitter = useRef(Math.random());
  /** The next read planned, and the answer it was planned from (null: none). */
  const planned = useRef<PlannedRead | null>(null);
  /** The plan the timer is armed for: a new plan (a new object) re-arms it, even at the same time. */
  const [armed, setArmed] = useState<PlannedRead | null>(null);
  /** Reads failed in a row, and no read before this (server clock) after one failed. */
  const failures = useRef(0);
  const [retryNotBefore, setRetryNotBefore] = useState(0);
  const inFlight = useRef(false);

  const plan = useCallback((from: QueueReading | null, at: number) => {
    const next = nextPlan(planned.current, from, at);
    if (next !== planned.current) {
      planned.current = next;
      setArmed(next);
    }
  }, []);

  const take = useCallback((s: QueueStanding) => {
    failures.current = 0;
    setRetryNotBefore(0);
    setStanding(s);
    if (s.state === 'waiting') {
      // The next read is planned from this answer (the effect below): a plan from an older one gives way.
      const r: QueueReading = { position: s.position, admitted: s.admitted ?? 0, etaSeconds: s.etaSeconds, atMs: serverNow() };
      setReading(r);
      setHeard((h) => (h.admitted >= r.admitted ? h : { ...h, admitted: r.admitted }));
    } else {
      planned.current = null;
      setArmed(null);
      setReading(null);
    }
  }, []);

  const read = useCallback(async () => {
    if (!room || inFlight.current) return;
    inFlight.current = true;
    try {
      take(await api.queueStanding(eventId));
    } catch (e) {
      // Tried again later, backing off: a crowd does not hammer a server that is struggling.
      failures.current += 1;
      planned.current = null;
      setRetryNotBefore(retryReadAt(serverNow(), failures.current, jitter.current));
      onError(e);
    } finally {
      inFlight.current = false;
    }
  }, [api, eventId, room, onError, take]);

  // The latest `read` for the timers and the first read: `onError` may be a new function each render,
  // and a render must not cause a read.
  const latestRead = useRef(read);
  latestRead.current = read;

  // Once per event with a room (the event is read again now and then: a new object, the same room).
  const hasRoom = room !== null;
  useEffect(() => {
    if (hasRoom) void latestRead.current();
  }, [hasRoom, eventId]);

  // While waiting: the next read, from the place the stream's count gives (after a failed read, not before its retry).
  useEffect(() => {
    if (!reading) return;
    const at = nextReadAt({ reading, admittedNow: heard.admitted, perMinute: heard.perMinute, opensAtMs, nowMs: serverNow(), jitter: jitter.current });
    plan(reading, Math.max(at, retryNotBefore));
  }, [reading, heard, opensAtMs, retryNotBefore, plan]);

  useEffect(() => {
    if (armed === null) return;
    const timer = setTimeout(() => void latestRead.current(), Math.max(0, armed.at - serverNow()));
    return () => clearTimeout(timer);
  }, [armed]);

  // An admitted buyer's pass runs out: read again then (on the server's clock, as every time here:
  // a browser clock an hour off would read twice a second, or stay admitted long after the end).
  useEffect(() => {
    if (standing?.state !== 'admitted' || !standing.passExpiresAt) return;
    const timer = setTimeout(() => void latestRead.current(), Math.max(0, Date.parse(standing.passExpiresAt) - serverNow()) + 500);
    return () => clearTimeout(timer);
  }, [standing]);

  /** The stream says admission moved on: the place follows from its count, no read. */
  const onAdmission = useCallback((change: { admitted: number; perMinute?: number }) => {
    setHeard((h) => ({
      admitted: Math.max(h.admitted, change.admitted),
      perMinute: change.perMinute !== undefined && change.perMinute > 0 ? change.perMinute : h.perMinute,
    }));
  }, []);

  /** The stream reconnected: messages may have been missed, so a waiting buyer reads again soon. */
  const onReconnect = useCallback(() => {
    if (reading) plan(reading, Math.max(reconnectReadAt(serverNow(), jitter.current), retryNotBefore));
  }, [reading, retryNotBefore, plan]);

  const join = useCallback(async () => {
    if (!room) return;
    setJoining(true);
    try {
      const nonce = room.challengeBits > 0 ? await solveProof(eventId, await api.customerId(), room.challengeBits) : undefined;
      take(await api.joinQueue(eventId, nonce));
    } catch (e) {
      onError(e);
    } finally {
      setJoining(false);
    }
  }, [api, eventId, room, onError, take]);

  /** What the page shows: while waiting, the place and wait the stream's count gives. */
  const shown = useMemo((): QueueStanding | null => {
    if (!standing || standing.state !== 'waiting' || !reading) return standing;
    return {
      ...standing,
      position: Math.max(1, placeNow(reading, heard.admitted)),
      etaSeconds: etaSecondsNow(reading, heard.admitted, heard.perMinute),
    };
  }, [standing, reading, heard]);

  return {
    room,
    standing: shown,
    joining,
    join,
    onAdmission,
    onReconnect,
    /** Reads where the buyer stands again (after their hold ended: so did their pass). */
    refresh: read,
    /** The pass to hold with, once admitted. */
    pass: standing?.state === 'admitted' ? standing.pass : undefined,
    /** Holds may be taken: no waiting room, or admitted. */
    admitted: !room || standing?.state === 'admitted',
  };
}
