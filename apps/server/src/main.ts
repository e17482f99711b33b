// `npm start`: checks PostgreSQL and Redis, creates the database and applies the
// migrations, then runs the API and the worker beside it until SIGINT/SIGTERM.
import cluster from 'node:cluster';
import { ConfigError, loadConfig, type Config } from '@holdfast/config';
import { createApiRuntime, createLogger } from '@holdfast/api';
import { startWorker } from '@holdfast/worker';
import { seedDemoEvent } from './demo-seed';
import { preflight, StartupError } from './preflight';
import { API_PROCESS_ENV, runApiProcess, superviseApiProcesses } from './api-processes';
import { superviseWorkers } from './worker-process';
import { announceCheckoutPage, announceListenHost, drainApi, listenApi } from './api-listen';
import { stopOnSignal } from './stop-on-signal';

type Role = 'all' | 'api' | 'worker';

/** `npm start -- --only api|worker` runs one of the two; the default runs both. */
function roleFromArgs(argv: string[]): Role {
  const i = argv.indexOf('--only');
  if (i < 0) return 'all';
  const role = argv[i + 1];
  if (role === 'api' || role === 'worker') return role;
  fail(`--only takes "api" or "worker", not ${JSON.stringify(role ?? '')}`);
}

function fail(message: string): never {
  process.stderr.write(`holdfast: ${message}\n`);
  process.exit(1);
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
  const log = createLogger(config, 'holdfast');
  if (cluster.isWorker && process.env[API_PROCESS_ENV] !== undefined) {
    // A forked API process (API_PROCESSES > 1): the primary checked everything already.
    return runApiProcess(config, log, Number(process.env[API_PROCESS_ENV]));
  }
  for (const w of config.warnings) log.warn(w);

  const checked = await preflight(config).catch((err: unknown) => {
    if (err instanceof StartupError) fail(err.message);
    throw err;
  });
  if (checked.createdDatabase) log.info('created the database');
  if (checked.evictionWarning) log.warn(checked.evictionWarning);

  if (role === 'worker') return config.workerProcesses > 1 ? runWorkersOnly(config, log) : runWorkerOnly(config, log);
  if (config.apiProcesses > 1) return runApiProcesses(config, log, role === 'all');

  const rt = await createApiRuntime(config, log);
  const { server, port } = await listenApi(rt, config);
  log.info({ port, demoMode: config.demoMode }, 'holdfast API listening');
  announceListenHost(config);

  const worker = role === 'all' ? superviseWorkers(log, process.env, config.workerProcesses, config.workerMetricsPort) : null;

  stopOnSignal(log, 'draining', async () => {
    const workerStopped = worker?.stop();
    await drainApi(server, rt);
    await workerStopped;
  }, { logStopped: true });

  if (config.demoMode) {
    const demo = await seedDemoEvent(rt.ctx);
    if (demo) log.info({ eventId: demo }, 'created the demo event');
    announceCheckoutPage(config, port);
  }
}

/** API_PROCESSES > 1: node:cluster API processes on one port, and the worker processes beside them. */
async function runApiProcesses(config: Config, log: ReturnType<typeof createLogger>, withWorkers: boolean): Promise<void> {
  const api = superviseApiProcesses(config, log);
  const workers = withWorkers ? superviseWorkers(log, process.env, config.workerProcesses, config.workerMetricsPort) : null;
  stopOnSignal(log, 'draining', () => Promise.all([api.stop(), workers?.stop()]), { logStopped: true });
  const port = await api.listening;
  log.info({ port, apiProcesses: config.apiProcesses, workerProcesses: withWorkers ? config.workerProcesses : 0 }, 'holdfast API processes listening');
  announceListenHost(config);
  announceCheckoutPage(config, port);
}

/** `--only worker` with WORKER_PROCESSES > 1: that many supervised worker processes. */
async function runWorkersOnly(config: Config, log: ReturnType<typeof createLogger>): Promise<void> {
  const workers = superviseWorkers(log, process.env, config.workerProcesses, config.workerMetricsPort);
  log.info({ workerProcesses: config.workerProcesses }, 'holdfast workers running');
  stopOnSignal(log, 'draining the workers', () => workers.stop());
}

async function runWorkerOnly(config: Config, log: ReturnType<typeof createLogger>): Promise<void> {
  const worker = await startWorker(config, { log });
  log.info('holdfast worker running');
  stopOnSignal(log, 'draining the worker', () => worker.close());
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
