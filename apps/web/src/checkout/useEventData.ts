/** The event and its seats as last read from the API, patched by live changes. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Api } from '../shared/api';
import type { Event, Seat, SeatStatus } from '../shared/types';

export function useEventData(api: Api, eventId: string, onError: (error: unknown) => void) {
  const [event, setEvent] = useState<Event | null>(null);
  const [seats, setSeats] = useState<Seat[]>([]);

  const refresh = useCallback(async () => {
    try {
      const [freshEvent, freshSeats] = await Promise.all([api.getEvent(eventId), api.listSeats(eventId)]);
      setEvent(freshEvent);
      setSeats(freshSeats);
    } catch (e) {
      onError(e);
    }
  }, [api, eventId, onError]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  /** Sets these seats' status; with `from`, only seats that currently have that status. */
  const markSeats = useCallback((ids: ReadonlySet<string>, status: SeatStatus, from?: SeatStatus) => {
    setSeats((current) =>
      current.map((seat) => (ids.has(seat.id) && (!from || seat.status === from) ? { ...seat, status } : seat)),
    );
  }, []);

  const setAvailable = useCallback((ticketTypeId: string, available: number) => {
    setEvent(
      (current) =>
        current && {
          ...current,
          ticketTypes: current.ticketTypes.map((t) => (t.id === ticketTypeId ? { ...t, available } : t)),
        },
    );
  }, []);

  return { event, seats, refresh, markSeats, setAvailable };
}
