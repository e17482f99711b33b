// `npm start`: checks PostgreSQL and Redis, creates the database and applies the
// migrations, then runs the API (and the worker beside it) until SIGINT/SIGTERM.
import type { Server } from 'node:http';
import { ConfigError, loadConfig, type Config } from '@holdfast/config';
import { createApiRuntime, createLogger } from '@holdfast/api';
import { seedDemoEvent } from './demo-seed';
import { preflight, StartupError } from './preflight';

function fail(message: string): never {
  process.stderr.write(`holdfast: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const log = createLogger(config, 'holdfast');
  for (const w of config.warnings) log.warn(w);

  const checked = await preflight(config).catch((err: unknown) => {
    if (err instanceof StartupError) fail(err.message);
    throw err;
  });
  if (checked.createdDatabase) log.info('created the database');
  if (checked.evictionWarning) log.warn(checked.evictionWarning);

  const rt = await createApiRuntime(config, log);
  const server: Server = await new Promise((resolve, reject) => {
    const s = rt.app.listen(config.port, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({ port, demoMode: config.demoMode }, 'holdfast API listening');

  if (config.demoMode) {
    const demo = await seedDemoEvent(rt.ctx);
    if (demo) log.info({ eventId: demo }, 'created the demo event');
    process.stdout.write(`holdfast is running: checkout page at http://localhost:${port}/ (admin at /admin)\n`);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'draining');
    // Stop taking connections, let requests in flight finish, then close what is left.
    const closed = new Promise((r) => server.close(r));
    server.closeIdleConnections();
    const grace = setTimeout(() => server.closeAllConnections(), 5000);
    await closed;
    clearTimeout(grace);
    await rt.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
