/**
 * `new Date(ms).toISOString()`, with the text up to the second made once per
 * second: a hold answers two timestamps (createdAt, expiresAt), and Date's
 * formatting of each was about a microsecond of the hold's CPU. Times outside
 * years 1970–9999 (toISOString's 24-character form) go to toISOString itself.
 */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_800_000; // 10000-01-01T00:00:00.000Z

/** The last two seconds formatted, by their start (ms): a hold's createdAt and expiresAt differ by its hold time. */
const seconds: { start: number; prefix: string }[] = [{ start: -1, prefix: '' }, { start: -1, prefix: '' }];
let next = 0;

export function isoOfMs(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= LAST_FOUR_DIGIT_YEAR_MS) return new Date(ms).toISOString();
  const frac = ms % 1000;
  const start = ms - frac;
  let prefix: string;
  if (seconds[0]!.start === start) prefix = seconds[0]!.prefix;
  else if (seconds[1]!.start === start) prefix = seconds[1]!.prefix;
  else {
    // `YYYY-MM-DDTHH:MM:SS.` of this second.
    prefix = new Date(start).toISOString().slice(0, 20);
    seconds[next] = { start, prefix };
    next = 1 - next;
  }
  return `${prefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z`;
}
