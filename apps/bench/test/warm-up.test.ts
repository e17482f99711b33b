// The race lab warms holdfast's API up with sales until V8 has settled: until a
// sale's CPU per request no longer falls below the best before it.
import { warmUpSettled } from '../src/strategies/holdfast-hold-confirm.strategy';

test('when only one warm-up sale has run, then V8 is not taken to have settled', () => {
  expect(warmUpSettled([])).toBe(false);
  expect(warmUpSettled([0.2])).toBe(false);
});

test('when the last sale cost clearly less per request than every one before it, then the warm-up goes on', () => {
  expect(warmUpSettled([0.34, 0.25])).toBe(false);
  expect(warmUpSettled([0.34, 0.25, 0.2])).toBe(false);
  expect(warmUpSettled([0.3, 0.2, 0.25, 0.17])).toBe(false);
});

test('when the last sale cost about the best before it, or more, then V8 has settled', () => {
  expect(warmUpSettled([0.34, 0.2, 0.19])).toBe(true);
  expect(warmUpSettled([0.2, 0.2])).toBe(true);
  expect(warmUpSettled([0.34, 0.2, 0.25])).toBe(true);
  expect(warmUpSettled([0.2, 0.185], 0.08)).toBe(true);
  expect(warmUpSettled([0.2, 0.183], 0.08)).toBe(false);
});
