import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { collectOutput, REPO_ROOT } from './child-process';

const TSX = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
const MAIN = path.join(REPO_ROOT, 'apps', 'server', 'src', 'main.ts');

export interface ServerProcessOptions {
  /** Arguments after main.ts, e.g. ['--only', 'api']. */
  args?: string[];
  /** A process group of its own (tsx runs the server in a child process): `signalGroup` and `stop` reach both. */
  detached?: boolean;
  /** In a pseudo-terminal (util-linux `script`), as a person runs it in a shell; implies `detached`. */
  terminal?: boolean;
}

/**
 * `npm start`'s entry point (`tsx apps/server/src/main.ts`) as a child process,
 * with LOG_LEVEL=info and WORKER_METRICS_PORT=0 unless told; an env value of
 * undefined leaves that variable out.
 */
export class ServerProcess {
  private readonly out: { readonly stdout: string; readonly stderr: string; readonly both: string };
  /** Resolves with the exit code once the process (the tsx wrapper, or `script`) ends. */
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess, private readonly grouped: boolean) {
    this.out = collectOutput(child);
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  static start(env: Record<string, string | undefined> = {}, options: ServerProcessOptions = {}): ServerProcess {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', WORKER_METRICS_PORT: '0', ...env };
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
    const args = [MAIN, ...(options.args ?? [])];
    const grouped = Boolean(options.detached || options.terminal);
    const child = options.terminal
      ? spawn('script', ['-qfec', [TSX, ...args].join(' '), '/dev/null'], { cwd: REPO_ROOT, env: childEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
      : spawn(TSX, args, { cwd: REPO_ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: grouped });
    return new ServerProcess(child, grouped);
  }

  /** What it wrote to stdout so far. */
  get stdout(): string {
    return this.out.stdout;
  }

  /** What it wrote to stderr so far. */
  get stderr(): string {
    return this.out.stderr;
  }

  /** stdout and stderr as they came. */
  get output(): string {
    return this.out.both;
  }

  /** A signal to its whole process group (or to the process, when not detached); a process already gone is fine. */
  signalGroup(signal: NodeJS.Signals): void {
    try {
      if (this.grouped) process.kill(-this.child.pid!, signal);
      else this.child.kill(signal);
    } catch {
      /* already gone */
    }
  }

  /** The server's own process: the node process tsx runs main.ts in (tsx's child); null when there is none. */
  serverPid(): number | null {
    const pid = this.child.pid;
    if (!pid || this.child.exitCode !== null) return null;
    try {
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
        if (children) return Number(children.split(/\s+/)[0]);
      }
    } catch {
      /* gone meanwhile */
    }
    return null;
  }

  /**
   * A signal to the server's own process, as an orchestrator's stop reaches `npm start` (which
   * execs node). Sent to tsx instead, it is relayed: tsx waits 30 ms for the server to say it got
   * it, sends it again, waits 30 ms more, then kills the server (SIGKILL) and exits 143. On a
   * loaded machine an event loop can be busy that long, and a graceful stop then read as a crash.
   */
  signalServer(signal: NodeJS.Signals): void {
    const pid = this.serverPid();
    if (pid === null) throw new Error('the server process is not running');
    process.kill(pid, signal);
  }

  /** SIGTERM, up to `graceMs` for it to exit, then SIGKILL; resolves with the exit code, or undefined if it had to be killed. */
  async stop(graceMs: number): Promise<number | null | undefined> {
    this.signalGroup('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([this.exited, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), graceMs)))]);
    clearTimeout(timer);
    this.signalGroup('SIGKILL');
    return code;
  }
}
