import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';

export interface ChildServer {
  port: number;
  baseUrl: string;
  pid: number;
  /** Asks the child to close (SIGTERM), waits for it, kills it after 10 s. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;

interface LaunchOptions {
  /** A TypeScript entry that listens on port 0 and sends `{ type: 'listening', port }` over IPC. */
  entry: string;
  env?: Record<string, string>;
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** Where the child's stdout (e.g. its JSON log) goes; discarded when not set. */
  stdoutFile?: string;
}

/** Runs a server in its own process, so the load generator and the server do not share an event loop. */
export function launchChildServer(options: LaunchOptions): Promise<ChildServer> {
  const stdout = options.stdoutFile ? openSync(options.stdoutFile, 'a') : 'ignore';
  const child = fork(options.entry, [], {
    cwd: path.resolve(__dirname, '..', '..'),
    execArgv: ['--import', 'tsx', ...(options.nodeArgs ?? [])],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
  });
  if (typeof stdout === 'number') closeSync(stdout);
  return new Promise<ChildServer>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(options.entry)} did not start within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${path.basename(options.entry)} exited with code ${code} before listening`));
    });
    child.on('message', (message: unknown) => {
      if (isListening(message)) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({
          port: message.port,
          baseUrl: `http://127.0.0.1:${message.port}`,
          pid: child.pid ?? -1,
          stop: () => stopChild(child, 10_000),
        });
      }
    });
  });
}

function isListening(message: unknown): message is { type: 'listening'; port: number } {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'listening';
}

function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
