import { readFile } from 'node:fs/promises';

/** Clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on Linux unless told). */
export const TICKS_PER_SECOND = Number(process.env.BENCH_CLK_TCK ?? 100);

/** A process as /proc/<pid>/stat gives it. */
export interface ProcessStat {
  pid: number;
  ppid: number;
  /** The command name (it may contain spaces). */
  comm: string;
  /** CPU used so far, user + system, in clock ticks. */
  ticks: number;
}

/** /proc/<pid>/stat read, or null when the process is gone (or /proc is not available). */
export async function readProcessStat(pid: number): Promise<ProcessStat | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    if (close < 0) return null;
    // Fields after the command name start after the last ')' with field 3 (state): ppid is field 4, utime and stime 14 and 15.
    const fields = stat.slice(close + 2).split(' ');
    const [ppid, utime, stime] = [fields[1], fields[11], fields[12]].map(Number);
    if (!Number.isFinite(ppid) || !Number.isFinite(utime) || !Number.isFinite(stime)) return null;
    return { pid, ppid: ppid!, comm: stat.slice(stat.indexOf('(') + 1, close), ticks: utime! + stime! };
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system, milliseconds) a process has used so far, from
 * /proc/<pid>/stat. A server's CPU per request is far less sensitive to noisy
 * neighbours than its throughput: it is what the request costs, not what the
 * machine had left to give. Null where /proc is not available.
 */
export async function processCpuMs(pid: number): Promise<number | null> {
  const stat = await readProcessStat(pid);
  return stat === null ? null : (stat.ticks * 1000) / TICKS_PER_SECOND;
}

/** Runs `work` and returns its result with the CPU milliseconds process `pid` spent meanwhile. */
export async function withProcessCpu<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; cpuMs: number | null }> {
  const before = await processCpuMs(pid);
  const result = await work();
  const after = await processCpuMs(pid);
  return { result, cpuMs: before === null || after === null ? null : after - before };
}
