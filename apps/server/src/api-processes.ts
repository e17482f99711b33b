// API_PROCESSES > 1: the API runs in that many processes (node:cluster), sharing
// one port. The primary supervises them (a dead one is started again), drains
// them on SIGTERM/SIGINT, and adds up their metrics for one /metrics.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '@holdfast/config';
import { createApiRuntime, joinClusterMetrics, serveClusterMetrics } from '@holdfast/api';
import { seedDemoEvent } from './demo-seed';
import { drainApi, listenApi } from './api-listen';
import { stopOnSignal } from './stop-on-signal';

import { API_PROCESS_ENV } from './api-process-env';

export { API_PROCESS_ENV };

interface Listening { type: 'holdfast:listening'; port: number; index: number }

/** In the primary: forks the API processes and keeps them running until stopped. */
export function superviseApiProcesses(config: Config, log: Logger): { listening: Promise<number>; stop(): Promise<void> } {
  serveClusterMetrics();
  let stopping = false;
  const byIndex = new Map<number, Worker>();
  const restarts = new Map<number, number>();
  const up = new Set<number>();
  let resolveListening!: (port: number) => void;
  const listening = new Promise<number>((r) => (resolveListening = r));

  const fork = (index: number) => {
    const w = cluster.fork({ [API_PROCESS_ENV]: String(index) });
    byIndex.set(index, w);
    const startedAt = Date.now();
    w.on('message', (m: Listening) => {
      if (m?.type !== 'holdfast:listening') return;
      up.add(index);
      if (up.size === config.apiProcesses) resolveListening(m.port);
    });
    w.on('exit', (code, signal) => {
      if (byIndex.get(index) === w) byIndex.delete(index);
      if (stopping) return;
      const n = Date.now() - startedAt > 60_000 ? 0 : (restarts.get(index) ?? 0);
      restarts.set(index, n + 1);
      const pause = Math.min(30_000, 500 * 2 ** n);
      log.error({ apiProcess: index, pid: w.process.pid, code, signal, restartInMs: pause }, 'an API process exited; restarting it');
      setTimeout(() => { if (!stopping) fork(index); }, pause);
    });
  };
  for (let i = 0; i < config.apiProcesses; i++) fork(i);

  return {
    listening,
    async stop() {
      stopping = true;
      await Promise.all([...byIndex.values()].map((w) => new Promise<void>((resolve) => {
        if (w.isDead()) return resolve();
        const kill = setTimeout(() => w.process.kill('SIGKILL'), 20_000);
        w.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        w.process.kill('SIGTERM');
      })));
    },
  };
}

/** In a forked API process: serves on the shared port until SIGTERM, then drains and exits 0. */
export async function runApiProcess(config: Config, log: Logger, index: number): Promise<void> {
  const rt = await createApiRuntime(config, log);
  joinClusterMetrics(rt.metrics);
  const { server, port } = await listenApi(rt, config);
  log.info({ port, apiProcess: index }, 'holdfast API listening');
  if (index === 0 && config.demoMode) {
    const demo = await seedDemoEvent(rt.ctx);
    if (demo) log.info({ eventId: demo }, 'created the demo event');
  }
  process.send!({ type: 'holdfast:listening', port, index } satisfies Listening);

  stopOnSignal(log, 'draining', () => drainApi(server, rt), { fields: { apiProcess: index }, signals: ['SIGTERM'] });
  // Ctrl-C reaches every process of the group: the primary decides, the API processes wait for its SIGTERM.
  process.on('SIGINT', () => undefined);
}
