import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Logger } from 'pino';

const ROOT = path.resolve(__dirname, '../../..');
/**
 * The worker's entry as this process runs: compiled (`node apps/server/dist/main.js`
 * runs `node apps/worker/dist/main.js`, built beside it) or TypeScript through tsx.
 */
const COMPILED = __filename.endsWith('.js');
const WORKER_ARGS = COMPILED
  ? [path.join(ROOT, 'apps/worker/dist/main.js')]
  : ['--import', 'tsx', path.join(ROOT, 'apps/worker/src/main.ts')];

/**
 * Runs the worker as its own process beside the API, restarting it (with a
 * growing pause) if it dies, and stopping it with SIGTERM on shutdown.
 */
export function superviseWorker(log: Logger, env: NodeJS.ProcessEnv): { stop(): Promise<void> } {
  let child: ChildProcess | null = null;
  let stopping = false;
  let restarts = 0;
  let restartTimer: NodeJS.Timeout | null = null;

  const start = () => {
    const c = spawn(process.execPath, WORKER_ARGS, { cwd: ROOT, env, stdio: 'inherit' });
    child = c;
    const startedAt = Date.now();
    c.on('exit', (code, signal) => {
      if (child === c) child = null;
      if (stopping) return;
      if (Date.now() - startedAt > 60_000) restarts = 0;
      const pause = Math.min(30_000, 1000 * 2 ** restarts++);
      log.error({ code, signal, restartInMs: pause }, 'the worker exited; restarting it');
      restartTimer = setTimeout(start, pause);
    });
  };
  start();

  return {
    stop() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const c = child;
      if (!c || c.exitCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        const kill = setTimeout(() => c.kill('SIGKILL'), 20_000);
        c.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        c.kill('SIGTERM');
      });
    },
  };
}

/**
 * WORKER_PROCESSES: that many supervised worker processes. Each gets its own
 * metrics port (WORKER_METRICS_PORT + its index; 0 stays "any free port").
 */
export function superviseWorkers(log: Logger, env: NodeJS.ProcessEnv, count: number, metricsPort: number): { stop(): Promise<void> } {
  const workers = Array.from({ length: count }, (_, i) =>
    superviseWorker(log.child({ workerProcess: i }), { ...env, WORKER_METRICS_PORT: String(metricsPort === 0 ? 0 : metricsPort + i) }));
  return { stop: () => Promise.all(workers.map((w) => w.stop())).then(() => undefined) };
}
