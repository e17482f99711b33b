/** The other two ways to hold: best N seats in a tier, and a general-admission quantity. */
import { useState } from 'preact/hooks';
import { formatMoney } from '../shared/format';
import type { HoldRequest, TicketType } from '../shared/types';

interface Props {
  tiers: string[];
  /** Tiers selling fast (busy.ts), busiest first: best available leads there. */
  busy?: string[];
  ticketTypes: TicketType[];
  currency: string;
  disabled: boolean;
  onHold: (request: HoldRequest) => void;
  /** A sold-out ticket type: join its waiting list instead. */
  onWaitlist?: (request: { ticketTypeId: string; quantity: number }) => void;
}

/** No `max`: the per-customer limit counts earlier holds and orders too, so the API's answer explains it. */
function Quantity({ id, value, onChange }: { id: string; value: number; onChange: (n: number) => void }) {
  return (
    <input
      id={id}
      type="number"
      inputMode="numeric"
      min={1}
      value={value}
      onInput={(e) => onChange(Math.max(1, Math.floor(Number(e.currentTarget.value)) || 1))}
    />
  );
}

export function QuickPick({ tiers, busy = [], ticketTypes, currency, disabled, onHold, onWaitlist }: Props) {
  // Until the buyer picks a tier, the busiest one is offered (else the first).
  const [tier, setTier] = useState<string | null>(null);
  const [bestQuantity, setBestQuantity] = useState(2);
  const [gaQuantity, setGaQuantity] = useState<Record<string, number>>({});
  const chosenTier = tier !== null && tiers.includes(tier) ? tier : (busy.find((t) => tiers.includes(t)) ?? tiers[0] ?? '');
  const selling = busy.includes(chosenTier);

  return (
    <div class="quick-pick">
      {tiers.length > 0 && (
        <form
          class="card"
          data-testid="best-form"
          onSubmit={(e) => {
            e.preventDefault();
            onHold({ tier: chosenTier, quantity: bestQuantity });
          }}
        >
          <h3>Best available</h3>
          {selling && (
            <p class="notice" data-testid="best-busy">
              {chosenTier} is selling fast: seats picked on the map may be gone by the time you ask. Best available holds the
              best free seats in one step.
            </p>
          )}
          <div class="field-row">
            <label for="best-quantity">Seats</label>
            <Quantity id="best-quantity" value={bestQuantity} onChange={setBestQuantity} />
            <label for="best-tier">in</label>
            <select id="best-tier" value={chosenTier} onChange={(e) => setTier(e.currentTarget.value)}>
              {tiers.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
            <button type="submit" class={selling ? 'primary' : undefined} data-testid="hold-best" disabled={disabled}>
              Find seats
            </button>
          </div>
        </form>
      )}
      {ticketTypes.map((type) => {
        const quantity = gaQuantity[type.id] ?? 1;
        const inputId = `ga-quantity-${type.id}`;
        return (
          <form
            key={type.id}
            class="card"
            data-testid={`ga-form-${type.name}`}
            onSubmit={(e) => {
              e.preventDefault();
              onHold({ ticketTypeId: type.id, quantity });
            }}
          >
            <h3>{type.name}</h3>
            <p class="muted">
              {formatMoney(type.priceCents, currency)} each ·{' '}
              <span data-testid={`ga-available-${type.name}`}>
                {type.available > 0 ? `${type.available} left` : 'sold out'}
              </span>
            </p>
            <div class="field-row">
              <label for={inputId}>Tickets</label>
              <Quantity
                id={inputId}
                value={quantity}
                onChange={(n) => setGaQuantity((q) => ({ ...q, [type.id]: n }))}
              />
              <button type="submit" disabled={disabled || type.available === 0}>
                Hold tickets
              </button>
              {type.available === 0 && onWaitlist && (
                <button type="button" data-testid={`ga-waitlist-${type.name}`} disabled={disabled} onClick={() => onWaitlist({ ticketTypeId: type.id, quantity })}>
                  Join the waiting list
                </button>
              )}
            </div>
          </form>
        );
      })}
    </div>
  );
}
