// An event's seating as the admin form thinks of it: sections × rows × seats per
// row, a tier and price by range of rows. The limits every event body shares and
// the one rule that turns a layout into seats (the domain creates exactly these;
// the admin form previews them). No zod here: the web app imports it as is.

/** The most seats an event has, however they are given. */
export const MAX_EVENT_SEATS = 100_000;

/** The longest text and the largest numbers a seat takes (`seatInput` in index.ts). */
export const SEAT_LIMITS = {
  sectionChars: 20,
  rowChars: 20,
  tierChars: 50,
  maxNumber: 100_000,
  maxPriceCents: 100_000_000,
} as const;

/** The rest of an event's body: its name, its general-admission ticket types. */
export const EVENT_LIMITS = {
  nameChars: 200,
  ticketTypes: 100,
  maxTicketCapacity: 10_000_000,
} as const;

/** A layout's size limits (`seatLayout` in index.ts). */
export const LAYOUT_LIMITS = {
  sections: 1000,
  rangesPerSection: 1000,
  /** The highest row number (the row's label is its number). */
  maxRow: 100_000,
} as const;

/** Rows `from` to `to` (both included) of a section, each with `seatsPerRow` seats of one tier and price. */
export interface LayoutRowRange {
  from: number;
  to: number;
  seatsPerRow: number;
  tier: string;
  priceCents: number;
}

export interface LayoutSection {
  name: string;
  rows: LayoutRowRange[];
}

export interface SeatLayout {
  sections: LayoutSection[];
}

export interface LayoutSeat {
  section: string;
  row: string;
  number: number;
  tier: string;
  priceCents: number;
}

/** How many seats a layout makes, counted without making them. */
export function layoutSeatCount(layout: SeatLayout): number {
  let seats = 0;
  for (const section of layout.sections) {
    for (const r of section.rows) seats += Math.max(0, r.to - r.from + 1) * r.seatsPerRow;
  }
  return seats;
}

/**
 * The seats of a layout: sections in the order given; in each, rows in
 * ascending number (its ranges sorted by `from`), each row's seats numbered
 * from 1 to `seatsPerRow`. A seat's row is its number as text, so its label is
 * `<section>-<row>-<number>` (`A-12-7`), as the admin form has always made them.
 * Check the layout first (`seatLayout` in index.ts: ranges that do not overlap,
 * at most MAX_EVENT_SEATS seats).
 */
export function expandLayout(layout: SeatLayout): LayoutSeat[] {
  const seats: LayoutSeat[] = [];
  for (const section of layout.sections) {
    const ranges = [...section.rows].sort((a, b) => a.from - b.from);
    for (const r of ranges) {
      for (let row = r.from; row <= r.to; row += 1) {
        const rowName = String(row);
        for (let number = 1; number <= r.seatsPerRow; number += 1) {
          seats.push({ section: section.name, row: rowName, number, tier: r.tier, priceCents: r.priceCents });
        }
      }
    }
  }
  return seats;
}
