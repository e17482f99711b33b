/**
 * One event's sales, live: sold, held and available per tier and ticket type,
 * revenue, holds and orders per minute. Every seat or availability change on
 * the event stream re-reads the numbers (at most a few times a second); no reload.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../shared/api';
import { ErrorMessage } from '../shared/components';
import { formatMoney } from '../shared/format';
import { describeError } from '../shared/messages';
import { useEventStream } from '../shared/stream';
import type { Sales } from '../shared/types';

const THROTTLE_MS = 300;

/** A bar on a fixed track, so the count beside it never leaves the card. */
function Bar({ value, max, label }: { value: number; max: number; label: string }) {
  return (
    <span class="bar-line">
      <span class="bar-track">
        <span class="bar" style={{ width: `${max && value ? Math.max(3, (value / max) * 100) : 0}%` }} />
      </span>
      <span>
        {value} {label}
        {value === 1 ? '' : 's'}
      </span>
    </span>
  );
}

interface Props {
  api: Api;
  eventId: string;
  eventName: string;
  /** Called after each change the stream brought, so other panels can read again. */
  onChange?: () => void;
}

export function SalesDashboard({ api, eventId, eventName, onChange }: Props) {
  const [sales, setSales] = useState<Sales | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [updates, setUpdates] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const load = useCallback(async () => {
    try {
      setSales(await api.adminSales(eventId));
      setUpdates((n) => n + 1);
      setError(null);
    } catch (e) {
      setError(describeError(e));
    }
  }, [api, eventId]);
  const soon = useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      void load();
      onChange?.();
    }, THROTTLE_MS);
  }, [load, onChange]);

  useEffect(() => {
    setSales(null);
    // The per-minute counts move with the clock too.
    const every = setInterval(() => void load(), 15_000);
    return () => {
      clearInterval(every);
      clearTimeout(timer.current);
      timer.current = undefined;
    };
  }, [load]);

  const live = useEventStream(eventId, { onSeat: soon, onAvailability: soon, onSync: () => void load() });
  const perMinute = sales?.perMinute.slice(-10) ?? [];
  const peak = Math.max(1, ...perMinute.map((m) => Math.max(m.holds, m.orders)));

  return (
    <section class="card dashboard" aria-labelledby="sales-heading" data-testid="sales-dashboard" data-updates={updates}>
      <div class="card-head">
        <h2 id="sales-heading">Sales · {eventName}</h2>
        <span class={`live live-${live}`} data-testid="dashboard-live">
          {live === 'live' ? 'Live' : 'Connecting…'}
        </span>
      </div>
      <ErrorMessage message={error} />
      {sales && (
        <>
          <div class="stats">
            <div class="stat">
              <span class="stat-value" data-testid="sales-revenue">{formatMoney(sales.revenueCents, sales.currency)}</span>
              <span class="muted">revenue</span>
            </div>
            <div class="stat">
              <span class="stat-value" data-testid="sales-orders">{sales.orders}</span>
              <span class="muted">orders</span>
            </div>
            <div class="stat">
              <span class="stat-value" data-testid="sales-held">
                {sales.tiers.reduce((n, t) => n + t.held, 0) + sales.ticketTypes.reduce((n, t) => n + t.held, 0)}
              </span>
              <span class="muted">held now</span>
            </div>
            <div class="stat">
              <span class="stat-value" data-testid="sales-waitlist">
                {sales.waitlist.waiting} / {sales.waitlist.offered}
              </span>
              <span class="muted">waiting / offered</span>
            </div>
          </div>
          <div class="table-scroll">
            <table data-testid="sales-table">
              <thead>
                <tr>
                  <th scope="col">Tier / ticket type</th>
                  <th scope="col">Sold</th>
                  <th scope="col">Held</th>
                  <th scope="col">Available</th>
                  <th scope="col">Of</th>
                  <th scope="col">Revenue</th>
                </tr>
              </thead>
              <tbody>
                {sales.tiers.map((t) => (
                  <tr key={t.tier} data-testid={`sales-tier-${t.tier}`}>
                    <td>{t.tier}</td>
                    <td data-col="sold">{t.sold}</td>
                    <td data-col="held">{t.held}</td>
                    <td data-col="available">{t.available}</td>
                    <td>{t.total}</td>
                    <td>{formatMoney(t.revenueCents, sales.currency)}</td>
                  </tr>
                ))}
                {sales.ticketTypes.map((t) => (
                  <tr key={t.id} data-testid={`sales-type-${t.id}`}>
                    <td>{t.name} <span class="muted">(general admission)</span></td>
                    <td data-col="sold">{t.sold}</td>
                    <td data-col="held">{t.held}</td>
                    <td data-col="available">{t.available}</td>
                    <td>{t.capacity}</td>
                    <td>{formatMoney(t.revenueCents, sales.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>Per minute</h3>
          {perMinute.length === 0 ? (
            <p class="muted">No holds or orders in the last 30 minutes.</p>
          ) : (
            <table class="per-minute" data-testid="sales-per-minute">
              <tbody>
                {perMinute.map((m) => (
                  <tr key={m.minute}>
                    <td>{new Date(m.minute).toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' })}</td>
                    <td class="bar-cell">
                      <Bar value={m.holds} max={peak} label="hold" />
                    </td>
                    <td class="bar-cell orders">
                      <Bar value={m.orders} max={peak} label="order" />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
