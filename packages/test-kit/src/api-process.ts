import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './redis-process';
import { waitFor } from './wait';

const ROOT = path.join(__dirname, '..', '..', '..');

/** The API alone as a child process (`node --import tsx <this path>`), for tests that stop or kill it. */
export const API_PROCESS_MAIN = require.resolve('./api-process.main');

/**
 * The API as a process of its own on a free port (`API_PROCESS_MAIN`), for a
 * test that freezes it (SIGSTOP) or kills it while another API runs in-process.
 */
export class ApiProcess {
  private output = '';

  private constructor(readonly proc: ChildProcess, readonly url: string) {
    proc.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
  }

  /** Starts it with these variables over the test's own (PORT is chosen here) and waits until it listens. */
  static async start(env: Record<string, string> = {}): Promise<ApiProcess> {
    const port = await freePort();
    const proc = spawn(process.execPath, ['--import', 'tsx', API_PROCESS_MAIN], {
      cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const api = new ApiProcess(proc, `http://127.0.0.1:${port}`);
    await waitFor('the API process to listen or exit', () => api.output.includes('listening') || !api.running, { timeoutMs: 30_000, intervalMs: 50 })
      .catch(() => undefined);
    if (!api.output.includes('listening')) {
      proc.kill('SIGKILL');
      throw new Error(`API process did not start: ${api.output}`);
    }
    return api;
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** What it wrote to stdout and stderr. */
  get log(): string {
    return this.output;
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
