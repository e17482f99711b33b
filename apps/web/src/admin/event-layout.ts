// The admin form's seating fields made into the API's layout: the form thinks in
// sections × rows × seats per row with a tier and price per range of rows, and
// the server makes the seats from that (the preview makes them the same way).
import type { LayoutRowRange, SeatLayout } from '@holdfast/contracts/src/seat-layout';

/** One row of the form's range table: rows `fromRow` to `toRow`, their tier and price (in currency units, as typed). */
export interface TierRange { fromRow: number; toRow: number; tier: string; price: string }

/** `"12.5"` → 1250. */
export const cents = (price: string) => Math.round(Number(price) * 100);

/**
 * The layout the fields describe, as the API takes it: every section has rows 1
 * to `rows` of `perRow` seats, each row with the tier and price of the last
 * range of rows that covers it (rows no range covers have no seats), consecutive
 * rows of one range sent as one range. Null when it makes no seats.
 */
export function layoutOf(sections: string, rows: number, perRow: number, ranges: TierRange[]): SeatLayout | null {
  const names = sections.split(',').map((s) => s.trim()).filter(Boolean);
  const pieces: LayoutRowRange[] = [];
  let previous = -1; // the range that covers the row before, -1 for none
  for (let r = 1; r <= rows; r++) {
    let range = ranges.length - 1;
    while (range >= 0 && !(r >= ranges[range]!.fromRow && r <= ranges[range]!.toRow)) range -= 1;
    if (range >= 0 && range === previous) {
      pieces[pieces.length - 1]!.to = r;
    } else if (range >= 0) {
      const { tier, price } = ranges[range]!;
      pieces.push({ from: r, to: r, seatsPerRow: perRow, tier, priceCents: cents(price) });
    }
    previous = range;
  }
  if (names.length === 0 || pieces.length === 0 || !(perRow >= 1)) return null;
  return { sections: names.map((name) => ({ name, rows: pieces.map((p) => ({ ...p })) })) };
}
