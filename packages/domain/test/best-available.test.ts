// bestAvailable is a pure function over a tier's seats (sorted by price, then
// place) and what is taken: no database, no Redis.
import { bestAvailable, sortTierSeats, type TierSeat } from '../src/best-available';

const seat = (section: string, row: string, number: number, priceCents: number): TierSeat =>
  ({ id: `${section}-${row}-${number}`, section, row, number, priceCents });
const tier = (...seats: TierSeat[]) => sortTierSeats([...seats]);
const none = () => false;
const takenOf = (...ids: string[]) => (id: string) => ids.includes(id);
const total = (seats: TierSeat[], ids: string[]) => ids.reduce((t, id) => t + seats.find((s) => s.id === id)!.priceCents, 0);

describe('sortTierSeats', () => {
  test('when seats are sorted, then by price, then section, row (as numbers) and number', () => {
    const sorted = tier(seat('B', '1', 1, 5000), seat('A', '10', 1, 5000), seat('A', '9', 2, 5000), seat('A', '9', 1, 5000), seat('C', '1', 1, 1000));
    expect(sorted.map((s) => s.id)).toEqual(['C-1-1', 'A-9-1', 'A-9-2', 'A-10-1', 'B-1-1']);
  });
});

describe('bestAvailable', () => {
  test('when fewer seats are free than asked for, then null', () => {
    const seats = tier(seat('A', '1', 1, 100), seat('A', '1', 2, 100), seat('A', '1', 3, 100));
    expect(bestAvailable(seats, takenOf('A-1-2', 'A-1-3'), 2)).toBeNull();
    expect(bestAvailable(seats, none, 4)).toBeNull();
    expect(bestAvailable([], none, 1)).toBeNull();
  });

  test('when the cheapest seats are apart, then the lowest total still wins over a dearer pair side by side', () => {
    const seats = tier(seat('A', '1', 1, 8000), seat('A', '1', 2, 8000), seat('B', '1', 1, 5000), seat('B', '1', 5, 5000));
    const c = bestAvailable(seats, none, 2)!;
    expect(c[0]!.sort()).toEqual(['B-1-1', 'B-1-5']);
    for (const ids of c) expect(total(seats, ids)).toBe(10000);
  });

  test('when selections cost the same, then seats side by side in one row come first, front rows first', () => {
    const seats = tier(
      seat('A', '1', 1, 5000), seat('A', '1', 3, 5000), seat('A', '1', 5, 5000),
      seat('A', '10', 4, 5000), seat('A', '10', 5, 5000),
      seat('A', '9', 7, 5000), seat('A', '9', 8, 5000),
    );
    const c = bestAvailable(seats, none, 2)!;
    expect(c[0]).toEqual(['A-9-7', 'A-9-8']);
    expect(c[1]).toEqual(['A-10-4', 'A-10-5']);
    // The last candidate is the cheapest seats whatever their places.
    expect(c[c.length - 1]).toEqual(['A-1-1', 'A-1-3']);
  });

  test('when a pair side by side mixes prices to the lowest total, then it is preferred', () => {
    const seats = tier(seat('B', '1', 1, 4000), seat('B', '1', 2, 6000), seat('A', '2', 9, 6000), seat('A', '2', 1, 9000));
    const c = bestAvailable(seats, none, 2)!;
    expect(c[0]).toEqual(['B-1-1', 'B-1-2']);
    expect(c[c.length - 1]).toEqual(['B-1-1', 'A-2-9']);
  });

  test('when a taken seat or a dearer seat sits between two, then they are not side by side', () => {
    const seats = tier(seat('A', '1', 1, 1000), seat('A', '1', 2, 1000), seat('A', '1', 3, 1000), seat('A', '1', 4, 9000), seat('A', '1', 5, 1000));
    // A-1-2 taken: 1 and 3 are not neighbours; 3 and 5 have a dearer seat between.
    const c = bestAvailable(seats, takenOf('A-1-2'), 2)!;
    expect(c).toEqual([['A-1-1', 'A-1-3']]);
    const three = bestAvailable(seats, none, 3)!;
    expect(three[0]).toEqual(['A-1-1', 'A-1-2', 'A-1-3']);
  });

  test('when two rows share a name in different sections, then their seats are not side by side', () => {
    const seats = tier(seat('A', '1', 2, 1000), seat('B', '1', 3, 1000));
    expect(bestAvailable(seats, none, 2)).toEqual([['A-1-2', 'B-1-3']]);
  });

  test('when seats 9 and 10 are free, then they are side by side (numbers compare as numbers)', () => {
    const seats = tier(seat('A', '1', 10, 1000), seat('A', '1', 9, 1000), seat('A', '1', 1, 1000));
    expect(bestAvailable(seats, none, 2)![0]).toEqual(['A-1-9', 'A-1-10']);
  });

  test('when there are many windows, then at most maxCandidates selections come back, each of the quantity and all at the lowest total', () => {
    const seats = tier(...Array.from({ length: 30 }, (_, i) => seat('A', String(1 + Math.floor(i / 10)), 1 + (i % 10), 2000)));
    for (const max of [1, 2, 4, 6]) {
      const c = bestAvailable(seats, none, 3, max)!;
      expect(c.length).toBeLessThanOrEqual(max);
      expect(c.length).toBeGreaterThan(0);
      for (const ids of c) {
        expect(new Set(ids).size).toBe(3);
        expect(total(seats, ids)).toBe(6000);
      }
    }
    expect(bestAvailable(seats, none, 3, 4)!.slice(0, 3)).toEqual([
      ['A-1-1', 'A-1-2', 'A-1-3'], ['A-1-2', 'A-1-3', 'A-1-4'], ['A-1-3', 'A-1-4', 'A-1-5'],
    ]);
  });

  test('when a quantity of one is asked, then the cheapest free seat comes first', () => {
    const seats = tier(seat('A', '1', 1, 3000), seat('A', '1', 2, 2000), seat('B', '1', 1, 2000));
    expect(bestAvailable(seats, takenOf('A-1-2'), 1)![0]).toEqual(['B-1-1']);
  });

  test('when every selection of the seats is checked, then every candidate has the lowest total and the first is side by side whenever such a run exists', () => {
    // A small exhaustive check over a fixed, irregular map.
    const seats = tier(
      seat('A', '1', 1, 3000), seat('A', '1', 2, 2000), seat('A', '1', 3, 2000), seat('A', '1', 4, 3000),
      seat('A', '2', 1, 1000), seat('A', '2', 3, 2000), seat('B', '1', 1, 1000), seat('B', '1', 2, 4000),
    );
    const ids = seats.map((s) => s.id);
    for (let mask = 0; mask < 1 << ids.length; mask++) {
      const taken = (id: string) => (mask >> ids.indexOf(id)) & 1 ? true : false;
      const freeCount = ids.filter((id) => !taken(id)).length;
      for (const q of [1, 2, 3]) {
        const c = bestAvailable(seats, taken, q);
        if (freeCount < q) {
          expect(c).toBeNull();
          continue;
        }
        const cheapest = seats.filter((s) => !taken(s.id)).map((s) => s.priceCents).sort((a, b) => a - b).slice(0, q).reduce((a, b) => a + b, 0);
        for (const sel of c!) {
          expect(sel).toHaveLength(q);
          for (const id of sel) expect(taken(id)).toBe(false);
          expect(total(seats, sel)).toBe(cheapest);
        }
        // If some run of q free neighbours costs the lowest total, the first candidate is such a run.
        const isRun = (sel: string[]) => {
          const ss = sel.map((id) => seats.find((s) => s.id === id)!).sort((a, b) => a.number - b.number);
          return ss.every((s, i) => s.section === ss[0]!.section && s.row === ss[0]!.row && s.number === ss[0]!.number + i);
        };
        const runExists = seats.some((start) => {
          const run = Array.from({ length: q }, (_, i) => seats.find((s) => s.section === start.section && s.row === start.row && s.number === start.number + i));
          return run.every((s) => s && !taken(s.id)) && total(seats, run.map((s) => s!.id)) === cheapest;
        });
        expect(isRun(c![0]!)).toBe(runExists);
      }
    }
  });
});
