/**
 * The buyer's place in the event's waiting room: joined on request (with the
 * proof of work solved in a Web Worker when the room asks for one), then read
 * again when the event stream says admission moved on, and every few seconds
 * as a fallback, until admitted. The pass then goes with every hold.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { QueueStanding } from '@holdfast/client';
import type { Api } from '../shared/api';
import type { Event } from '../shared/types';

/** How often the page asks again while waiting with nothing heard on the stream. */
const FALLBACK_MS = 10_000;
/** The least time between two reads prompted by the stream. */
const THROTTLE_MS = 1_000;

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

export function useQueue(api: Api, event: Event | null, onError: (e: unknown) => void) {
  const room = event?.waitingRoom ?? null;
  const eventId = event?.id ?? '';
  const [standing, setStanding] = useState<QueueStanding | null>(null);
  const [joining, setJoining] = useState(false);
  const lastRead = useRef(0);

  const read = useCallback(async () => {
    if (!room) return;
    lastRead.current = Date.now();
    try {
      setStanding(await api.queueStanding(eventId));
    } catch (e) {
      onError(e);
    }
  }, [api, eventId, room, onError]);

  useEffect(() => {
    if (room) void read();
  }, [room, read]);

  // While waiting: a read every few seconds whatever the stream says.
  useEffect(() => {
    if (standing?.state !== 'waiting') return;
    const timer = setInterval(() => void read(), FALLBACK_MS);
    return () => clearInterval(timer);
  }, [standing?.state, read]);

  // An admitted buyer's pass runs out: read again then.
  useEffect(() => {
    if (standing?.state !== 'admitted' || !standing.passExpiresAt) return;
    const timer = setTimeout(() => void read(), Math.max(0, Date.parse(standing.passExpiresAt) - Date.now()) + 500);
    return () => clearTimeout(timer);
  }, [standing, read]);

  /** The stream says admission moved on: read where we stand (at most once a second). */
  const onAdmission = useCallback(() => {
    if (standing?.state === 'waiting' && Date.now() - lastRead.current >= THROTTLE_MS) void read();
  }, [standing?.state, read]);

  const join = useCallback(async () => {
    if (!room) return;
    setJoining(true);
    try {
      const nonce = room.challengeBits > 0 ? await solveProof(eventId, await api.customerId(), room.challengeBits) : undefined;
      setStanding(await api.joinQueue(eventId, nonce));
    } catch (e) {
      onError(e);
    } finally {
      setJoining(false);
    }
  }, [api, eventId, room, onError]);

  return {
    room,
    standing,
    joining,
    join,
    onAdmission,
    /** Reads where the buyer stands again (after their hold ended: so did their pass). */
    refresh: read,
    /** The pass to hold with, once admitted. */
    pass: standing?.state === 'admitted' ? standing.pass : undefined,
    /** Holds may be taken: no waiting room, or admitted. */
    admitted: !room || standing?.state === 'admitted',
  };
}
