// What `npm start` runs once its configuration is read and traces started (main.ts):
// the preflight, then the API and the worker, or one of them, until SIGINT/SIGTERM.
import type { Logger } from 'pino';
import type { Config } from '@holdfast/config';
import { createApiRuntime, createLogger } from '@holdfast/api';
import type { TelemetryHandle } from '@holdfast/telemetry';
import { startWorker } from '@holdfast/worker';
import { seedDemoEvent } from './demo-seed';
import { fail } from './fail';
import type { Role } from './main';
import { preflight, StartupError } from './preflight';
import { runApiProcess, superviseApiProcesses } from './api-processes';
import { superviseWorkers } from './worker-process';
import { announceCheckoutPage, announceListenHost, drainApi, listenApi } from './api-listen';
import { atLastStop, stopOnSignal } from './stop-on-signal';

/** Runs the server; `apiProcess` is the index of a forked API process (API_PROCESSES > 1), else null. */
export async function runServer(config: Config, role: Role, telemetry: TelemetryHandle | null, apiProcess: number | null): Promise<void> {
  const log = createLogger(config, 'holdfast');
  if (telemetry) {
    log.info({ endpoint: config.telemetry.endpoint, serviceName: telemetry.serviceName }, 'exporting traces');
    atLastStop(() => telemetry.shutdown());
  }
  if (apiProcess !== null) {
    // A forked API process (API_PROCESSES > 1): the primary checked everything already.
    return runApiProcess(config, log, apiProcess);
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
async function runApiProcesses(config: Config, log: Logger, withWorkers: boolean): Promise<void> {
  const api = superviseApiProcesses(config, log);
  const workers = withWorkers ? superviseWorkers(log, process.env, config.workerProcesses, config.workerMetricsPort) : null;
  stopOnSignal(log, 'draining', () => Promise.all([api.stop(), workers?.stop()]), { logStopped: true });
  const port = await api.listening;
  log.info({ port, apiProcesses: config.apiProcesses, workerProcesses: withWorkers ? config.workerProcesses : 0 }, 'holdfast API processes listening');
  announceListenHost(config);
  announceCheckoutPage(config, port);
}

/** `--only worker` with WORKER_PROCESSES > 1: that many supervised worker processes. */
async function runWorkersOnly(config: Config, log: Logger): Promise<void> {
  const workers = superviseWorkers(log, process.env, config.workerProcesses, config.workerMetricsPort);
  log.info({ workerProcesses: config.workerProcesses }, 'holdfast workers running');
  stopOnSignal(log, 'draining the workers', () => workers.stop());
}

async function runWorkerOnly(config: Config, log: Logger): Promise<void> {
  const worker = await startWorker(config, { log });
  log.info('holdfast worker running');
  stopOnSignal(log, 'draining the worker', () => worker.close());
}

