// `npm start`: checks PostgreSQL and Redis, creates the database and applies the
// migrations, then runs the API and the worker beside it until SIGINT/SIGTERM.
// Only the configuration and the tracing API are imported up front: when
// OTEL_EXPORTER_OTLP_ENDPOINT is set, traces start (and hook `require`) before
// server.ts loads Express, ioredis, pg and BullMQ.
import cluster from 'node:cluster';
import { ConfigError, loadConfig, type Config } from '@holdfast/config';
import { startTelemetry } from '@holdfast/telemetry';
import { API_PROCESS_ENV } from './api-process-env';
import { fail } from './fail';

export type Role = 'all' | 'api' | 'worker';

/** `npm start -- --only api|worker` runs one of the two; the default runs both. */
function roleFromArgs(argv: string[]): Role {
  const i = argv.indexOf('--only');
  if (i < 0) return 'all';
  const role = argv[i + 1];
  if (role === 'api' || role === 'worker') return role;
  fail(`--only takes "api" or "worker", not ${JSON.stringify(role ?? '')}`);
}

/**
 * The service this process traces as, or null when it serves nothing itself
 * (a primary whose API processes or worker processes are its children, each
 * tracing on its own).
 */
function tracedAs(role: Role, config: Config, forkedApi: boolean): string | null {
  if (forkedApi) return 'holdfast-api';
  if (role === 'worker') return config.workerProcesses > 1 ? null : 'holdfast-worker';
  return config.apiProcesses > 1 ? null : 'holdfast-api';
}

async function main(): Promise<void> {
  const role = roleFromArgs(process.argv.slice(2));
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const forkedApi = cluster.isWorker && process.env[API_PROCESS_ENV] !== undefined;
  const service = tracedAs(role, config, forkedApi);
  const telemetry = service ? startTelemetry(config.telemetry, service) : null;
  const { runServer } = await import('./server');
  return runServer(config, role, telemetry, forkedApi ? Number(process.env[API_PROCESS_ENV]) : null);
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
