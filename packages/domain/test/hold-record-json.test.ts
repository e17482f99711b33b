// recordJsonOf writes the hold record the scripts store: it must be exactly JSON.stringify of the record.
import { recordJsonOf, seatItemOf } from '../src/create-hold';
import type { HoldItem } from '../src/hold-view';

const seat = (id: string, label: string, priceCents: number) => ({ id, section: 'A "front"', row: '1', number: 1, label, tier: 'gold\u00e9', priceCents });

test('when a seat hold’s record is written, then its JSON is JSON.stringify of { eventId, customerId, items, currency, totalCents }', () => {
  const items = [seatItemOf(seat('4b2e4f4e-1c1e-4f7a-9d9e-0f6a3c2b1a00', 'A "front" 1-1 \u2028', 5000)), seatItemOf(seat('s-2', 'B\\2', 7500))];
  const customerId = 'cust "quoted" \u00fc \ud83d\ude00';
  const expected = JSON.stringify({ eventId: 'e-1', customerId, items, currency: 'EUR', totalCents: 12_500 });
  expect(recordJsonOf('e-1', customerId, items, 'EUR', 12_500)).toBe(expected);
  // The second hold of the same seats reads the items' JSON kept for them: the same text.
  expect(recordJsonOf('e-1', customerId, items, 'EUR', 12_500)).toBe(expected);
  expect(JSON.parse(expected).items[0]).toEqual({ seatId: '4b2e4f4e-1c1e-4f7a-9d9e-0f6a3c2b1a00', label: 'A "front" 1-1 \u2028', tier: 'gold\u00e9', priceCents: 5000, quantity: 1 });
});

test('when a ticket hold’s record is written, then its JSON is JSON.stringify of the record', () => {
  const items: HoldItem[] = [{ ticketTypeId: 't-1', name: 'General "GA"', priceCents: 2500, quantity: 4 }];
  expect(recordJsonOf('e-2', 'c', items, 'USD', 10_000)).toBe(JSON.stringify({ eventId: 'e-2', customerId: 'c', items, currency: 'USD', totalCents: 10_000 }));
});

test('when one seat is held twice, then both holds share one frozen item (nothing can change the kept JSON)', () => {
  const row = seat('s-3', 'C 3', 100);
  expect(seatItemOf(row)).toBe(seatItemOf(row));
  expect(Object.isFrozen(seatItemOf(row))).toBe(true);
});
