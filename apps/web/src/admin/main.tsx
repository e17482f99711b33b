import { render } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import '../shared/styles.css';
import type { Api } from '../shared/api';
import { Session } from '../shared/session';
import type { Event } from '../shared/types';
import { AuditTable } from './AuditTable';
import { HoldsTable } from './HoldsTable';
import { PaymentsTable } from './PaymentsTable';
import { EventsPanel } from './EventsPanel';
import { OrdersTable } from './OrdersTable';
import { QueueControls } from './QueueControls';
import { SalesDashboard } from './SalesDashboard';
import { WaitlistTable } from './WaitlistTable';
import { ErrorMessage } from '../shared/components';
import { describeError } from '../shared/messages';

function AdminPage({ api }: { api: Api }) {
  const [events, setEvents] = useState<Event[]>([]);
  const [eventId, setEventId] = useState('');
  const [releases, setReleases] = useState(0);
  const [salesVersion, setSalesVersion] = useState(0);
  const salesMoved = useCallback(() => setSalesVersion((n) => n + 1), []);
  const [queuesError, setQueuesError] = useState<string | null>(null);
  const eventNames = useMemo(() => new Map(events.map((e) => [e.id, e.name])), [events]);

  useEffect(() => {
    api.listEvents().then(setEvents, () => setEvents([]));
  }, [api]);

  const changed = (event: Event) =>
    setEvents((list) => (list.some((e) => e.id === event.id) ? list.map((e) => (e.id === event.id ? event : e)) : [...list, event]));
  const openQueues = async () => {
    setQueuesError(null);
    try {
      window.open(await api.adminQueuesSession(), '_blank', 'noopener');
    } catch (e) {
      setQueuesError(describeError(e));
    }
  };

  return (
    <main class="page admin-page">
      <div class="card-head">
        <h1>Box office</h1>
        <button type="button" data-testid="open-queues" onClick={() => void openQueues()}>
          Queue dashboard
        </button>
      </div>
      <ErrorMessage message={queuesError} />
      <EventsPanel api={api} events={events} onChanged={changed} onShowSales={setEventId} />
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
      {eventId ? (
        <>
          {events.find((e) => e.id === eventId)?.waitingRoom && <QueueControls key={`q-${eventId}`} api={api} eventId={eventId} />}
          <SalesDashboard key={eventId} api={api} eventId={eventId} eventName={eventNames.get(eventId) ?? eventId} onChange={salesMoved} />
          <WaitlistTable key={`w-${eventId}`} api={api} eventId={eventId} version={salesVersion} onRemoved={() => setReleases((n) => n + 1)} />
        </>
      ) : (
        <p class="muted card">Choose an event above to see its sales live.</p>
      )}
      <HoldsTable api={api} eventId={eventId} eventNames={eventNames} onReleased={() => setReleases((n) => n + 1)} version={salesVersion} />
      <OrdersTable api={api} eventId={eventId} version={salesVersion} />
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
