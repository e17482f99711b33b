/**
 * The seat map: an SVG of sections, rows and seats. Each seat is an SVG
 * element with role="button", an aria-label naming it, its tier, price and
 * status, and Enter/Space to toggle. One seat is in the tab order at a time;
 * the arrow keys, Home and End move between seats.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatMoney } from '../shared/format';
import type { Seat } from '../shared/types';
import { layoutSeats, neighbour, SEAT_SIZE, STAGE_HEIGHT, tierColours } from './layout';

type Shown = 'available' | 'held' | 'sold' | 'yours';

const STATUS_TEXT: Record<Shown, string> = {
  available: 'available',
  held: 'held by another buyer',
  sold: 'sold',
  yours: 'held for you',
};

interface Props {
  seats: Seat[];
  currency: string;
  selected: ReadonlySet<string>;
  mine: ReadonlySet<string>;
  /** Picking is off while the buyer has a hold. */
  canPick: boolean;
  onToggle: (seat: Seat) => void;
}

function shownStatus(seat: Seat, mine: ReadonlySet<string>): Shown {
  return mine.has(seat.id) ? 'yours' : seat.status;
}

function useWidth(ref: { current: HTMLElement | null }): number {
  const [width, setWidth] = useState(800);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    setWidth(element.clientWidth);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

export function SeatMap({ seats, currency, selected, mine, canPick, onToggle }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const width = useWidth(scroller);
  const layout = useMemo(() => layoutSeats(seats, Math.max(width - 2, 280)), [seats, width]);
  const tiers = useMemo(() => tierColours(seats), [seats]);
  const [focusIndex, setFocusIndex] = useState(0);
  const [pointedId, setPointedId] = useState<string | null>(null);
  const pointed = pointedId ? seats.find((s) => s.id === pointedId) : undefined;
  const pendingFocus = useRef(false);

  useEffect(() => {
    if (!pendingFocus.current) return;
    pendingFocus.current = false;
    scroller.current?.querySelector<SVGGElement>(`[data-index="${focusIndex}"]`)?.focus();
  }, [focusIndex]);

  const describe = (seat: Seat) => {
    const status = STATUS_TEXT[shownStatus(seat, mine)];
    const picked = selected.has(seat.id) ? ', selected' : '';
    return `Seat ${seat.label}, ${seat.tier}, ${formatMoney(seat.priceCents, currency)}, ${status}${picked}`;
  };

  const canToggle = (seat: Seat) =>
    canPick && (selected.has(seat.id) || (seat.status === 'available' && !mine.has(seat.id)));

  const onKeyDown = (e: KeyboardEvent, index: number, seat: Seat) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (canToggle(seat)) onToggle(seat);
      return;
    }
    const next = neighbour(layout, index, e.key);
    if (next === undefined) return;
    e.preventDefault();
    pendingFocus.current = true;
    setFocusIndex(next);
  };

  const tabStop = Math.min(focusIndex, layout.seats.length - 1);

  return (
    <div class="seat-map">
      <div class="seat-map-scroll" ref={scroller}>
        <svg
          width={layout.width}
          height={layout.height}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          role="group"
          aria-label={`Seat map, ${seats.length} seats. Use the arrow keys to move between seats and Enter to select.`}
          data-testid="seat-map"
        >
          <rect class="stage" x={0} y={0} width={layout.width} height={STAGE_HEIGHT} rx={6} />
          <text class="stage-label" x={layout.width / 2} y={STAGE_HEIGHT / 2} aria-hidden="true">
            STAGE
          </text>
          {layout.sections.map((section) => (
            <g key={section.name} aria-hidden="true">
              <rect class="section" x={section.x} y={section.y} width={section.width} height={section.height} rx={8} />
              <text class="section-label" x={section.x + 12} y={section.y + 18}>
                Section {section.name}
              </text>
              {section.rows.map((row) => (
                <text key={row.label} class="row-label" x={section.x + 16} y={row.y}>
                  {row.label}
                </text>
              ))}
            </g>
          ))}
          {layout.seats.map(({ seat, x, y }, index) => {
            const shown = shownStatus(seat, mine);
            const isSelected = selected.has(seat.id);
            const fill = shown === 'available' ? (tiers.get(seat.tier)?.colour ?? '#555') : undefined;
            const mark = isSelected ? '✓' : shown === 'yours' ? '★' : shown === 'sold' ? '×' : '';
            return (
              <g
                key={seat.id}
                class={`seat seat-${shown}${isSelected ? ' seat-selected' : ''}`}
                transform={`translate(${x} ${y})`}
                role="button"
                tabIndex={index === tabStop ? 0 : -1}
                aria-label={describe(seat)}
                aria-pressed={isSelected}
                aria-disabled={!canToggle(seat)}
                data-testid={`seat-${seat.label}`}
                data-status={shown}
                data-index={index}
                onClick={() => {
                  setFocusIndex(index);
                  if (canToggle(seat)) onToggle(seat);
                }}
                onKeyDown={(e) => onKeyDown(e, index, seat)}
                onFocus={() => {
                  setFocusIndex(index);
                  setPointedId(seat.id);
                }}
                onMouseEnter={() => setPointedId(seat.id)}
              >
                <title>{describe(seat)}</title>
                <rect width={SEAT_SIZE} height={SEAT_SIZE} rx={6} style={fill ? { fill } : undefined} />
                {mark && (
                  <text x={SEAT_SIZE / 2} y={SEAT_SIZE / 2} aria-hidden="true">
                    {mark}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      </div>
      <p class="seat-info" data-testid="seat-info" aria-hidden="true">
        {pointed ? describe(pointed) : 'Point at or focus a seat to see its price.'}
      </p>
      <ul class="legend" aria-label="Legend">
        {[...tiers.entries()].map(([tier, t]) => (
          <li key={tier}>
            <span class="swatch" style={{ background: t.colour }} />
            {tier}: {formatMoney(t.minCents, currency)}
            {t.maxCents !== t.minCents && `–${formatMoney(t.maxCents, currency)}`}
          </li>
        ))}
        <li>
          <span class="swatch swatch-selected">✓</span>selected
        </li>
        <li>
          <span class="swatch swatch-yours">★</span>held for you
        </li>
        <li>
          <span class="swatch swatch-held" />
          held by someone else
        </li>
        <li>
          <span class="swatch swatch-sold">×</span>sold
        </li>
      </ul>
    </div>
  );
}
