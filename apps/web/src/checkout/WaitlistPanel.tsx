/** Sold out: join the waiting list; the buyer's place in line, and the offer when seats come back. */
import type { WaitlistEntry, WaitlistRequest } from './useWaitlist';

interface Props {
  /** The request that found the tier or ticket type sold out, to join its line with. */
  soldOut: (WaitlistRequest & { label: string }) | null;
  entries: WaitlistEntry[];
  busy: boolean;
  onJoin: (request: WaitlistRequest) => void;
  onLeave: (entryId: string) => void;
}

export function WaitlistPanel({ soldOut, entries, busy, onJoin, onLeave }: Props) {
  const lined = soldOut && entries.some((e) =>
    'tier' in soldOut ? e.tier === soldOut.tier : e.ticketTypeId === soldOut.ticketTypeId);
  if (!entries.length && !soldOut) return null;
  return (
    <section class="card waitlist" data-testid="waitlist-panel" aria-label="Waiting list">
      <h3>Waiting list</h3>
      {soldOut && !lined && (
        <div>
          <p class="muted">{soldOut.label} is sold out. Seats that come back go to the waiting list first, in order.</p>
          <button
            type="button"
            class="primary"
            data-testid="join-waitlist"
            disabled={busy}
            onClick={() => onJoin('tier' in soldOut ? { tier: soldOut.tier, quantity: soldOut.quantity } : { ticketTypeId: soldOut.ticketTypeId, quantity: soldOut.quantity })}
          >
            Join the waiting list
          </button>
        </div>
      )}
      {entries.map((e) => (
        <div key={e.id} class="waitlist-entry" data-testid="waitlist-entry" data-state={e.state}>
          {e.state === 'waiting' ? (
            <p>
              You are <strong data-testid="waitlist-position">#{e.position ?? '…'}</strong> in line for {e.quantity}{' '}
              {e.tier ? `seat${e.quantity === 1 ? '' : 's'} in ${e.tier}` : `ticket${e.quantity === 1 ? '' : 's'}`}.
            </p>
          ) : (
            <p data-testid="waitlist-offer" role="status">
              Seats came back for you: they are held for you until the timer runs out. Pay to keep them.
            </p>
          )}
          <button type="button" data-testid="leave-waitlist" onClick={() => onLeave(e.id)}>
            Leave the waiting list
          </button>
        </div>
      ))}
    </section>
  );
}
