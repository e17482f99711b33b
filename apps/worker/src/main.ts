// The worker as its own process: `tsx apps/worker/src/main.ts`. Drains and exits 0
// on SIGINT or SIGTERM; a configuration error stops it with a one-line message.
import { ConfigError, loadConfig } from '@holdfast/config';
import { createWorkerLogger, startWorker } from './worker';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const log = createWorkerLogger(config);
  for (const w of config.warnings) log.warn(w);
  const worker = await startWorker(config, { log });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping worker');
    worker.close().then(
      () => process.exit(0),
      (err: Error) => {
        log.error({ err: err.message }, 'worker did not stop cleanly');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: Error) => {
  process.stderr.write(`holdfast worker could not start: ${err.message}\n`);
  process.exit(1);
});
