// Best available is decided in Redis (hold-store's hold-best-12.lua) on seats
// ranked in this order; see seat-index.ts.

/** The seats of a tier as the catalog keeps them: sorted by price, then position. */
export interface TierSeat {
  id: string;
  section: string;
  row: string;
  number: number;
  priceCents: number;
}

/** The order of seats of one price: section, row (as numbers) and number. */
export function compareSeat(a: TierSeat, b: TierSeat): number {
  return a.section.localeCompare(b.section) || a.row.localeCompare(b.row, undefined, { numeric: true }) || a.number - b.number;
}

/**
 * Orders a tier's seats (in place) as the seat index ranks them (seat-index.ts):
 * by price, then compareSeat, ties kept in the order given. compareSeat's
 * collation per comparison was half of a 100,000-seat catalog's load (about
 * 300 ms), so the distinct sections and rows (a few hundred) are ranked with it
 * once and the seats sorted on those ranks: the same order.
 */
export function sortTierSeats<T extends TierSeat>(seats: T[]): T[] {
  const n = seats.length;
  if (n < 2) return seats;
  const sectionRank = ranksOf(seats, (s) => s.section, (a, b) => a.localeCompare(b));
  const rowRank = ranksOf(seats, (s) => s.row, (a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const price = new Float64Array(n);
  const section = new Int32Array(n);
  const row = new Int32Array(n);
  const number = new Float64Array(n);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i += 1) {
    const s = seats[i]!;
    price[i] = s.priceCents;
    section[i] = sectionRank.get(s.section)!;
    row[i] = rowRank.get(s.row)!;
    number[i] = s.number;
    order[i] = i;
  }
  order.sort((a, b) => price[a]! - price[b]! || section[a]! - section[b]! || row[a]! - row[b]! || number[a]! - number[b]! || a - b);
  const given = seats.slice();
  for (let i = 0; i < n; i += 1) seats[i] = given[order[i]!]!;
  return seats;
}

/** Each distinct value's place in `compare`'s order; values it finds equal share one. */
function ranksOf<T>(items: T[], value: (item: T) => string, compare: (a: string, b: string) => number): Map<string, number> {
  const distinct = new Set<string>();
  for (const item of items) distinct.add(value(item));
  const sorted = [...distinct].sort(compare);
  const ranks = new Map<string, number>();
  let rank = 0;
  for (let i = 0; i < sorted.length; i += 1) {
    if (i > 0 && compare(sorted[i - 1]!, sorted[i]!) !== 0) rank += 1;
    ranks.set(sorted[i]!, rank);
  }
  return ranks;
}
