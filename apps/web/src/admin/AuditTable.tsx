/** The audit trail: admin releases, refund-required payments, and whatever else the API records. */
import { useCallback } from 'preact/hooks';
import type { Api } from '../shared/api';
import { ErrorMessage } from '../shared/components';
import { formatDateTime } from '../shared/format';
import { LoadMore } from './LoadMore';
import { usePaged } from './usePaged';

export function AuditTable({ api, eventId }: { api: Api; eventId: string }) {
  const load = useCallback((cursor?: string) => api.adminAudit({ eventId: eventId || undefined, cursor }), [api, eventId]);
  const { items, nextCursor, error, loadMore } = usePaged(load, 5000);
  return (
    <section class="card" aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit trail</h2>
      <ErrorMessage message={error} />
      {items?.length === 0 && <p class="muted">Nothing recorded yet.</p>}
      {items && items.length > 0 && (
        <div class="table-scroll">
          <table data-testid="admin-audit">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Hold / order</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {items.map((entry, i) => (
                <tr key={`${entry.at}-${i}`}>
                  <td>{formatDateTime(entry.at)}</td>
                  <td>{entry.actor}</td>
                  <td>{entry.action}</td>
                  <td>{[entry.holdId, entry.orderId].filter(Boolean).join(' / ') || '—'}</td>
                  <td>{entry.reason ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore nextCursor={nextCursor} onLoadMore={loadMore} />
    </section>
  );
}
