/** The events: sale status and window at a glance, open or close a sale, edit, or create one with the form. */
import { useState } from 'preact/hooks';
import type { Api } from '../shared/api';
import { ErrorMessage } from '../shared/components';
import { formatDateTime, formatDuration } from '../shared/format';
import { describeError } from '../shared/messages';
import type { Event, Seat } from '../shared/types';
import { EventForm } from './EventForm';

const STATUS_TEXT = { draft: 'Draft', on_sale: 'On sale', closed: 'Closed' } as const;

function windowText(e: Event): string {
  if (!e.salesStartAt && !e.salesEndAt) return 'no window';
  return `${e.salesStartAt ? formatDateTime(e.salesStartAt) : '…'} → ${e.salesEndAt ? formatDateTime(e.salesEndAt) : '…'}`;
}

interface Props {
  api: Api;
  events: Event[];
  onChanged: (event: Event) => void;
  onShowSales: (eventId: string) => void;
}

export function EventsPanel({ api, events, onChanged, onShowSales }: Props) {
  const [editing, setEditing] = useState<{ event?: Event; seats?: Seat[] } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const setStatus = async (event: Event, salesStatus: Event['salesStatus']) => {
    setError(null);
    try {
      onChanged(await api.adminUpdateEvent(event.id, { salesStatus }));
    } catch (e) {
      setError(describeError(e));
    }
  };
  const edit = async (event: Event) => {
    try {
      setEditing({ event, seats: await api.listSeats(event.id) });
    } catch (e) {
      setError(describeError(e));
    }
  };

  return (
    <section class="card" aria-labelledby="events-heading">
      <div class="card-head">
        <h2 id="events-heading">Events</h2>
        {!editing && (
          <button type="button" class="primary" data-testid="new-event" onClick={() => setEditing({})}>
            New event
          </button>
        )}
      </div>
      <ErrorMessage message={error} onDismiss={() => setError(null)} />
      {editing && (
        <EventForm
          key={editing.event?.id ?? 'new'}
          api={api}
          event={editing.event}
          existingSeats={editing.seats}
          onSaved={(saved) => {
            setEditing(null);
            onChanged(saved);
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      <div class="table-scroll">
        <table data-testid="admin-events">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Starts</th>
              <th scope="col">Sale</th>
              <th scope="col">Window</th>
              <th scope="col">Hold time</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.id} data-testid={`admin-event-${e.id}`}>
                <td>{e.name}</td>
                <td>{formatDateTime(e.startsAt)}</td>
                <td>
                  <span class={`badge badge-${e.salesStatus}`} data-testid="event-status">
                    {STATUS_TEXT[e.salesStatus]}
                  </span>
                </td>
                <td>{windowText(e)}</td>
                <td class="muted">
                  {formatDuration(e.holdTtlSeconds)}, {e.maxHoldExtensions === 0 ? 'no extensions' : `${e.maxHoldExtensions} extension${e.maxHoldExtensions === 1 ? '' : 's'}`}, at most {formatDuration(e.maxHoldSeconds)}
                </td>
                <td class="row-actions">
                  {e.salesStatus !== 'on_sale' ? (
                    <button type="button" data-testid="open-sale" onClick={() => void setStatus(e, 'on_sale')}>
                      Open sale
                    </button>
                  ) : (
                    <button type="button" data-testid="close-sale" onClick={() => void setStatus(e, 'closed')}>
                      Close sale
                    </button>
                  )}
                  <button type="button" data-testid="edit-event" onClick={() => void edit(e)}>
                    Edit
                  </button>
                  <button type="button" data-testid="show-sales" onClick={() => onShowSales(e.id)}>
                    Dashboard
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
