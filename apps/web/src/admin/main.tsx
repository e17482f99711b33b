import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import '../shared/styles.css';
import type { Api } from '../shared/api';
import { Session } from '../shared/session';
import type { Event } from '../shared/types';
import { AuditTable } from './AuditTable';
import { HoldsTable } from './HoldsTable';
import { PaymentsTable } from './PaymentsTable';

function AdminPage({ api }: { api: Api }) {
  const [events, setEvents] = useState<Event[]>([]);
  const [eventId, setEventId] = useState('');
  const [releases, setReleases] = useState(0);
  const eventNames = useMemo(() => new Map(events.map((e) => [e.id, e.name])), [events]);

  useEffect(() => {
    api.listEvents().then(setEvents, () => setEvents([]));
  }, [api]);

  return (
    <main class="page admin-page">
      <h1>Box office</h1>
      <div class="field-row">
        <label for="event-filter">Event</label>
        <select id="event-filter" data-testid="admin-event-filter" value={eventId} onChange={(e) => setEventId(e.currentTarget.value)}>
          <option value="">All events</option>
          {events.map((event) => (
            <option key={event.id} value={event.id}>
              {event.name}
            </option>
          ))}
        </select>
      </div>
      <HoldsTable api={api} eventId={eventId} eventNames={eventNames} onReleased={() => setReleases((n) => n + 1)} />
      <PaymentsTable api={api} />
      <AuditTable key={releases} api={api} eventId={eventId} />
    </main>
  );
}

render(
  <>
    <header class="topbar">
      <a href="/admin" class="brand">
        holdfast
      </a>
      <span class="muted">Admin</span>
    </header>
    <Session role="admin">{(api) => <AdminPage api={api} />}</Session>
  </>,
  document.getElementById('app') as HTMLElement,
);
