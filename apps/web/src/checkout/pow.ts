/**
 * The waiting room's proof of work (the API's check: SHA-256 over the UTF-8 of
 * event id + customer id + nonce has `bits` leading zero bits). The count starts
 * at a random point: a proof is taken once, so a buyer who joins again after
 * their pass ended needs another one, and counting from 0 each time would find
 * the same nonce again.
 */
import { leadingZeroBits } from '@holdfast/contracts/src/proof-of-work';

/** A random point to count from (below 2^53, so every nonce after it is an exact integer). */
export function randomStart(): number {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2));
  return (high! % 2 ** 20) * 2 ** 32 + low!;
}

/** The first nonce from `start` on whose proof has `bits` leading zero bits. */
export async function solveProofOfWork(eventId: string, customerId: string, bits: number, start: number): Promise<string> {
  const encoder = new TextEncoder();
  for (let n = start; ; n++) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(`${eventId}${customerId}${n}`)));
    if (leadingZeroBits(digest) >= bits) return String(n);
  }
}
