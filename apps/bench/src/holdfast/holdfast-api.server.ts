/**
 * holdfast's real API, started by the bench as a child process: the app's own
 * configuration loader and runtime (createApiRuntime from @holdfast/api),
 * listening on port 0 on loopback, reporting its port over IPC. SIGTERM drains
 * and closes it.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';

import { createApiRuntime } from '@holdfast/api';
import { loadConfig } from '@holdfast/config';

/**
 * Profiling experiments, never on in a normal run (the report's header names
 * any that was on): BENCH_WHATIF=jwt-key-object hands jsonwebtoken a KeyObject
 * instead of the secret string: how the bench measured the auth middleware's
 * cost before main built the key once (c04fabd); a no-op on builds that pass a
 * KeyObject already (see docs/benchmarks.md, "Where the time goes").
 */
function applyWhatIf(name: string | undefined): void {
  if (!name) return;
  if (name !== 'jwt-key-object') throw new Error(`unknown BENCH_WHATIF experiment "${name}"`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const jwt = require('jsonwebtoken') as { verify: (...args: unknown[]) => unknown };
  const original = jwt.verify;
  const keys = new Map<string, KeyObject>();
  jwt.verify = (token: unknown, secret: unknown, ...rest: unknown[]) => {
    if (typeof secret === 'string') {
      let key = keys.get(secret);
      if (!key) keys.set(secret, (key = createSecretKey(Buffer.from(secret, 'utf8'))));
      return original(token, key, ...rest);
    }
    return original(token, secret, ...rest);
  };
}

async function main(): Promise<void> {
  applyWhatIf(process.env.BENCH_WHATIF);
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
