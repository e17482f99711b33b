/**
 * Live seat and availability changes: the event stream of @holdfast/client
 * (Server-Sent Events read with fetch; the stream is public, so no token).
 * Every time the connection opens, the first time and after each drop,
 * `onSync` runs so the caller can refetch and catch up on what it missed; a
 * drop shows as `reconnecting` while the client tries again with a backoff.
 */
import { createHoldfastClient } from '@holdfast/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SeatStatus } from './types';

export interface StreamHandlers {
  onSeat(change: { seatId: string; status: SeatStatus }): void;
  onAvailability(change: { ticketTypeId: string; available: number }): void;
  /** The waiting room admitted places (how many so far, how many wait, the pace a minute). */
  onQueue?(change: { admitted: number; waiting: number; perMinute?: number }): void;
  /** The stream opened (`reconnected`: after a drop, so changes may have been missed). */
  onSync(reconnected: boolean): void;
}

export type StreamState = 'connecting' | 'live' | 'reconnecting';

export function useEventStream(eventId: string, handlers: StreamHandlers): StreamState {
  const [state, setState] = useState<StreamState>('connecting');
  const latest = useRef(handlers);
  latest.current = handlers;

  useEffect(() => {
    const stop = new AbortController();
    const streams = createHoldfastClient({ baseUrl: location.origin });
    setState('connecting');
    void (async () => {
      try {
        for await (const item of streams.events(eventId, { signal: stop.signal, maxDelayMs: 30_000 })) {
          if (item.type === 'open') {
            setState('live');
            latest.current.onSync(item.reconnected);
          } else if (item.type === 'reconnecting') setState('reconnecting');
          else if (item.type === 'seat') latest.current.onSeat(item);
          else if (item.type === 'availability') latest.current.onAvailability(item);
          else latest.current.onQueue?.(item);
        }
      } catch {
        // The event is gone (404): nothing more will come.
        if (!stop.signal.aborted) setState('reconnecting');
      }
    })();
    return () => stop.abort();
  }, [eventId]);

  return state;
}
