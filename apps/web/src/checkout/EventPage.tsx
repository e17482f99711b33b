/** One event: the live seat map, ways to hold, and the buyer's hold → pay → order. */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, type Api } from '../shared/api';
import { msUntil } from '../shared/clock';
import { ErrorMessage } from '../shared/components';
import { formatDateTime, formatDuration, formatMoney } from '../shared/format';
import { describeError, takenSeatIds } from '../shared/messages';
import { useEventStream } from '../shared/stream';
import type { Event, Hold, HoldRequest, Seat, SeatStatus } from '../shared/types';
import { HoldPanel } from './HoldPanel';
import { payAndGetOrder } from './payment';
import { heldSeatIds, rememberedHold, seatIdsOf, type Purchase } from './purchase';
import { QuickPick } from './QuickPick';
import { SeatMap } from './SeatMap';

const LIVE_TEXT = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' } as const;

function withStatus(seats: Seat[], ids: ReadonlySet<string>, status: SeatStatus): Seat[] {
  return seats.map((seat) => (ids.has(seat.id) ? { ...seat, status } : seat));
}

export function EventPage({ api, eventId }: { api: Api; eventId: string }) {
  const [event, setEvent] = useState<Event | null>(null);
  const [seats, setSeats] = useState<Seat[]>([]);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [purchase, setPurchase] = useState<Purchase>({ stage: 'none' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const purchaseRef = useRef(purchase);
  purchaseRef.current = purchase;

  const seatById = useMemo(() => new Map(seats.map((s) => [s.id, s])), [seats]);
  const messageContext = {
    seatLabel: (id: string) => seatById.get(id)?.label,
    maxTicketsPerCustomer: event?.maxTicketsPerCustomer,
  };
  const explain = (e: unknown) => setError(describeError(e, messageContext));

  const refresh = useCallback(async () => {
    try {
      const [freshEvent, freshSeats] = await Promise.all([api.getEvent(eventId), api.listSeats(eventId)]);
      setEvent(freshEvent);
      setSeats(freshSeats);
    } catch (e) {
      setError(describeError(e));
    }
  }, [api, eventId]);

  const endHold = useCallback((hold: Hold, why: 'expired' | 'released') => {
    rememberedHold.clear(hold.eventId);
    setSeats((current) => withStatus(current, seatIdsOf(hold), 'available'));
    setPurchase({ stage: 'ended', hold, why });
  }, []);

  /** The server may have ended the hold (an admin released it): ask it. */
  const recheckHold = useCallback(async () => {
    const current = purchaseRef.current;
    if (current.stage !== 'held') return;
    try {
      const hold = await api.getHold(current.hold.id);
      if (purchaseRef.current.stage !== 'held') return;
      if (hold.status === 'released') endHold(hold, 'released');
      else if (hold.status === 'expired') endHold(hold, 'expired');
      else if (hold.status === 'confirmed' && hold.orderId) {
        const order = await api.getOrder(hold.orderId);
        rememberedHold.clear(hold.eventId);
        setPurchase({ stage: 'paid', hold, order });
      }
    } catch (e) {
      setError(describeError(e));
    }
  }, [api, endHold]);

  useEffect(() => {
    void refresh();
    const holdId = rememberedHold.get(eventId);
    if (!holdId) return;
    api.getHold(holdId).then(
      (hold) => {
        if (hold.status === 'active' && msUntil(hold.expiresAt) > 0) setPurchase({ stage: 'held', hold });
        else rememberedHold.clear(eventId);
      },
      () => rememberedHold.clear(eventId),
    );
  }, [api, eventId, refresh]);

  const live = useEventStream(eventId, {
    onSeat: ({ seatId, status }) => {
      setSeats((current) => withStatus(current, new Set([seatId]), status));
      if (status === 'available' && heldSeatIds(purchaseRef.current).has(seatId)) void recheckHold();
    },
    onAvailability: ({ ticketTypeId, available }) => {
      setEvent((current) =>
        current && {
          ...current,
          ticketTypes: current.ticketTypes.map((t) => (t.id === ticketTypeId ? { ...t, available } : t)),
        },
      );
      const current = purchaseRef.current;
      if (current.stage === 'held' && current.hold.items.some((i) => 'ticketTypeId' in i && i.ticketTypeId === ticketTypeId))
        void recheckHold();
    },
    onSync: () => {
      void refresh();
      void recheckHold();
    },
  });

  const hold = async (request: HoldRequest) => {
    setBusy(true);
    setError(null);
    try {
      const created = await api.createHold(eventId, request);
      rememberedHold.set(eventId, created.id);
      setSeats((current) => withStatus(current, seatIdsOf(created), 'held'));
      setSelected(new Set());
      setPurchase({ stage: 'held', hold: created });
    } catch (e) {
      explain(e);
      const taken = new Set(takenSeatIds(e));
      if (taken.size) {
        setSeats((current) => current.map((s) => (taken.has(s.id) && s.status === 'available' ? { ...s, status: 'held' } : s)));
        setSelected((current) => new Set([...current].filter((id) => !taken.has(id))));
      }
    } finally {
      setBusy(false);
    }
  };

  const pay = async () => {
    if (purchase.stage !== 'held') return;
    const { hold: held } = purchase;
    setPurchase({ stage: 'paying', hold: held });
    setError(null);
    try {
      const order = await payAndGetOrder(api, held.id);
      rememberedHold.clear(eventId);
      setSeats((current) => withStatus(current, seatIdsOf(held), 'sold'));
      setPurchase({ stage: 'paid', hold: held, order });
    } catch (e) {
      const code = e instanceof ApiError ? e.code : '';
      if (code === 'HOLD_EXPIRED') endHold(held, 'expired');
      else if (code === 'HOLD_NOT_ACTIVE') endHold(held, 'released');
      else setPurchase({ stage: 'held', hold: held });
      const demoMissing = e instanceof ApiError && e.status === 404 && code !== 'HOLD_NOT_FOUND';
      explain(demoMissing ? new ApiError(404, 'DEMO_PAY_UNAVAILABLE', '') : e);
    }
  };

  const release = async () => {
    if (purchase.stage !== 'held') return;
    const { hold: held } = purchase;
    setError(null);
    try {
      const released = await api.releaseHold(held.id);
      rememberedHold.clear(eventId);
      setSeats((current) => withStatus(current, seatIdsOf(released), 'available'));
      setPurchase({ stage: 'none' });
    } catch (e) {
      explain(e);
    }
  };

  const onExpired = useCallback(() => {
    const current = purchaseRef.current;
    if (current.stage === 'held') endHold(current.hold, 'expired');
  }, [endHold]);

  const toggle = (seat: Seat) =>
    setSelected((current) => {
      const next = new Set(current);
      if (!next.delete(seat.id)) next.add(seat.id);
      return next;
    });

  if (!event) {
    return (
      <main class="page">
        <ErrorMessage message={error} />
        {!error && <p>Loading the event…</p>}
      </main>
    );
  }

  const picking = purchase.stage !== 'held' && purchase.stage !== 'paying';
  const chosen = [...selected].flatMap((id) => seatById.get(id) ?? []);
  const gone = chosen.filter((s) => s.status !== 'available');
  const tiers = [...new Set(seats.map((s) => s.tier))];

  return (
    <main class="page event-page">
      <header class="event-header">
        <div>
          <a href="#/" class="back">
            ← All events
          </a>
          <h1>{event.name}</h1>
          <p class="muted">{formatDateTime(event.startsAt)}</p>
        </div>
        <span class={`live live-${live}`} data-testid="live-status" role="status">
          {LIVE_TEXT[live]}
        </span>
      </header>
      <ErrorMessage message={error} onDismiss={() => setError(null)} />
      <div class="event-layout">
        <div class="hold-area">
          <HoldPanel
            purchase={purchase}
            onPay={() => void pay()}
            onRelease={() => void release()}
            onExpired={onExpired}
            onDismiss={() => setPurchase({ stage: 'none' })}
          />
        </div>
        <div class="map-column">
          {seats.length > 0 && (
            <>
              <SeatMap
                seats={seats}
                currency={event.currency}
                selected={selected}
                mine={heldSeatIds(purchase)}
                canPick={picking}
                onToggle={toggle}
              />
              <div class="selection card" data-testid="selection">
                {chosen.length === 0 ? (
                  <p class="muted">
                    {picking ? 'Choose seats on the map, or let us find the best ones.' : 'Pay for or release your hold to choose again.'}
                  </p>
                ) : (
                  <p>
                    Selected: {chosen.map((s) => s.label).join(', ')} ·{' '}
                    {formatMoney(chosen.reduce((sum, s) => sum + s.priceCents, 0), event.currency)}
                  </p>
                )}
                {gone.length > 0 && (
                  <p class="warning" data-testid="selection-warning">
                    {gone.map((s) => s.label).join(', ')} {gone.length === 1 ? 'is' : 'are'} no longer available.
                  </p>
                )}
                <div class="actions">
                  <button
                    type="button"
                    class="primary"
                    data-testid="hold-selected"
                    disabled={!picking || busy || chosen.length === 0}
                    onClick={() => void hold({ seatIds: [...selected] })}
                  >
                    Hold {chosen.length === 1 ? 'this seat' : `${chosen.length || ''} seats`.trim()}
                  </button>
                  <button type="button" disabled={chosen.length === 0} onClick={() => setSelected(new Set())}>
                    Clear
                  </button>
                </div>
              </div>
            </>
          )}
        </div>
        <aside class="side-column">
          <QuickPick
            tiers={tiers}
            ticketTypes={event.ticketTypes}
            currency={event.currency}
            disabled={!picking || busy}
            onHold={(request) => void hold(request)}
          />
          <p class="muted">Up to {event.maxTicketsPerCustomer} tickets per customer. Holds last {formatDuration(event.holdTtlSeconds)}.</p>
        </aside>
      </div>
    </main>
  );
}
