import { createHash } from 'node:crypto';
import { leadingZeroBits } from '@holdfast/contracts/src/proof-of-work';
import { randomStart, solveProofOfWork } from '../src/checkout/pow';

const holds = (eventId: string, customerId: string, nonce: string, bits: number) =>
  leadingZeroBits(createHash('sha256').update(`${eventId}${customerId}${nonce}`, 'utf8').digest()) >= bits;

test('when a buyer solves the proof twice (joining again after the pass ended), then each nonce holds and the two differ', async () => {
  const [eventId, customerId, bits] = ['7c1e0b9e-2a55-4f7e-9d3c-5b1f0c2d4e6f', 'buyer-1', 8];
  const first = await solveProofOfWork(eventId, customerId, bits, randomStart());
  const second = await solveProofOfWork(eventId, customerId, bits, randomStart());
  expect(holds(eventId, customerId, first, bits)).toBe(true);
  expect(holds(eventId, customerId, second, bits)).toBe(true);
  expect(second).not.toBe(first);
  // Counted from the same point, the same nonce: the random start is what makes them differ.
  expect(await solveProofOfWork(eventId, customerId, bits, Number(first))).toBe(first);
});

test('when the random start is drawn, then it is a whole number below 2^53', () => {
  const starts = Array.from({ length: 1000 }, randomStart);
  for (const s of starts) expect(Number.isSafeInteger(s) && s >= 0).toBe(true);
  expect(new Set(starts).size).toBe(1000);
});
