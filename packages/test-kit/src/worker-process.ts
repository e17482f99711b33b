import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { collectOutput, isRunning, printed, REPO_ROOT } from './child-process';

/**
 * The worker as its own process (`node --import tsx apps/worker/src/main.ts`):
 * one process, so a signal reaches the worker itself, not a wrapper.
 */
export class WorkerProcess {
  private static readonly started = new Set<ChildProcess>();
  private readonly output: { readonly both: string };

  /** SIGKILLs every worker process this test file started that still runs (after a failed or timed-out test). */
  static killAll(): void {
    for (const p of WorkerProcess.started) if (isRunning(p)) p.kill('SIGKILL');
    WorkerProcess.started.clear();
  }

  private constructor(readonly proc: ChildProcess) {
    this.output = collectOutput(proc);
  }

  static async start(env: Record<string, string>): Promise<WorkerProcess> {
    const proc = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'apps/worker/src/main.ts')], {
      cwd: REPO_ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    WorkerProcess.started.add(proc);
    const w = new WorkerProcess(proc);
    if (!(await printed(proc, w.output, 'worker started', 'the worker to start or exit'))) {
      throw new Error(proc.exitCode !== null ? `worker exited at start: ${w.log}` : `worker did not start: ${w.log}`);
    }
    return w;
  }

  get log(): string {
    return this.output.both;
  }

  /** Sends a signal and waits for the process to end; returns its exit code or signal. */
  async signal(sig: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (!isRunning(this.proc)) {
      return { code: this.proc.exitCode, signal: this.proc.signalCode };
    }
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      this.proc.once('exit', (code, signal) => resolve({ code, signal })),
    );
    this.proc.kill(sig);
    return exited;
  }
}
