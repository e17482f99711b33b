import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import '../shared/styles.css';
import { Session } from '../shared/session';
import { EventList } from './EventList';
import { EventPage } from './EventPage';

/** `#/events/<id>` shows that event; anything else the event list. */
function eventIdFromHash(): string | null {
  const match = /^#\/events\/([^/]+)$/.exec(location.hash);
  return match?.[1] ? decodeURIComponent(match[1]) : null;
}

function Checkout() {
  const [eventId, setEventId] = useState(eventIdFromHash);
  useEffect(() => {
    const onHashChange = () => setEventId(eventIdFromHash());
    addEventListener('hashchange', onHashChange);
    return () => removeEventListener('hashchange', onHashChange);
  }, []);

  return (
    <>
      <header class="topbar">
        <a href="#/" class="brand">
          holdfast
        </a>
        <span class="muted">Checkout</span>
      </header>
      <Session role="customer">
        {(api) => (eventId ? <EventPage key={eventId} api={api} eventId={eventId} /> : <EventList api={api} />)}
      </Session>
    </>
  );
}

render(<Checkout />, document.getElementById('app') as HTMLElement);
