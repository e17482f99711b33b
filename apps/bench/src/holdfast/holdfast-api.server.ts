/**
 * holdfast's real API, started by the bench as a child process: the app's own
 * configuration loader and runtime (createApiRuntime from @holdfast/api),
 * listening on port 0 on loopback, reporting its port over IPC. SIGTERM drains
 * and closes it. With OTEL_EXPORTER_OTLP_ENDPOINT set (`--tracing on`), traces
 * start first, as in `npm start`, before the app's modules load.
 */
import type { AddressInfo } from 'node:net';

import { loadConfig } from '@holdfast/config';
import { startTelemetry } from '@holdfast/telemetry';

import { watchEventLoopWhenAsked } from './api-event-loop.monitor';

async function main(): Promise<void> {
  watchEventLoopWhenAsked(process.env, (line) => process.stderr.write(line));
  const config = loadConfig(process.env);
  const telemetry = startTelemetry(config.telemetry, 'holdfast-api');
  const { createApiRuntime } = await import('@holdfast/api');
  const runtime = await createApiRuntime(config);
  const server = runtime.app.listen(0, '127.0.0.1', () => {
    process.send?.({ type: 'listening', port: (server.address() as AddressInfo).port });
  });
  process.on('SIGTERM', () => {
    server.close(() => {
      void runtime.close().then(() => telemetry?.shutdown()).finally(() => process.exit(0));
    });
    server.closeIdleConnections();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`holdfast API failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
