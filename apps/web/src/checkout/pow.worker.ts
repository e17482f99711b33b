/**
 * Solves a waiting room's proof of work off the page's thread (pow.ts), counting
 * from a random point. Posts `{ nonce }` when found.
 */
import { randomStart, solveProofOfWork } from './pow';

self.onmessage = async (message: MessageEvent<{ eventId: string; customerId: string; bits: number }>) => {
  const { eventId, customerId, bits } = message.data;
  self.postMessage({ nonce: await solveProofOfWork(eventId, customerId, bits, randomStart()) });
};
