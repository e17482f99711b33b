import { layoutSeats, neighbour, tierColours } from '../src/checkout/layout';
import type { Seat } from '../src/shared/types';

function seat(section: string, row: string, number: number, tier = 'standard', priceCents = 5000): Seat {
  return { id: `${section}-${row}-${number}`, label: `${section}-${row}-${number}`, section, row, number, tier, priceCents, status: 'available' };
}

const grid = (section: string, rows: string[], perRow: number) =>
  rows.flatMap((row) => Array.from({ length: perRow }, (_, i) => seat(section, row, i + 1)));

test('when rows and seats come in any order, then rows read in natural order and seats left to right by number', () => {
  const seats = [seat('A', '10', 2), seat('A', '2', 1), seat('A', '10', 1), seat('A', '2', 2)];
  const layout = layoutSeats(seats, 1000);
  expect(layout.lines.map((line) => line.map((i) => layout.seats[i]!.seat.label))).toEqual([
    ['A-2-1', 'A-2-2'],
    ['A-10-1', 'A-10-2'],
  ]);
  const [first, second] = layout.lines[0]!.map((i) => layout.seats[i]!);
  expect(second!.x).toBeGreaterThan(first!.x);
});

test('when sections do not fit side by side, then they wrap to the next line', () => {
  const seats = [...grid('A', ['1'], 10), ...grid('B', ['1'], 10)];
  const wide = layoutSeats(seats, 2000);
  const narrow = layoutSeats(seats, 400);
  expect(wide.sections[1]!.y).toBe(wide.sections[0]!.y);
  expect(narrow.sections[1]!.y).toBeGreaterThan(narrow.sections[0]!.y);
  expect(narrow.sections[1]!.x).toBe(0);
  expect(narrow.height).toBeGreaterThan(wide.height);
});

test('when a row is shorter than the widest, then it is centred in its section', () => {
  const layout = layoutSeats([...grid('A', ['1'], 4), ...grid('A', ['2'], 2)], 1000);
  const xs = (line: number) => layout.lines[line]!.map((i) => layout.seats[i]!.x);
  const centre = (values: number[]) => (Math.min(...values) + Math.max(...values)) / 2;
  expect(centre(xs(1))).toBe(centre(xs(0)));
});

test('when an arrow key is pressed, then focus moves along the row or to the nearest seat in the next row', () => {
  const layout = layoutSeats([...grid('A', ['1'], 4), ...grid('A', ['2'], 2)], 1000);
  const at = (label: string) => layout.seats.findIndex((b) => b.seat.label === label);
  const label = (i: number | undefined) => (i === undefined ? undefined : layout.seats[i]!.seat.label);
  expect(label(neighbour(layout, at('A-1-2'), 'ArrowRight'))).toBe('A-1-3');
  expect(label(neighbour(layout, at('A-1-1'), 'ArrowLeft'))).toBeUndefined();
  expect(label(neighbour(layout, at('A-1-1'), 'End'))).toBe('A-1-4');
  expect(label(neighbour(layout, at('A-1-4'), 'ArrowDown'))).toBe('A-2-2');
  expect(label(neighbour(layout, at('A-2-1'), 'ArrowUp'))).toBe('A-1-2');
  expect(label(neighbour(layout, at('A-2-1'), 'ArrowDown'))).toBeUndefined();
});

test('when tiers have different prices, then the dearest gets the first colour and each its price range', () => {
  const colours = tierColours([seat('A', '1', 1, 'standard', 5000), seat('A', '1', 2, 'premium', 12000), seat('A', '1', 3, 'standard', 6500)]);
  expect([...colours.keys()]).toEqual(['premium', 'standard']);
  expect(colours.get('standard')).toMatchObject({ minCents: 5000, maxCents: 6500 });
  expect(colours.get('premium')!.colour).not.toBe(colours.get('standard')!.colour);
});
