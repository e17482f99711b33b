/** Active holds with live countdowns, and a release that asks for a reason. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../shared/api';
import { formatMmSs } from '../shared/clock';
import { formatMoney } from '../shared/format';
import { useServerNow } from '../shared/hooks';
import { describeError } from '../shared/messages';
import { isSeatItem, type Hold } from '../shared/types';
import { PagedTable } from './PagedTable';
import { usePaged } from './usePaged';

function describeItems(hold: Hold): string {
  return hold.items.map((item) => (isSeatItem(item) ? item.label : `${item.quantity} × ${item.name}`)).join(', ');
}

function ReleaseForm({ hold, onRelease, onCancel }: { hold: Hold; onRelease: (reason: string) => Promise<void>; onCancel: () => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const inputId = `release-reason-${hold.id}`;
  return (
    <form
      class="release-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        await onRelease(reason.trim());
        setBusy(false);
      }}
    >
      <label for={inputId}>Reason for releasing {describeItems(hold)}</label>
      <input
        id={inputId}
        data-testid={`admin-release-reason-${hold.id}`}
        value={reason}
        maxLength={500}
        required
        ref={input}
        onInput={(e) => setReason(e.currentTarget.value)}
      />
      <div class="actions">
        <button type="submit" class="danger" data-testid={`admin-release-confirm-${hold.id}`} disabled={busy || !reason.trim()}>
          Release hold
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

interface Props {
  api: Api;
  /** '' for all events. */
  eventId: string;
  eventNames: ReadonlyMap<string, string>;
  onReleased: () => void;
  /** Changes when the event's sales moved (the dashboard heard it on the stream): read again at once. */
  version?: number;
}

export function HoldsTable({ api, eventId, eventNames, onReleased, version = 0 }: Props) {
  const load = useCallback(
    (cursor?: string) => api.adminHolds({ status: 'active', eventId: eventId || undefined, cursor }),
    [api, eventId],
  );
  const { items, nextCursor, error, reload, loadMore } = usePaged(load, 2000);
  useEffect(() => {
    if (version) void reload();
  }, [version, reload]);
  const [releasing, setReleasing] = useState<string | null>(null);
  const [releaseError, setReleaseError] = useState<string | null>(null);
  const now = useServerNow(true, 500);

  const release = async (hold: Hold, reason: string) => {
    setReleaseError(null);
    try {
      await api.adminReleaseHold(hold.id, reason);
      setReleasing(null);
      onReleased();
      await reload();
    } catch (e) {
      setReleaseError(describeError(e));
    }
  };

  const live = items?.filter((h) => Date.parse(h.expiresAt) > now);

  return (
    <section class="card" aria-labelledby="holds-heading">
      <h2 id="holds-heading">Active holds</h2>
      <PagedTable
        testId="admin-holds"
        columns={[!eventId && 'Event', 'Customer', 'Held', 'Total', 'Time left', <span class="visually-hidden">Actions</span>]}
        items={live}
        emptyText="No active holds."
        error={error ?? releaseError}
        onDismissError={releaseError ? () => setReleaseError(null) : undefined}
        nextCursor={nextCursor}
        onLoadMore={loadMore}
        row={(hold) => (
          <tr key={hold.id} data-testid={`admin-hold-${hold.id}`}>
            {!eventId && <td>{eventNames.get(hold.eventId) ?? hold.eventId}</td>}
            <td>{hold.customerId}</td>
            <td>{describeItems(hold)}</td>
            <td>{formatMoney(hold.totalCents, hold.currency)}</td>
            <td>
              <time data-testid={`admin-countdown-${hold.id}`}>{formatMmSs(Date.parse(hold.expiresAt) - now)}</time>
            </td>
            <td>
              {releasing === hold.id ? (
                <ReleaseForm hold={hold} onRelease={(reason) => release(hold, reason)} onCancel={() => setReleasing(null)} />
              ) : (
                <button
                  type="button"
                  data-testid={`admin-release-${hold.id}`}
                  aria-label={`Release the hold on ${describeItems(hold)} for ${hold.customerId}`}
                  onClick={() => setReleasing(hold.id)}
                >
                  Release…
                </button>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
