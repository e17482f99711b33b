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

function compareSeat(a: TierSeat, b: TierSeat): number {
  return a.section.localeCompare(b.section) || a.row.localeCompare(b.row, undefined, { numeric: true }) || a.number - b.number;
}

/** Orders a tier's seats as the seat index ranks them (seat-index.ts). */
export function sortTierSeats<T extends TierSeat>(seats: T[]): T[] {
  return seats.sort((a, b) => a.priceCents - b.priceCents || compareSeat(a, b));
}
