// The worker as its own process: `tsx apps/worker/src/main.ts`. Drains and exits 0
// on SIGINT or SIGTERM; a configuration error stops it with a one-line message.
// Only the configuration and the tracing API are imported up front: traces (when
// OTEL_EXPORTER_OTLP_ENDPOINT is set) start before BullMQ, ioredis and pg load.
import { ConfigError, loadConfig } from '@holdfast/config';
import { startTelemetry } from '@holdfast/telemetry';

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
  const telemetry = startTelemetry(config.telemetry, 'holdfast-worker');
  const { createWorkerLogger, startWorker } = await import('./worker');
  const log = createWorkerLogger(config);
  for (const w of config.warnings) log.warn(w);
  if (telemetry) log.info({ endpoint: config.telemetry.endpoint, serviceName: telemetry.serviceName }, 'exporting traces');
  const worker = await startWorker(config, { log });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping worker');
    worker.close().then(() => telemetry?.shutdown()).then(
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
