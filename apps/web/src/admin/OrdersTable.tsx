/** Orders, searched by order number, customer or seat label. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Api } from '../shared/api';
import { formatDateTime, formatMoney } from '../shared/format';
import { isSeatItem } from '../shared/types';
import { PagedTable } from './PagedTable';
import { usePaged } from './usePaged';

/** `version` changes when the event's sales moved (the dashboard heard it on the stream): read again. */
export function OrdersTable({ api, eventId, version = 0 }: { api: Api; eventId: string; version?: number }) {
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const load = useCallback((cursor?: string) => api.adminOrders({ eventId: eventId || undefined, q: q || undefined, cursor }), [api, eventId, q]);
  const { items, nextCursor, error, reload, loadMore } = usePaged(load, 10_000);
  useEffect(() => {
    if (version) void reload();
  }, [version, reload]);
  return (
    <section class="card" aria-labelledby="orders-heading">
      <h2 id="orders-heading">Orders</h2>
      <form
        class="field-row"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQ(typed.trim());
        }}
      >
        <label for="order-search">Search</label>
        <input
          id="order-search"
          data-testid="order-search"
          placeholder="Order number, customer or seat (A-1-4)"
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
        <button type="submit">Search</button>
        {q && (
          <button type="button" class="link" onClick={() => { setTyped(''); setQ(''); }}>
            Clear
          </button>
        )}
      </form>
      <PagedTable
        testId="admin-orders"
        columns={['Number', 'Customer', 'Items', 'Total', 'Paid']}
        items={items}
        emptyText={q ? `No orders match “${q}”.` : 'No orders yet.'}
        error={error}
        nextCursor={nextCursor}
        onLoadMore={loadMore}
        row={(o) => (
          <tr key={o.id} data-testid={`admin-order-${o.number}`}>
            <td><strong>{o.number}</strong></td>
            <td>{o.customerId}</td>
            <td>{o.items.map((i) => (isSeatItem(i) ? i.label : `${i.quantity} × ${i.name}`)).join(', ')}</td>
            <td>{formatMoney(o.totalCents, o.currency)}</td>
            <td>{formatDateTime(o.createdAt)}</td>
          </tr>
        )}
      />
    </section>
  );
}
