import { HoldfastError, PurchaseError } from '../src/shared/api';
import { describeError, takenSeatIds } from '../src/shared/messages';

const error = (code: HoldfastError['code'], details?: unknown, retryAfterSeconds?: number) =>
  new HoldfastError(409, code, 'server wording', details, retryAfterSeconds);

test('when seats were just taken, then the message names them by label', () => {
  const taken = error('SEATS_UNAVAILABLE', { seatIds: ['s5', 's6'] });
  const labels: Record<string, string> = { s5: 'A-1-5', s6: 'A-1-6' };
  expect(takenSeatIds(taken)).toEqual(['s5', 's6']);
  expect(describeError(taken, { seatLabel: (id) => labels[id] })).toBe(
    'Sorry, Seats A-1-5, A-1-6 were just taken by someone else. Nothing was held; please pick other seats.',
  );
  expect(describeError(error('SEATS_UNAVAILABLE', { seatIds: ['s5'] }), { seatLabel: (id) => labels[id] })).toMatch(
    /^Sorry, Seat A-1-5 was just taken/,
  );
});

test('when the contract names an error code, then the buyer reads a plain sentence for it', () => {
  expect(describeError(error('SOLD_OUT'))).toMatch(/^Sold out/);
  expect(describeError(error('LIMIT_EXCEEDED'), { maxTicketsPerCustomer: 6 })).toMatch(/limit of 6 tickets per customer/);
  expect(describeError(error('RATE_LIMITED', undefined, 12))).toMatch(/wait 12 seconds/);
  expect(describeError(error('HOLD_EXPIRED'))).toMatch(/expired/);
  expect(describeError(error('HOLD_NOT_ACTIVE'))).toMatch(/released/);
  expect(describeError(error('SERVICE_UNAVAILABLE'))).toMatch(/briefly unavailable/);
  expect(describeError(error('NETWORK_ERROR'))).toMatch(/could not be reached/);
});

test('when a body fails validation, then the fields and reasons are shown', () => {
  const invalid = error('VALIDATION_FAILED', { fields: [{ path: 'quantity', message: 'Too big: expected number to be <=100' }] });
  expect(describeError(invalid)).toBe('The request was not accepted: quantity: Too big: expected number to be <=100.');
});

test('when the code is unknown (a server newer than the page), then the server message is shown', () => {
  expect(describeError(error('SOMETHING_NEW' as HoldfastError['code']))).toBe('server wording');
});

test('when the demo payment is pending or missing, then the page says so in its own words', () => {
  expect(describeError(new PurchaseError('PAYMENT_PENDING', 'x'))).toMatch(/not been confirmed yet/);
  expect(describeError(new PurchaseError('DEMO_PAY_UNAVAILABLE', 'x'))).toMatch(/Demo payment is not available/);
});
