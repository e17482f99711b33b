import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './wait';

const ROOT = path.join(__dirname, '..', '..', '..');

/**
 * The worker as its own process (`node --import tsx apps/worker/src/main.ts`):
 * one process, so a signal reaches the worker itself, not a wrapper.
 */
export class WorkerProcess {
  private static readonly started = new Set<ChildProcess>();
  private output = '';

  /** SIGKILLs every worker process this test file started that still runs (after a failed or timed-out test). */
  static killAll(): void {
    for (const p of WorkerProcess.started) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    WorkerProcess.started.clear();
  }

  private constructor(readonly proc: ChildProcess) {
    proc.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
  }

  static async start(env: Record<string, string>): Promise<WorkerProcess> {
    const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/worker/src/main.ts')], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    WorkerProcess.started.add(proc);
    const w = new WorkerProcess(proc);
    await waitFor('the worker to start or exit', () => w.output.includes('worker started') || proc.exitCode !== null, { timeoutMs: 30_000, intervalMs: 50 })
      .catch(() => undefined);
    if (!w.output.includes('worker started')) {
      throw new Error(proc.exitCode !== null ? `worker exited at start: ${w.output}` : `worker did not start: ${w.output}`);
    }
    return w;
  }

  get log(): string {
    return this.output;
  }

  /** Sends a signal and waits for the process to end; returns its exit code or signal. */
  async signal(sig: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
      return { code: this.proc.exitCode, signal: this.proc.signalCode };
    }
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      this.proc.once('exit', (code, signal) => resolve({ code, signal })),
    );
    this.proc.kill(sig);
    return exited;
  }
}
