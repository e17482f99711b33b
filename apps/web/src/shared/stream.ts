/**
 * Live seat and availability changes over Server-Sent Events. The stream is
 * public (EventSource cannot send headers). Every time the connection opens,
 * the first time and after each drop, `onSync` runs so the caller can refetch
 * and catch up on what it missed. EventSource retries dropped connections by
 * itself but gives up on an HTTP error; then this retries with a backoff.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SeatStatus } from './types';

export interface StreamHandlers {
  onSeat(change: { seatId: string; status: SeatStatus }): void;
  onAvailability(change: { ticketTypeId: string; available: number }): void;
  onSync(): void;
}

export type StreamState = 'connecting' | 'live' | 'reconnecting';

function parse<T>(event: MessageEvent): T | null {
  try {
    return JSON.parse(String(event.data)) as T;
  } catch {
    return null;
  }
}

export function useEventStream(eventId: string, handlers: StreamHandlers): StreamState {
  const [state, setState] = useState<StreamState>('connecting');
  const latest = useRef(handlers);
  latest.current = handlers;

  useEffect(() => {
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let backoffMs = 1000;

    const connect = () => {
      source = new EventSource(`/v1/events/${encodeURIComponent(eventId)}/stream`);
      source.addEventListener('open', () => {
        backoffMs = 1000;
        setState('live');
        latest.current.onSync();
      });
      source.addEventListener('seat', (event) => {
        const change = parse<{ seatId: string; status: SeatStatus }>(event);
        if (change) latest.current.onSeat(change);
      });
      source.addEventListener('availability', (event) => {
        const change = parse<{ ticketTypeId: string; available: number }>(event);
        if (change) latest.current.onAvailability(change);
      });
      source.addEventListener('error', () => {
        setState('reconnecting');
        if (source?.readyState !== EventSource.CLOSED) return;
        source = null;
        retryTimer = setTimeout(connect, backoffMs);
        backoffMs = Math.min(backoffMs * 2, 30000);
      });
    };

    setState('connecting');
    connect();
    return () => {
      clearTimeout(retryTimer);
      source?.close();
    };
  }, [eventId]);

  return state;
}
