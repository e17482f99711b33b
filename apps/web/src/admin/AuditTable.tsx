/** The audit trail: admin releases, refund-required payments, and whatever else the API records. */
import { useCallback } from 'preact/hooks';
import type { Api } from '../shared/api';
import { formatDateTime } from '../shared/format';
import { PagedTable } from './PagedTable';
import { usePaged } from './usePaged';

export function AuditTable({ api, eventId }: { api: Api; eventId: string }) {
  const load = useCallback((cursor?: string) => api.adminAudit({ eventId: eventId || undefined, cursor }), [api, eventId]);
  const { items, nextCursor, error, loadMore } = usePaged(load, 5000);
  return (
    <section class="card" aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit trail</h2>
      <PagedTable
        testId="admin-audit"
        columns={['When', 'Who', 'What', 'Hold / order', 'Reason']}
        items={items}
        emptyText="Nothing recorded yet."
        error={error}
        nextCursor={nextCursor}
        onLoadMore={loadMore}
        row={(entry, i) => (
          <tr key={`${entry.at}-${i}`}>
            <td>{formatDateTime(entry.at)}</td>
            <td>{entry.actor}</td>
            <td>{entry.action}</td>
            <td>{[entry.holdId, entry.orderId].filter(Boolean).join(' / ') || '—'}</td>
            <td>{entry.reason ?? '—'}</td>
          </tr>
        )}
      />
    </section>
  );
}
