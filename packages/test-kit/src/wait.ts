/** A pause for a test that needs time to pass (a lease to run out); to wait for something to happen, use `waitFor`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Lets time pass until a moment on this machine's clock (which Redis shares),
 * plus `marginMs` (negative: that long before it); at once if it has passed.
 */
export async function sleepUntil(moment: string | number | Date, marginMs = 0): Promise<void> {
  const at = typeof moment === 'string' ? Date.parse(moment) : Number(moment);
  const ms = at + marginMs - Date.now();
  if (ms > 0) await sleep(ms);
}

export interface WaitOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between checks (default 25 ms). */
  intervalMs?: number;
}

/**
 * Checks `condition` until it answers true (or a value that is not false,
 * null or undefined, which is returned), failing with `what` and the last
 * answer or error once the deadline passes.
 */
export async function waitFor<T>(what: string, condition: () => T | Promise<T>, options: WaitOptions = {}): Promise<Exclude<T, false | null | undefined>> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const interval = options.intervalMs ?? 25;
  let last: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== false && value !== null && value !== undefined) return value as Exclude<T, false | null | undefined>;
      last = value;
    } catch (error) {
      last = error instanceof Error ? error.message : error;
    }
    if (Date.now() >= deadline) throw new Error(`waited ${options.timeoutMs ?? 10_000} ms for ${what}; last answer: ${String(last)}`);
    await sleep(interval);
  }
}
