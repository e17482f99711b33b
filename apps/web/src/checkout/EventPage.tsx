/** One event: the live seat map, ways to hold, and the buyer's hold → pay → order. */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatMmSs } from '../shared/clock';
import { useServerNow } from '../shared/hooks';
import type { Api } from '../shared/api';
import { ErrorMessage } from '../shared/components';
import { formatDateTime, formatDuration, formatMoney } from '../shared/format';
import { describeError, takenSeatIds, type MessageContext } from '../shared/messages';
import { useEventStream } from '../shared/stream';
import { isSeatItem, type Event, type HoldRequest, type Seat } from '../shared/types';
import { BUSY_WINDOW_MS, busyTiers } from './busy';
import { HoldPanel } from './HoldPanel';
import { heldSeatIds } from './purchase';
import { QueuePanel } from './QueuePanel';
import { QuickPick } from './QuickPick';
import { SeatMap } from './SeatMap';
import { useEventData } from './useEventData';
import { usePurchase } from './usePurchase';
import { useQueue } from './useQueue';
import { useWaitlist, type WaitlistRequest } from './useWaitlist';
import { WaitlistPanel } from './WaitlistPanel';
import { HoldfastError } from '../shared/api';

type SaleGate = { kind: 'open' } | { kind: 'draft' } | { kind: 'closed' } | { kind: 'ended' } | { kind: 'opens'; inMs: number };

/** Where the sale stands on the server's clock: the start is inside the window, the end is not. */
function saleGate(event: Event, now: number): SaleGate {
  if (event.salesStatus === 'draft') return { kind: 'draft' };
  if (event.salesStatus === 'closed') return { kind: 'closed' };
  if (event.salesStartAt && now < Date.parse(event.salesStartAt)) return { kind: 'opens', inMs: Date.parse(event.salesStartAt) - now };
  if (event.salesEndAt && now >= Date.parse(event.salesEndAt)) return { kind: 'ended' };
  return { kind: 'open' };
}

function SaleNotice({ gate }: { gate: SaleGate }) {
  if (gate.kind === 'open') return null;
  const text =
    gate.kind === 'draft' ? 'This event is not on sale yet.' : gate.kind === 'opens' ? null : 'Sales for this event are closed.';
  return (
    <div class="notice sale-notice" data-testid="sale-notice" data-gate={gate.kind} role="status">
      {gate.kind === 'opens' ? (
        <span>
          Sales open in{' '}
          <time data-testid="sale-countdown" role="timer" aria-live="off">
            {formatMmSs(gate.inMs)}
          </time>
          . Buying is enabled the second they do.
        </span>
      ) : (
        <span>{text}</span>
      )}
    </div>
  );
}

const LIVE_TEXT = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting… the map may be out of date' } as const;

export function EventPage({ api, eventId }: { api: Api; eventId: string }) {
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState(false);
  // Errors are explained with the seat labels and limits of the event on screen.
  const context = useRef<MessageContext>({});
  const explain = useCallback((e: unknown) => setError(describeError(e, context.current)), []);
  const { event, seats, refresh, markSeats, setAvailable } = useEventData(api, eventId, explain);
  // The waiting room, when the event has one: holds go with its pass.
  const queue = useQueue(api, event, explain);
  const pass = useRef<string | undefined>(undefined);
  pass.current = queue.pass;
  const { purchase, current, hold, adopt, pay, release, extend, expire, recheck, dismiss } = usePurchase(api, eventId, {
    markSeats,
    refresh,
    onError: explain,
    queuePass: () => pass.current,
  });

  // The waiting list: a sold-out tier or ticket type can be joined; an offer becomes the page's hold.
  const [soldOut, setSoldOut] = useState<(WaitlistRequest & { label: string }) | null>(null);
  const waitlist = useWaitlist(api, eventId, (holdId) => void adopt(holdId).catch(explain), explain);

  const seatById = useMemo(() => new Map(seats.map((s) => [s.id, s])), [seats]);
  context.current = {
    seatLabel: (id) => seatById.get(id)?.label,
    maxTicketsPerCustomer: event?.maxTicketsPerCustomer,
  };

  // Seat changes heard on the stream lately, by tier: how busy each tier is (busy.ts).
  const changes = useRef<{ tier: string; at: number }[]>([]);
  const live = useEventStream(eventId, {
    onSeat: ({ seatId, status }) => {
      const tier = seatById.get(seatId)?.tier;
      if (tier) {
        const at = Date.now();
        changes.current = [...changes.current.filter((c) => at - c.at <= BUSY_WINDOW_MS), { tier, at }];
      }
      markSeats(new Set([seatId]), status);
      if (status === 'available' && heldSeatIds(current.current).has(seatId)) void recheck();
    },
    onAvailability: ({ ticketTypeId, available }) => {
      setAvailable(ticketTypeId, available);
      const now = current.current;
      if (now.stage === 'held' && now.hold.items.some((i) => !isSeatItem(i) && i.ticketTypeId === ticketTypeId))
        void recheck();
    },
    onQueue: (change) => queue.onAdmission(change),
    onSync: (reconnected) => {
      void refresh();
      void recheck();
      if (reconnected) queue.onReconnect();
    },
  });

  const holdAndClear = async (request: HoldRequest) => {
    setBusy(true);
    setError(null);
    try {
      await hold(request);
      setSelected(new Set());
      setSoldOut(null);
    } catch (e) {
      explain(e);
      if (e instanceof HoldfastError && e.code === 'SOLD_OUT' && !('seatIds' in request)) {
        const label = 'tier' in request ? request.tier : (event?.ticketTypes.find((t) => t.id === request.ticketTypeId)?.name ?? 'This ticket type');
        setSoldOut('tier' in request ? { tier: request.tier, quantity: request.quantity, label } : { ticketTypeId: request.ticketTypeId, quantity: request.quantity, label });
      }
      const taken = new Set(takenSeatIds(e));
      if (taken.size) {
        markSeats(taken, 'held', 'available');
        setSelected((picked) => new Set([...picked].filter((id) => !taken.has(id))));
      }
    } finally {
      setBusy(false);
    }
  };

  const toggle = (seat: Seat) =>
    setSelected((picked) => {
      const next = new Set(picked);
      if (!next.delete(seat.id)) next.add(seat.id);
      return next;
    });

  // A hold that ended (released, expired, paid) ended the buyer's pass too: ask the room where they
  // stand, so the page shows the Join button again instead of holds refused for want of a pass.
  const refreshQueue = queue.refresh;
  const hadHold = useRef(false);
  useEffect(() => {
    const holding = purchase.stage === 'held' || purchase.stage === 'paying';
    if (hadHold.current && !holding) void refreshQueue();
    hadHold.current = holding;
  }, [purchase.stage, refreshQueue]);

  const now = useServerNow(Boolean(event) && event?.salesStatus !== 'draft', 200);
  const gate = event ? saleGate(event, now) : ({ kind: 'open' } as SaleGate);
  // A sale that is not open may be opened (or moved) by the box office: look again now and
  // then; each answer's Date header also narrows the estimate of the server's clock.
  useEffect(() => {
    if (gate.kind === 'open') return;
    const timer = setInterval(() => void refresh(), 3000);
    return () => clearInterval(timer);
  }, [gate.kind, refresh]);

  if (!event) {
    return (
      <main class="page">
        <ErrorMessage message={error} />
        {!error && <p>Loading the event…</p>}
      </main>
    );
  }

  const holding = purchase.stage === 'held' || purchase.stage === 'paying';
  // With a waiting room, the map opens once the buyer is admitted (or while they hold).
  const inRoom = Boolean(queue.room) && !queue.admitted && !holding && purchase.stage !== 'paid';
  const picking = !holding && gate.kind === 'open' && queue.admitted;
  const chosen = [...selected].flatMap((id) => seatById.get(id) ?? []);
  const gone = chosen.filter((s) => s.status !== 'available');
  const tiers = [...new Set(seats.map((s) => s.tier))];
  const busyNow = busyTiers(seats, changes.current, Date.now());

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
      <SaleNotice gate={gate} />
      <ErrorMessage message={error} onDismiss={() => setError(null)} />
      <div class="event-layout">
        <div class="hold-area">
          <HoldPanel
            purchase={purchase}
            limits={event}
            onExtend={async () => {
              setError(null);
              await extend();
            }}
            onPay={() => {
              setError(null);
              void pay();
            }}
            onRelease={() => {
              setError(null);
              void release();
            }}
            onExpired={expire}
            onDismiss={dismiss}
          />
        </div>
        <div class="map-column">
          {inRoom && (
            <QueuePanel
              standing={queue.standing}
              joining={queue.joining}
              challenge={(queue.room?.challengeBits ?? 0) > 0}
              opensNote={gate.kind === 'opens' ? `Sales open in ${formatMmSs(gate.inMs)}.` : null}
              onJoin={() => {
                setError(null);
                void queue.join();
              }}
            />
          )}
          {!inRoom && seats.length > 0 && (
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
                    {picking
                      ? 'Choose seats on the map, or let us find the best ones.'
                      : gate.kind !== 'open'
                        ? 'Seats can be held once sales are open.'
                        : 'Pay for or release your hold to choose again.'}
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
                    onClick={() => void holdAndClear({ seatIds: [...selected] })}
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
          <WaitlistPanel
            soldOut={soldOut}
            entries={waitlist.entries}
            busy={busy}
            onJoin={(request) => {
              setError(null);
              void waitlist.join(request).catch(explain);
            }}
            onLeave={(entryId) => {
              setError(null);
              void waitlist.leave(entryId).then(() => recheck()).catch(explain);
            }}
          />
          {!inRoom && <QuickPick
            tiers={tiers}
            busy={busyNow}
            ticketTypes={event.ticketTypes}
            currency={event.currency}
            disabled={!picking || busy}
            onHold={(request) => void holdAndClear(request)}
            onWaitlist={(request) => {
              setError(null);
              void waitlist.join(request).catch(explain);
            }}
          />}
          <p class="muted">
            Up to {event.maxTicketsPerCustomer} tickets per customer. Holds last {formatDuration(event.holdTtlSeconds)}
            {event.maxHoldExtensions > 0
              ? `; in the last two minutes you can ask for more time (${event.maxHoldExtensions === 1 ? 'once' : `${event.maxHoldExtensions} times`}).`
              : '.'}
          </p>
        </aside>
      </div>
    </main>
  );
}
