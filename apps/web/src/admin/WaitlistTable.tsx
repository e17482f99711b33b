/** One event's waiting list: place, customer, quantity, state and offer, in join order; removal asks for a reason. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Api } from '../shared/api';
import { formatDateTime } from '../shared/format';
import { describeError } from '../shared/messages';

type Entry = Awaited<ReturnType<Api['adminWaitlist']>>[number];

interface Props {
  api: Api;
  eventId: string;
  /** Changes when the event's sales moved: read again. */
  version: number;
  onRemoved: () => void;
}

export function WaitlistTable({ api, eventId, version, onRemoved }: Props) {
  const [entries, setEntries] = useState<Entry[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [reason, setReason] = useState('');

  const load = useCallback(async () => {
    try {
      setEntries(await api.adminWaitlist(eventId));
      setError(null);
    } catch (e) {
      setError(describeError(e));
    }
  }, [api, eventId]);
  useEffect(() => void load(), [load, version]);

  const remove = async (entryId: string) => {
    try {
      await api.adminRemoveWaitlistEntry(eventId, entryId, reason.trim());
      setRemoving(null);
      setReason('');
      onRemoved();
      await load();
    } catch (e) {
      setError(describeError(e));
    }
  };

  return (
    <section class="card" aria-labelledby="waitlist-heading" data-testid="admin-waitlist">
      <h2 id="waitlist-heading">Waiting list</h2>
      {error && <p class="error" role="alert">{error}</p>}
      {entries.length === 0 ? (
        <p class="muted">Nobody waits for this event.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <thead>
              <tr><th>#</th><th>Customer</th><th>For</th><th>Qty</th><th>State</th><th>Offer until</th><th /></tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} data-testid={`admin-waitlist-${e.id}`}>
                  <td>{e.position ?? '—'}</td>
                  <td>{e.customerId}</td>
                  <td>{e.tier ?? 'tickets'}</td>
                  <td>{e.quantity}</td>
                  <td>{e.state}</td>
                  <td>{e.offer ? formatDateTime(e.offer.expiresAt) : '—'}</td>
                  <td>
                    {removing === e.id ? (
                      <form class="release-form" onSubmit={(ev) => { ev.preventDefault(); void remove(e.id); }}>
                        <label for={`wl-reason-${e.id}`}>Reason</label>
                        <input id={`wl-reason-${e.id}`} value={reason} maxLength={500} required onInput={(ev) => setReason(ev.currentTarget.value)} />
                        <button type="submit" class="danger" disabled={!reason.trim()}>Remove</button>
                        <button type="button" onClick={() => setRemoving(null)}>Cancel</button>
                      </form>
                    ) : (
                      <button type="button" onClick={() => setRemoving(e.id)}>Remove…</button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
