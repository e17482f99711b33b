import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const pepper = randomBytes(32);

/**
 * Compares two secrets (signatures, tokens) in time that depends on neither:
 * both are HMAC'd to 32 bytes first, so even their lengths leak nothing. Use it
 * for every secret comparison (the webhook signature check among them).
 */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const ha = createHmac('sha256', pepper).update(a).digest();
  const hb = createHmac('sha256', pepper).update(b).digest();
  return timingSafeEqual(ha, hb);
}
