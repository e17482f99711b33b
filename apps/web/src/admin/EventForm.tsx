/**
 * Create or edit an event: sections × rows × seats per row, a tier and price per
 * range of rows, general-admission ticket types, hold time and limits, the sale
 * window; the seat map is previewed live before anything is saved. The form
 * sends the layout and the server makes the seats, as the preview shows them
 * (both by `expandLayout`). Seats and ticket types are fixed once the event
 * exists; its settings stay editable.
 */
import { useMemo, useState } from 'preact/hooks';
// The zod-free part of the contracts: the one rule that makes a layout's seats.
import { expandLayout } from '@holdfast/contracts/src/seat-layout';
import type { Api } from '../shared/api';
import { ErrorMessage } from '../shared/components';
import { describeError } from '../shared/messages';
import type { Event, EventInput, Seat } from '../shared/types';
import { SeatMap } from '../checkout/SeatMap';
import { cents, layoutOf, type TierRange } from './event-layout';

interface GaType { name: string; price: string; capacity: number }

/** `2027-01-01T19:00:00.000Z` → the `datetime-local` value in this browser's zone, to the second. */
function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
const fromLocalInput = (value: string): string | null => (value ? new Date(value).toISOString() : null);

interface Props {
  api: Api;
  /** The event to edit; a new one when absent. */
  event?: Event;
  /** The edited event's seats, for its preview. */
  existingSeats?: Seat[];
  onSaved: (event: Event) => void;
  onCancel: () => void;
}

export function EventForm({ api, event, existingSeats, onSaved, onCancel }: Props) {
  const editing = Boolean(event);
  const [name, setName] = useState(event?.name ?? '');
  const [startsAt, setStartsAt] = useState(toLocalInput(event?.startsAt ?? new Date(Date.now() + 30 * 86400_000).toISOString()));
  const [currency, setCurrency] = useState(event?.currency ?? 'USD');
  const [holdMinutes, setHoldMinutes] = useState(String((event?.holdTtlSeconds ?? 600) / 60));
  const [maxTickets, setMaxTickets] = useState(event?.maxTicketsPerCustomer ?? 10);
  const [maxExtensions, setMaxExtensions] = useState(event?.maxHoldExtensions ?? 1);
  const [maxHoldMinutes, setMaxHoldMinutes] = useState(String((event?.maxHoldSeconds ?? 1800) / 60));
  const [salesStatus, setSalesStatus] = useState<Event['salesStatus']>(event?.salesStatus ?? 'draft');
  const [salesStartAt, setSalesStartAt] = useState(toLocalInput(event?.salesStartAt));
  const [salesEndAt, setSalesEndAt] = useState(toLocalInput(event?.salesEndAt));
  // The waiting room: off unless ticked; its numbers as the example.
  const [roomOn, setRoomOn] = useState(Boolean(event?.waitingRoom));
  const [room, setRoom] = useState({
    admitPerMinute: String(event?.waitingRoom?.admitPerMinute ?? 600),
    maxActive: String(event?.waitingRoom?.maxActive ?? 2000),
    passMinutes: String((event?.waitingRoom?.passSeconds ?? 600) / 60),
    preQueueMinutes: String((event?.waitingRoom?.preQueueSeconds ?? 1800) / 60),
    challengeBits: String(event?.waitingRoom?.challengeBits ?? 0),
  });
  const setRoomField = (field: keyof typeof room, value: string) => setRoom((r) => ({ ...r, [field]: value }));
  const [sections, setSections] = useState('A, B');
  const [rows, setRows] = useState(4);
  const [perRow, setPerRow] = useState(8);
  const [ranges, setRanges] = useState<TierRange[]>([
    { fromRow: 1, toRow: 2, tier: 'front', price: '90' },
    { fromRow: 3, toRow: 4, tier: 'back', price: '45' },
  ]);
  const [ga, setGa] = useState<GaType[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const layout = useMemo(() => layoutOf(sections, rows, perRow, ranges), [sections, rows, perRow, ranges]);
  const newSeats = useMemo(() => (layout ? expandLayout(layout) : []), [layout]);
  const preview: Seat[] = useMemo(
    () =>
      editing
        ? (existingSeats ?? []).map((s) => ({ ...s, status: 'available' as const }))
        : newSeats.map((s, i) => ({ ...s, id: `preview-${i}`, label: `${s.section}-${s.row}-${s.number}`, status: 'available' as const })),
    [editing, existingSeats, newSeats],
  );

  const settings = () => ({
    name: name.trim(),
    startsAt: fromLocalInput(startsAt) ?? '',
    holdTtlSeconds: Math.round(Number(holdMinutes) * 60),
    maxTicketsPerCustomer: Number(maxTickets),
    maxHoldExtensions: Number(maxExtensions),
    maxHoldSeconds: Math.round(Number(maxHoldMinutes) * 60),
    salesStatus,
    salesStartAt: fromLocalInput(salesStartAt),
    salesEndAt: fromLocalInput(salesEndAt),
    waitingRoom: roomOn
      ? {
          admitPerMinute: Number(room.admitPerMinute),
          maxActive: Number(room.maxActive),
          passSeconds: Math.round(Number(room.passMinutes) * 60),
          preQueueSeconds: Math.round(Number(room.preQueueMinutes) * 60),
          challengeBits: Number(room.challengeBits),
        }
      : null,
  });

  const save = async (e: SubmitEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const saved = event
        ? await api.adminUpdateEvent(event.id, settings())
        : await api.adminCreateEvent({
            ...settings(),
            currency,
            ...(layout ? { layout } : {}),
            ticketTypes: ga.map((t) => ({ name: t.name.trim(), priceCents: cents(t.price), capacity: Number(t.capacity) })),
          } satisfies EventInput);
      onSaved(saved);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setSaving(false);
    }
  };

  const setRange = (i: number, patch: Partial<TierRange>) => setRanges((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const setType = (i: number, patch: Partial<GaType>) => setGa((ts) => ts.map((t, j) => (j === i ? { ...t, ...patch } : t)));
  const tiers = new Set(newSeats.map((s) => s.tier));

  return (
    <form class="card event-form" data-testid="event-form" onSubmit={(e) => void save(e as unknown as SubmitEvent)}>
      <h2>{editing ? `Edit ${event!.name}` : 'New event'}</h2>
      <ErrorMessage message={error} onDismiss={() => setError(null)} />
      <div class="form-grid">
        <label>
          Name
          <input data-testid="ev-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Starts
          <input type="datetime-local" step={1} required value={startsAt} onInput={(e) => setStartsAt(e.currentTarget.value)} />
        </label>
        <label>
          Currency
          <input value={currency} disabled={editing} maxLength={3} onInput={(e) => setCurrency(e.currentTarget.value.toUpperCase())} />
        </label>
        <label>
          Hold time (minutes)
          <input data-testid="ev-hold-minutes" type="number" min={0.1} step="any" value={holdMinutes} onInput={(e) => setHoldMinutes(e.currentTarget.value)} />
        </label>
        <label>
          Tickets per customer
          <input type="number" min={1} max={100} value={maxTickets} onInput={(e) => setMaxTickets(Number(e.currentTarget.value))} />
        </label>
        <label>
          Extensions per hold
          <input data-testid="ev-max-extensions" type="number" min={0} max={10} value={maxExtensions} onInput={(e) => setMaxExtensions(Number(e.currentTarget.value))} />
        </label>
        <label>
          Longest hold (minutes)
          <input data-testid="ev-max-hold-minutes" type="number" min={0.1} step="any" value={maxHoldMinutes} onInput={(e) => setMaxHoldMinutes(e.currentTarget.value)} />
        </label>
        <label>
          Sale status
          <select data-testid="ev-status" value={salesStatus} onChange={(e) => setSalesStatus(e.currentTarget.value as Event['salesStatus'])}>
            <option value="draft">Draft (not on sale)</option>
            <option value="on_sale">On sale</option>
            <option value="closed">Closed</option>
          </select>
        </label>
        <label>
          Sales open (optional)
          <input data-testid="ev-sales-start" type="datetime-local" step={1} value={salesStartAt} onInput={(e) => setSalesStartAt(e.currentTarget.value)} />
        </label>
        <label>
          Sales close (optional)
          <input data-testid="ev-sales-end" type="datetime-local" step={1} value={salesEndAt} onInput={(e) => setSalesEndAt(e.currentTarget.value)} />
        </label>
      </div>

      <fieldset class="room-fields" data-testid="ev-room">
        <legend>
          <label>
            <input type="checkbox" data-testid="ev-room-on" checked={roomOn} onChange={(e) => setRoomOn(e.currentTarget.checked)} /> Waiting room
          </label>
        </legend>
        {roomOn && (
          <div class="form-grid">
            <label>
              Admit per minute
              <input data-testid="ev-room-rate" type="number" min={1} max={1_000_000} value={room.admitPerMinute} onInput={(e) => setRoomField('admitPerMinute', e.currentTarget.value)} />
            </label>
            <label>
              Most buyers in at once
              <input data-testid="ev-room-max" type="number" min={1} max={1_000_000} value={room.maxActive} onInput={(e) => setRoomField('maxActive', e.currentTarget.value)} />
            </label>
            <label>
              Turn without a hold (minutes)
              <input data-testid="ev-room-pass" type="number" min={0.5} max={120} step="any" value={room.passMinutes} onInput={(e) => setRoomField('passMinutes', e.currentTarget.value)} />
            </label>
            <label>
              Queue opens before sales (minutes)
              <input data-testid="ev-room-pre" type="number" min={0} max={1440} step="any" value={room.preQueueMinutes} onInput={(e) => setRoomField('preQueueMinutes', e.currentTarget.value)} />
            </label>
            <label>
              Proof of work (bits, 0: none)
              <input data-testid="ev-room-bits" type="number" min={0} max={24} value={room.challengeBits} onInput={(e) => setRoomField('challengeBits', e.currentTarget.value)} />
            </label>
          </div>
        )}
      </fieldset>

      {!editing && (
        <fieldset class="layout-fields">
          <legend>Seating</legend>
          <div class="form-grid">
            <label>
              Sections (comma-separated)
              <input data-testid="ev-sections" value={sections} onInput={(e) => setSections(e.currentTarget.value)} />
            </label>
            <label>
              Rows per section
              <input data-testid="ev-rows" type="number" min={0} max={200} value={rows} onInput={(e) => setRows(Number(e.currentTarget.value))} />
            </label>
            <label>
              Seats per row
              <input data-testid="ev-per-row" type="number" min={0} max={500} value={perRow} onInput={(e) => setPerRow(Number(e.currentTarget.value))} />
            </label>
          </div>
          <table class="compact">
            <thead>
              <tr><th scope="col">Rows from</th><th scope="col">to</th><th scope="col">Tier</th><th scope="col">Price ({currency})</th><th /></tr>
            </thead>
            <tbody>
              {ranges.map((r, i) => (
                <tr key={i} data-testid={`ev-range-${i}`}>
                  <td><input type="number" min={1} aria-label="Rows from" value={r.fromRow} onInput={(e) => setRange(i, { fromRow: Number(e.currentTarget.value) })} /></td>
                  <td><input type="number" min={1} aria-label="Rows to" value={r.toRow} onInput={(e) => setRange(i, { toRow: Number(e.currentTarget.value) })} /></td>
                  <td><input aria-label="Tier" value={r.tier} onInput={(e) => setRange(i, { tier: e.currentTarget.value })} /></td>
                  <td><input aria-label="Price" type="number" min={0} step="0.01" value={r.price} onInput={(e) => setRange(i, { price: e.currentTarget.value })} /></td>
                  <td><button type="button" class="link" onClick={() => setRanges((rs) => rs.filter((_, j) => j !== i))}>Remove</button></td>
                </tr>
              ))}
            </tbody>
          </table>
          <button type="button" class="link" onClick={() => setRanges((rs) => [...rs, { fromRow: 1, toRow: rows, tier: 'standard', price: '50' }])}>
            Add a row range
          </button>
        </fieldset>
      )}

      {!editing && (
        <fieldset class="layout-fields">
          <legend>General admission</legend>
          {ga.length === 0 && <p class="muted">No standing or unnumbered tickets.</p>}
          {ga.map((t, i) => (
            <div class="form-grid" key={i} data-testid={`ev-ga-${i}`}>
              <label>Name<input value={t.name} onInput={(e) => setType(i, { name: e.currentTarget.value })} /></label>
              <label>Price ({currency})<input type="number" min={0} step="0.01" value={t.price} onInput={(e) => setType(i, { price: e.currentTarget.value })} /></label>
              <label>Capacity<input type="number" min={1} value={t.capacity} onInput={(e) => setType(i, { capacity: Number(e.currentTarget.value) })} /></label>
              <button type="button" class="link" onClick={() => setGa((ts) => ts.filter((_, j) => j !== i))}>Remove</button>
            </div>
          ))}
          <button type="button" class="link" data-testid="ev-add-ga" onClick={() => setGa((ts) => [...ts, { name: 'Standing', price: '30', capacity: 100 }])}>
            Add a ticket type
          </button>
        </fieldset>
      )}

      <section class="preview" aria-label="Seat map preview" data-testid="ev-preview">
        <h3>
          Preview: {preview.length} seats{tiers.size > 0 && !editing ? ` in ${[...tiers].join(', ')}` : ''}
          {!editing && ga.length > 0 ? ` · ${ga.reduce((n, t) => n + Number(t.capacity), 0)} general admission` : ''}
        </h3>
        {preview.length > 0 ? (
          <SeatMap seats={preview} currency={currency} selected={new Set()} mine={new Set()} canPick={false} onToggle={() => undefined} />
        ) : (
          <p class="muted">No seats.</p>
        )}
      </section>

      <div class="actions">
        <button type="submit" class="primary" data-testid="ev-save" disabled={saving}>
          {saving ? 'Saving…' : editing ? 'Save changes' : 'Create event'}
        </button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
