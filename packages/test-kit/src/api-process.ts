import { spawn, type ChildProcess } from 'node:child_process';
import { collectOutput, isRunning, printed, REPO_ROOT } from './child-process';
import { freePort } from './redis-process';

/** The API alone as a child process (`node --import tsx <this path>`), for tests that stop or kill it. */
export const API_PROCESS_MAIN = require.resolve('./api-process.main');

/**
 * The API as a process of its own on a free port (`API_PROCESS_MAIN`), for a
 * test that freezes it (SIGSTOP) or kills it while another API runs in-process.
 */
export class ApiProcess {
  private readonly output: { readonly both: string };

  private constructor(readonly proc: ChildProcess, readonly url: string) {
    this.output = collectOutput(proc);
  }

  /** Starts it with these variables over the test's own (PORT is chosen here) and waits until it listens. */
  static async start(env: Record<string, string> = {}): Promise<ApiProcess> {
    const port = await freePort();
    const proc = spawn(process.execPath, ['--import', 'tsx', API_PROCESS_MAIN], {
      cwd: REPO_ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const api = new ApiProcess(proc, `http://127.0.0.1:${port}`);
    if (!(await printed(proc, api.output, 'listening', 'the API process to listen or exit'))) {
      proc.kill('SIGKILL');
      throw new Error(`API process did not start: ${api.log}`);
    }
    return api;
  }

  get running(): boolean {
    return isRunning(this.proc);
  }

  /** What it wrote to stdout and stderr. */
  get log(): string {
    return this.output.both;
  }

  /** Sends a signal and waits until the process has ended (at once if it has). */
  async endWith(signal: NodeJS.Signals): Promise<void> {
    if (!this.running) return;
    const exited = new Promise((resolve) => this.proc.once('exit', resolve));
    this.proc.kill(signal);
    await exited;
  }

  /** Ends it whatever its state: a frozen process is resumed first, so it can drain. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.running) this.proc.kill('SIGCONT');
    await this.endWith(signal);
  }
}
