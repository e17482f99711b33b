/** Payments that arrived but could not become an order: money to give back, and who gave it back. */
import { useCallback, useState } from 'preact/hooks';
import type { Api } from '../shared/api';
import { ErrorMessage } from '../shared/components';
import { formatDateTime, formatMoney } from '../shared/format';
import { describeError } from '../shared/messages';
import type { Payment } from '../shared/types';
import { PagedTable } from './PagedTable';
import { usePaged } from './usePaged';

/** A hold id is long (`hld_<event>_<random>`): its start and end tell holds apart; the whole id is the title. */
const shortId = (id: string) => (id.length > 20 ? `${id.slice(0, 8)}…${id.slice(-8)}` : id);

function RefundCell({ api, payment, onDone }: { api: Api; payment: Payment; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  if (payment.refund) {
    return (
      <span data-testid="refund-done">
        Refunded {formatDateTime(payment.refund.at)} by {payment.refund.by}: <em>{payment.refund.note}</em>
      </span>
    );
  }
  if (!open) {
    return (
      <button type="button" data-testid="mark-refunded" onClick={() => setOpen(true)}>
        Mark refunded
      </button>
    );
  }
  return (
    <form
      class="release-form"
      onSubmit={(e) => {
        e.preventDefault();
        setSaving(true);
        api.adminMarkRefunded(payment.id, note.trim()).then(
          () => onDone(),
          (err: unknown) => {
            setError(describeError(err));
            setSaving(false);
          },
        );
      }}
    >
      <label for={`refund-note-${payment.id}`}>Note (refund id, who asked…)</label>
      <input id={`refund-note-${payment.id}`} data-testid="refund-note" required value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      <button type="submit" class="primary" data-testid="refund-confirm" disabled={saving || !note.trim()}>
        Record refund
      </button>
      <button type="button" class="link" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <ErrorMessage message={error} />
    </form>
  );
}

export function PaymentsTable({ api }: { api: Api }) {
  const load = useCallback((cursor?: string) => api.adminPayments({ status: 'refund_required', cursor }), [api]);
  const { items, nextCursor, error, reload, loadMore } = usePaged(load, 10_000);
  return (
    <section class="card" aria-labelledby="payments-heading">
      <h2 id="payments-heading">Payments to refund</h2>
      <PagedTable
        testId="admin-payments"
        columns={['Received', 'Reference', 'Hold', 'Amount', 'Reason', 'Refund']}
        items={items}
        emptyText="No payments need a refund."
        error={error}
        nextCursor={nextCursor}
        onLoadMore={loadMore}
        row={(p) => (
          <tr key={p.id} data-testid={`admin-payment-${p.id}`}>
            <td>{formatDateTime(p.receivedAt)}</td>
            <td>
              {p.provider} {p.reference}
            </td>
            <td>{p.holdId ? <code title={p.holdId}>{shortId(p.holdId)}</code> : '—'}</td>
            <td>{p.amountCents !== null && p.currency ? formatMoney(p.amountCents, p.currency.toUpperCase()) : '—'}</td>
            <td>{p.reason ?? '—'}</td>
            <td>
              <RefundCell api={api} payment={p} onDone={() => void reload()} />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
