import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../shared/api';
import { ErrorMessage } from '../shared/components';
import { formatDateTime } from '../shared/format';
import { describeError } from '../shared/messages';
import type { Event } from '../shared/types';

export function EventList({ api }: { api: Api }) {
  const [events, setEvents] = useState<Event[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api.listEvents().then(setEvents, (e: unknown) => setError(describeError(e)));
  }, [api]);

  return (
    <main class="page">
      <h1>Events</h1>
      <ErrorMessage message={error} />
      {!events && !error && <p>Loading events…</p>}
      {events?.length === 0 && <p>There are no events on sale yet.</p>}
      <ul class="event-list">
        {events?.map((event) => (
          <li key={event.id}>
            <a class="card event-card" href={`#/events/${encodeURIComponent(event.id)}`} data-testid={`event-link-${event.id}`}>
              <strong>{event.name}</strong>
              <span class="muted">{formatDateTime(event.startsAt)}</span>
              <span class="muted">
                {event.seatCount > 0 && `${event.seatCount} seats`}
                {event.seatCount > 0 && event.ticketTypes.length > 0 && ' · '}
                {event.ticketTypes.length > 0 && 'general admission'}
              </span>
            </a>
          </li>
        ))}
      </ul>
    </main>
  );
}
