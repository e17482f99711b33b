/** Payments that arrived but could not become an order: money to give back. */
import { useCallback } from 'preact/hooks';
import type { Api } from '../shared/api';
import { ErrorMessage } from '../shared/components';
import { formatDateTime, formatMoney } from '../shared/format';
import { LoadMore } from './LoadMore';
import { usePaged } from './usePaged';

export function PaymentsTable({ api }: { api: Api }) {
  const load = useCallback((cursor?: string) => api.adminPayments({ status: 'refund_required', cursor }), [api]);
  const { items, nextCursor, error, loadMore } = usePaged(load, 10_000);
  return (
    <section class="card" aria-labelledby="payments-heading">
      <h2 id="payments-heading">Payments to refund</h2>
      <ErrorMessage message={error} />
      {items?.length === 0 && <p class="muted">No payments need a refund.</p>}
      {items && items.length > 0 && (
        <div class="table-scroll">
          <table data-testid="admin-payments">
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Reference</th>
                <th scope="col">Hold</th>
                <th scope="col">Amount</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.id} data-testid={`admin-payment-${p.id}`}>
                  <td>{formatDateTime(p.receivedAt)}</td>
                  <td>
                    {p.provider} {p.reference}
                  </td>
                  <td>{p.holdId ?? '—'}</td>
                  <td>{p.amountCents !== null && p.currency ? formatMoney(p.amountCents, p.currency.toUpperCase()) : '—'}</td>
                  <td>{p.reason ?? '—'}</td>
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
