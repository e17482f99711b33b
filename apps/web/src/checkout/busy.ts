/**
 * Which tiers are busy: at least half of their seats held or sold, or at least
 * `minChanges` of their seats changing (held, sold, freed) over the last
 * `windowMs`, as the live stream tells. In a busy tier the page leads with best
 * available: seats picked on the map are likely gone by the time they are
 * asked for, while best available holds the best free ones in one step.
 */
import type { Seat } from '../shared/types';

export const BUSY_WINDOW_MS = 10_000;
export const BUSY_MIN_CHANGES = 10;

export function busyTiers(
  seats: readonly Pick<Seat, 'tier' | 'status'>[],
  recentChanges: readonly { tier: string; at: number }[],
  now: number,
  windowMs = BUSY_WINDOW_MS,
  minChanges = BUSY_MIN_CHANGES,
): string[] {
  const count = new Map<string, { all: number; taken: number; changes: number }>();
  for (const s of seats) {
    const c = count.get(s.tier) ?? { all: 0, taken: 0, changes: 0 };
    c.all += 1;
    if (s.status !== 'available') c.taken += 1;
    count.set(s.tier, c);
  }
  for (const change of recentChanges) {
    const c = count.get(change.tier);
    if (c && now - change.at <= windowMs) c.changes += 1;
  }
  return [...count]
    .filter(([, c]) => c.taken * 2 >= c.all || c.changes >= minChanges)
    .sort(([, a], [, b]) => b.changes - a.changes || b.taken / b.all - a.taken / a.all)
    .map(([tier]) => tier);
}
