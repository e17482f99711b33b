import { readFile } from 'node:fs/promises';

/** Clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on Linux unless told). */
const TICKS_PER_SECOND = Number(process.env.BENCH_CLK_TCK ?? 100);

/**
 * CPU time (user + system, milliseconds) a process has used so far, from
 * /proc/<pid>/stat. A server's CPU per request is far less sensitive to noisy
 * neighbours than its throughput: it is what the request costs, not what the
 * machine had left to give. Null where /proc is not available.
 */
export async function processCpuMs(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
    return ((utime + stime) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Runs `work` and returns its result with the CPU milliseconds process `pid` spent meanwhile. */
export async function withProcessCpu<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; cpuMs: number | null }> {
  const before = await processCpuMs(pid);
  const result = await work();
  const after = await processCpuMs(pid);
  return { result, cpuMs: before === null || after === null ? null : after - before };
}
