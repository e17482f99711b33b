import type { Logger } from 'pino';

/**
 * On the first of `signals` (a second one is ignored while draining): logs
 * `message` with the signal, runs `drain`, optionally logs "stopped", exits 0.
 */
export function stopOnSignal(
  log: Logger,
  message: string,
  drain: () => Promise<unknown>,
  options: { fields?: Record<string, unknown>; signals?: NodeJS.Signals[]; logStopped?: boolean } = {},
): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, ...options.fields }, message);
    await drain();
    if (options.logStopped) log.info('stopped');
    process.exit(0);
  };
  for (const signal of options.signals ?? ['SIGINT', 'SIGTERM']) process.on(signal, () => void stop(signal));
}
