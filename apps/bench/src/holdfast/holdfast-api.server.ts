/**
 * holdfast's real API, started by the bench as a child process: the app's own
 * configuration loader and runtime (createApiRuntime from @holdfast/api),
 * listening on port 0 on loopback, reporting its port over IPC. SIGTERM drains
 * and closes it.
 */
import type { AddressInfo } from 'node:net';

import { createApiRuntime } from '@holdfast/api';
import { loadConfig } from '@holdfast/config';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const runtime = await createApiRuntime(config);
  const server = runtime.app.listen(0, '127.0.0.1', () => {
    process.send?.({ type: 'listening', port: (server.address() as AddressInfo).port });
  });
  process.on('SIGTERM', () => {
    server.close(() => {
      void runtime.close().finally(() => process.exit(0));
    });
    server.closeIdleConnections();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`holdfast API failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
