/** The seats of a tier as the catalog keeps them: sorted by price, then position. */
export interface TierSeat {
  id: string;
  section: string;
  row: string;
  number: number;
  priceCents: number;
}

/**
 * Candidate selections of `quantity` seats, best first: the lowest total price;
 * among selections of that total, seats side by side in one row come first.
 * Returns null when fewer than `quantity` seats are free.
 */
export function bestAvailable(
  seats: readonly TierSeat[],
  taken: (seatId: string) => boolean,
  quantity: number,
  maxCandidates = 4,
): string[][] | null {
  const free = seats.filter((s) => !taken(s.id));
  if (free.length < quantity) return null;
  let minTotal = 0;
  for (let i = 0; i < quantity; i++) minTotal += free[i]!.priceCents;

  // Side-by-side windows at the lowest total: only seats at or below the q-th price can be in one.
  const ceiling = free[quantity - 1]!.priceCents;
  const rows = new Map<string, TierSeat[]>();
  for (const s of free) {
    if (s.priceCents > ceiling) break;
    const key = `${s.section}\u0000${s.row}`;
    let r = rows.get(key);
    if (!r) rows.set(key, (r = []));
    r.push(s);
  }
  const windows: TierSeat[][] = [];
  for (const r of rows.values()) {
    r.sort((a, b) => a.number - b.number);
    for (let i = 0; i + quantity <= r.length; i++) {
      const w = r.slice(i, i + quantity);
      if (w[w.length - 1]!.number - w[0]!.number !== quantity - 1) continue;
      if (w.reduce((t, s) => t + s.priceCents, 0) === minTotal) windows.push(w);
    }
  }
  windows.sort((a, b) => compareSeat(a[0]!, b[0]!));
  const candidates = windows.slice(0, maxCandidates - 1).map((w) => w.map((s) => s.id));
  if (candidates.length < maxCandidates) candidates.push(free.slice(0, quantity).map((s) => s.id));
  return candidates;
}

function compareSeat(a: TierSeat, b: TierSeat): number {
  return a.section.localeCompare(b.section) || a.row.localeCompare(b.row, undefined, { numeric: true }) || a.number - b.number;
}

/** Orders a tier's seats the way bestAvailable expects them. */
export function sortTierSeats<T extends TierSeat>(seats: T[]): T[] {
  return seats.sort((a, b) => a.priceCents - b.priceCents || compareSeat(a, b));
}
