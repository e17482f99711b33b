import { busyTiers } from '../src/checkout/busy';

const seats = (tier: string, taken: number, free: number) => [
  ...Array.from({ length: taken }, () => ({ tier, status: 'held' as const })),
  ...Array.from({ length: free }, () => ({ tier, status: 'available' as const })),
];

test('when half of a tier is held or sold, then it is busy; a quieter tier is not', () => {
  expect(busyTiers([...seats('front', 5, 5), ...seats('back', 4, 6)], [], 0)).toEqual(['front']);
});

test('when many seats of a tier changed in the last seconds, then it is busy, the busiest first, and old changes do not count', () => {
  const now = 100_000;
  const changes = [
    ...Array.from({ length: 12 }, (_, i) => ({ tier: 'back', at: now - i * 100 })),
    ...Array.from({ length: 30 }, () => ({ tier: 'front', at: now - 60_000 })),
  ];
  expect(busyTiers([...seats('front', 0, 50), ...seats('back', 0, 50)], changes, now)).toEqual(['back']);
  expect(busyTiers([...seats('front', 40, 10), ...seats('back', 0, 50)], changes, now)).toEqual(['back', 'front']);
});

test('when no seat is taken and nothing changes, then no tier is busy', () => {
  expect(busyTiers(seats('standard', 0, 20), [], 0)).toEqual([]);
});
