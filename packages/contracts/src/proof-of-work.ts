/**
 * The waiting room's proof of work (docs/http-api.md, `POST /v1/events/{eventId}/queue`): a nonce
 * proves the work when SHA-256 over the UTF-8 of event id + customer id + nonce has `challengeBits`
 * leading zero bits. Shared by the API's check and the checkout page's solver (no Node.js in it).
 */
export function leadingZeroBits(digest: Uint8Array): number {
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
