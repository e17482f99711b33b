// holdTotalCents is the edge check of a hold's total: a pure function, no database, no Redis.
import { AppError } from '../src/errors';
import { holdTotalCents } from '../src/create-hold';

test('when a hold’s items are priced, then its total is the sum of price × quantity', () => {
  expect(holdTotalCents([{ priceCents: 100_000_000, quantity: 100 }, { priceCents: 5000, quantity: 1 }])).toBe(10_000_005_000);
});

test('when a hold’s total is past Number.MAX_SAFE_INTEGER, then it is refused as 400 VALIDATION_FAILED', () => {
  const tooMuch = () => holdTotalCents([{ priceCents: Number.MAX_SAFE_INTEGER, quantity: 2 }]);
  expect(tooMuch).toThrow(AppError);
  try {
    tooMuch();
  } catch (err) {
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
  }
});
