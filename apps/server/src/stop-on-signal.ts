import type { Logger } from 'pino';

const lastSteps: (() => Promise<unknown>)[] = [];

/** A step run after every drain, just before the process exits (e.g. exporting the last spans). */
export function atLastStop(step: () => Promise<unknown>): void {
  lastSteps.push(step);
}

/**
 * On the first of `signals` (a second one is ignored while draining): logs
 * `message` with the signal, runs `drain` (then the atLastStop steps), optionally logs "stopped", exits 0.
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
    for (const step of lastSteps) await step().catch(() => undefined);
    if (options.logStopped) log.info('stopped');
    process.exit(0);
  };
  for (const signal of options.signals ?? ['SIGINT', 'SIGTERM']) process.on(signal, () => void stop(signal));
}
