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
 * 300 ms), so the distinct prices, sections, rows and numbers (a few hundred)
 * are ranked once, with the same comparisons, and the seats sorted on one
 * number made of their ranks and their place (a typed array's own sort): the
 * same order.
 */
export function sortTierSeats<T extends TierSeat>(seats: T[]): T[] {
  const n = seats.length;
  if (n < 2) return seats;
  const prices = ranksOf(seats, (s) => s.priceCents, (a, b) => a - b);
  const sections = ranksOf(seats, (s) => s.section, (a, b) => a.localeCompare(b));
  const rows = ranksOf(seats, (s) => s.row, (a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const numbers = ranksOf(seats, (s) => s.number, (a, b) => a - b);
  const given = seats.slice();
  const [S, R, N] = [sections.count, rows.count, numbers.count];
  if (prices.count * S * R * N * n <= Number.MAX_SAFE_INTEGER) {
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i += 1) {
      const s = given[i]!;
      keys[i] = (((prices.rank.get(s.priceCents)! * S + sections.rank.get(s.section)!) * R + rows.rank.get(s.row)!) * N + numbers.rank.get(s.number)!) * n + i;
    }
    keys.sort();
    for (let i = 0; i < n; i += 1) seats[i] = given[keys[i]! % n]!;
    return seats;
  }
  // Ranks too many to make one exact number of: compared one after the other.
  const key = (s: T) => [prices.rank.get(s.priceCents)!, sections.rank.get(s.section)!, rows.rank.get(s.row)!, numbers.rank.get(s.number)!];
  const keys = given.map(key);
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => {
    const [x, y] = [keys[a]!, keys[b]!];
    return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]! || x[3]! - y[3]! || a - b;
  });
  for (let i = 0; i < n; i += 1) seats[i] = given[order[i]!]!;
  return seats;
}

/** Each distinct value's place in `compare`'s order (values it finds equal share one), and how many places. */
function ranksOf<T, V>(items: T[], value: (item: T) => V, compare: (a: V, b: V) => number): { rank: Map<V, number>; count: number } {
  const distinct = new Set<V>();
  for (const item of items) distinct.add(value(item));
  const sorted = [...distinct].sort(compare);
  const rank = new Map<V, number>();
  let r = 0;
  for (let i = 0; i < sorted.length; i += 1) {
    if (i > 0 && compare(sorted[i - 1]!, sorted[i]!) !== 0) r += 1;
    rank.set(sorted[i]!, r);
  }
  return { rank, count: r + 1 };
}
