/**
 * Moves this process's clock (Date, Date.now) by `skewMs` while the rest keeps
 * real time (timers, performance.now, I/O), as on a host whose clock is off:
 * the API and the worker a test runs in-process read it, Redis and PostgreSQL
 * keep their own. Returns the function that puts the real clock back.
 */
export function skewProcessClock(skewMs: number): () => void {
  jest.useFakeTimers({
    now: Date.now() + skewMs,
    advanceTimers: true,
    doNotFake: [
      'hrtime', 'nextTick', 'performance', 'queueMicrotask', 'requestAnimationFrame', 'cancelAnimationFrame',
      'requestIdleCallback', 'cancelIdleCallback', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval',
      'setTimeout', 'clearTimeout',
    ],
  });
  return () => jest.useRealTimers();
}

/** Redis's clock (TIME), in ms since the epoch. */
export async function redisTimeMs(redis: { time(): Promise<(string | number)[]> }): Promise<number> {
  const [sec, micro] = await redis.time();
  return Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
}
