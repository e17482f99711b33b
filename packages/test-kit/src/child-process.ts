import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './wait';

/** The repository's root: the working folder of every process the kit starts. */
export const REPO_ROOT = path.join(__dirname, '..', '..', '..');

/** What a child writes to stdout and stderr, kept as it comes (each stream alone and both in order). */
export function collectOutput(child: ChildProcess): { readonly stdout: string; readonly stderr: string; readonly both: string } {
  const out = { stdout: '', stderr: '', both: '' };
  child.stdout?.on('data', (d: Buffer) => {
    out.stdout += d.toString();
    out.both += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out.stderr += d.toString();
    out.both += d.toString();
  });
  return out;
}

/** Whether the child still runs (no exit code, no ending signal yet). */
export const isRunning = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

/** Waits until the child has printed `text` (true) or has ended (false), at most `timeoutMs` (false). */
export async function printed(child: ChildProcess, output: { readonly both: string }, text: string, what: string, timeoutMs = 30_000): Promise<boolean> {
  await waitFor(what, () => output.both.includes(text) || !isRunning(child), { timeoutMs, intervalMs: 50 }).catch(() => undefined);
  return output.both.includes(text);
}
