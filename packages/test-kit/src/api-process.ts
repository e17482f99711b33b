import { spawn, type ChildProcess } from 'node:child_process';
import { collectOutput, isRunning, printed, REPO_ROOT } from './child-process';

/** The API alone as a child process (`node --import tsx <this path>`), for tests that stop or kill it. */
export const API_PROCESS_MAIN = require.resolve('./api-process.main');

/**
 * The API as a process of its own on a free port (`API_PROCESS_MAIN`), for a
 * test that freezes it (SIGSTOP) or kills it while another API runs in-process.
 */
export class ApiProcess {
  private constructor(readonly proc: ChildProcess, readonly url: string, private readonly output: { readonly both: string }) {}

  /**
   * Starts it with these variables over the test's own and waits until it
   * listens. It binds port 0 and prints the port the system gave it: a port
   * picked beforehand and released could be taken by another process before
   * the API binds it.
   */
  static async start(env: Record<string, string> = {}): Promise<ApiProcess> {
    const proc = spawn(process.execPath, ['--import', 'tsx', API_PROCESS_MAIN], {
      cwd: REPO_ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = collectOutput(proc);
    const port = (await printed(proc, output, 'listening ', 'the API process to listen or exit')) ? /listening (\d+)\n/.exec(output.both)?.[1] : undefined;
    if (!port) {
      proc.kill('SIGKILL');
      throw new Error(`API process did not start: ${output.both}`);
    }
    return new ApiProcess(proc, `http://127.0.0.1:${port}`, output);
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
