/**
 * Money is stored as bigint cents (PostgreSQL `bigint`, Prisma `BigInt`) and
 * read back as a JavaScript number: the v1 contract's amounts are JSON numbers,
 * and the domain refuses any total past Number.MAX_SAFE_INTEGER at the edge, so
 * every stored amount converts exactly. A value that would not is an error, never
 * a silently rounded amount.
 */
export function money(value: bigint | number): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`amount ${String(value)} cents is beyond Number.MAX_SAFE_INTEGER`);
  return n;
}

export function moneyOrNull(value: bigint | number | null): number | null {
  return value === null ? null : money(value);
}
