/**
 * Solves a waiting room's proof of work off the page's thread: the first nonce
 * (counting from 0) whose SHA-256 over event id + customer id + nonce has
 * `bits` leading zero bits. Posts `{ nonce }` when found.
 */
function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

self.onmessage = async (message: MessageEvent<{ eventId: string; customerId: string; bits: number }>) => {
  const { eventId, customerId, bits } = message.data;
  const encoder = new TextEncoder();
  for (let n = 0; ; n++) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(`${eventId}${customerId}${n}`)));
    if (leadingZeroBits(digest) >= bits) {
      self.postMessage({ nonce: String(n) });
      return;
    }
  }
};
