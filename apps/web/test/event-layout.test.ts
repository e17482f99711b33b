import { expandLayout, seatLayout } from '@holdfast/contracts';
import { layoutOf, type TierRange } from '../src/admin/event-layout';

/** The seats the form made itself before it sent a layout: rows from 1, seats from 1, the last range that covers a row wins. */
function seatsTheFormMade(sections: string, rows: number, perRow: number, ranges: TierRange[]) {
  const seats: { section: string; row: string; number: number; tier: string; priceCents: number }[] = [];
  for (const section of sections.split(',').map((s) => s.trim()).filter(Boolean))
    for (let r = 1; r <= rows; r++) {
      const range = [...ranges].reverse().find((x) => r >= x.fromRow && r <= x.toRow);
      if (!range) continue;
      for (let n = 1; n <= perRow; n++) seats.push({ section, row: String(r), number: n, tier: range.tier, priceCents: Math.round(Number(range.price) * 100) });
    }
  return seats;
}

const label = (s: { section: string; row: string; number: number; tier: string; priceCents: number }) => `${s.section}-${s.row}-${s.number} ${s.tier} ${s.priceCents}`;

test.each<[string, string, number, number, TierRange[]]>([
  ['the default form, rows cut short', 'A, B', 3, 8, [{ fromRow: 1, toRow: 2, tier: 'front', price: '90' }, { fromRow: 3, toRow: 4, tier: 'back', price: '45' }]],
  ['overlapping ranges (the later one wins)', 'Floor', 10, 4, [{ fromRow: 1, toRow: 10, tier: 'std', price: '50' }, { fromRow: 4, toRow: 5, tier: 'vip', price: '120.5' }]],
  ['a gap between ranges', 'A,B,C', 6, 2, [{ fromRow: 1, toRow: 2, tier: 'a', price: '1' }, { fromRow: 5, toRow: 6, tier: 'b', price: '2' }]],
])('when the seating fields hold %s, then the layout sent is valid and makes the seats the form made itself', (_what, sections, rows, perRow, ranges) => {
  const layout = layoutOf(sections, rows, perRow, ranges)!;
  expect(seatLayout.safeParse(layout).success).toBe(true);
  expect(expandLayout(layout).map(label).sort()).toEqual(seatsTheFormMade(sections, rows, perRow, ranges).map(label).sort());
});

test('when overlapping ranges are given, then the layout has one range per run of rows, none overlapping', () => {
  expect(layoutOf('A', 10, 4, [{ fromRow: 1, toRow: 10, tier: 'std', price: '50' }, { fromRow: 4, toRow: 5, tier: 'vip', price: '120' }])!.sections[0]!.rows)
    .toEqual([
      { from: 1, to: 3, seatsPerRow: 4, tier: 'std', priceCents: 5000 },
      { from: 4, to: 5, seatsPerRow: 4, tier: 'vip', priceCents: 12000 },
      { from: 6, to: 10, seatsPerRow: 4, tier: 'std', priceCents: 5000 },
    ]);
});

test('when the fields make no seats, then no layout is sent', () => {
  const ranges = [{ fromRow: 1, toRow: 2, tier: 't', price: '1' }];
  expect(layoutOf('', 2, 2, ranges)).toBeNull();
  expect(layoutOf('A', 0, 2, ranges)).toBeNull();
  expect(layoutOf('A', 2, 0, ranges)).toBeNull();
  expect(layoutOf('A', 2, 2, [])).toBeNull();
});
