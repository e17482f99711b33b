/** The buyer's hold: what is held, the countdown, Pay, and the order number once paid. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatMmSs } from '../shared/clock';
import { formatMoney } from '../shared/format';
import { useServerNow } from '../shared/hooks';
import { isSeatItem, type Hold } from '../shared/types';
import type { Purchase } from './purchase';

function Items({ hold }: { hold: Hold }) {
  return (
    <ul class="items">
      {hold.items.map((item) =>
        isSeatItem(item) ? (
          <li key={item.seatId}>
            Seat {item.label} <span class="muted">({item.tier})</span>
            <span>{formatMoney(item.priceCents, hold.currency)}</span>
          </li>
        ) : (
          <li key={item.ticketTypeId}>
            {item.quantity} × {item.name}
            <span>{formatMoney(item.priceCents * item.quantity, hold.currency)}</span>
          </li>
        ),
      )}
      <li class="total">
        Total <span>{formatMoney(hold.totalCents, hold.currency)}</span>
      </li>
    </ul>
  );
}

function describeReturned(hold: Hold): string {
  const labels = hold.items.flatMap((item) => (isSeatItem(item) ? [item.label] : []));
  if (labels.length === 0) return 'The tickets are back on sale.';
  return `${labels.length === 1 ? 'Seat' : 'Seats'} ${labels.join(', ')} ${labels.length === 1 ? 'is' : 'are'} back on sale and shown on the map again.`;
}

/** "More time" shows in the last two minutes of the countdown. */
export const EXTEND_WINDOW_MS = 120_000;

interface Props {
  purchase: Purchase;
  /** The event's extension rules: how many, and the longest a hold may last. */
  limits: { maxHoldExtensions: number; maxHoldSeconds: number };
  onPay: () => void;
  onExtend: () => Promise<void>;
  onRelease: () => void;
  onExpired: () => void;
  onDismiss: () => void;
}

export function HoldPanel({ purchase, limits, onPay, onExtend, onRelease, onExpired, onDismiss }: Props) {
  const [extending, setExtending] = useState(false);
  const counting = purchase.stage === 'held' || purchase.stage === 'paying';
  const now = useServerNow(counting);
  const remaining = counting ? Math.max(0, Date.parse(purchase.hold.expiresAt) - now) : 0;
  const timeUp = purchase.stage === 'held' && remaining <= 0;

  useEffect(() => {
    if (timeUp) onExpired();
  }, [timeUp, onExpired]);

  // A new panel (held, paid, ended) takes the focus, which also scrolls it into view on a phone.
  const heading = useRef<HTMLHeadingElement>(null);
  const panel = purchase.stage === 'none' ? '' : `${purchase.stage === 'paying' ? 'held' : purchase.stage}:${purchase.hold.id}`;
  useEffect(() => {
    if (panel) heading.current?.focus();
  }, [panel]);

  if (purchase.stage === 'none') return null;

  if (purchase.stage === 'paid') {
    return (
      <section class="card hold-panel paid" aria-labelledby="order-heading" data-testid="order-panel">
        <h2 id="order-heading" tabIndex={-1} ref={heading}>
          You're booked
        </h2>
        <p role="status">
          Order number <strong data-testid="order-number">{purchase.order.number}</strong>
        </p>
        <Items hold={purchase.hold} />
        <button type="button" onClick={onDismiss}>
          Book more tickets
        </button>
      </section>
    );
  }

  if (purchase.stage === 'ended') {
    return (
      <section class="card hold-panel ended" data-testid="hold-ended" data-reason={purchase.why}>
        <h2 tabIndex={-1} ref={heading}>
          {purchase.why === 'expired' ? 'Your hold has expired' : 'Your hold was released'}
        </h2>
        <p role="alert" data-testid="hold-ended-message">
          {purchase.why === 'expired'
            ? "Time's up: your hold ran out before payment, so nothing was charged."
            : 'The box office released your hold, so nothing was charged.'}{' '}
          {describeReturned(purchase.hold)}
        </p>
        <button type="button" onClick={onDismiss}>
          Choose again
        </button>
      </section>
    );
  }

  const urgent = remaining < 60_000;
  const { hold } = purchase;
  const capAt = Date.parse(hold.createdAt) + limits.maxHoldSeconds * 1000;
  const canExtend =
    purchase.stage === 'held' && remaining > 0 && remaining <= EXTEND_WINDOW_MS &&
    hold.extensions < limits.maxHoldExtensions && capAt > Date.parse(hold.expiresAt);
  return (
    <section class="card hold-panel" aria-labelledby="hold-heading" data-testid="hold-panel" data-hold-id={purchase.hold.id}>
      <h2 id="hold-heading" tabIndex={-1} ref={heading}>
        Held for you
      </h2>
      <p class={`countdown${urgent ? ' urgent' : ''}`}>
        Time left to pay:{' '}
        <time data-testid="hold-countdown" role="timer" aria-live="off">
          {formatMmSs(remaining)}
        </time>
      </p>
      {hold.extensions > 0 && (
        <p class="muted" data-testid="extended-note">
          Extended {hold.extensions === 1 ? 'once' : `${hold.extensions} times`}.
        </p>
      )}
      <Items hold={purchase.hold} />
      <div class="actions">
        <button
          type="button"
          class="primary"
          data-testid="pay-button"
          disabled={purchase.stage === 'paying'}
          onClick={onPay}
        >
          {purchase.stage === 'paying' ? 'Paying…' : `Pay ${formatMoney(purchase.hold.totalCents, purchase.hold.currency)}`}
        </button>
        {canExtend && (
          <button
            type="button"
            data-testid="extend-button"
            disabled={extending}
            onClick={() => {
              setExtending(true);
              void onExtend().finally(() => setExtending(false));
            }}
          >
            {extending ? 'Asking for more time…' : 'More time'}
          </button>
        )}
        <button type="button" data-testid="release-button" disabled={purchase.stage === 'paying'} onClick={onRelease}>
          Release
        </button>
      </div>
    </section>
  );
}
