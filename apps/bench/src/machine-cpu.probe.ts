import { readdir, readFile } from 'node:fs/promises';
import Redis from 'ioredis';
import { readProcessStat, TICKS_PER_SECOND, type ProcessStat } from './process-cpu.probe';


/**
 * Where a request's CPU goes on the whole machine, not only in the server
 * process: a closed loop on a 2-core machine is bound by the sum, so a server
 * whose Redis script or PostgreSQL writes cost more than a `SET` loses
 * throughput there even when its own process is idle. Milliseconds per request.
 */
export interface MachineCpuPerRequest {
  /** The HTTP server process (holdfast's API or a baseline). */
  server: number;
  /** The redis-server process (all its threads). */
  redis: number | null;
  /**
   * PostgreSQL: its shared processes and the sessions on the databases measured (MachineProcesses.postgresDatabases);
   * a session that ended during the run is left out.
   */
  postgres: number | null;
  /** The bench process: the load generator and its HTTP client. */
  client: number;
  /** All CPUs of the machine, busy time (neighbours included). */
  machine: number | null;
}

async function allStats(): Promise<ProcessStat[]> {
  const names = await readdir('/proc').catch(() => [] as string[]);
  const stats = await Promise.all(names.filter((n) => /^\d+$/.test(n)).map((n) => readProcessStat(Number(n))));
  return stats.filter((s): s is ProcessStat => s !== null);
}

/**
 * The PostgreSQL postmaster on this machine: a `postgres` process whose parent
 * is not one. Null when there is none (a remote server) or more than one
 * (which cluster would be ours?).
 */
export async function findPostmasterPid(): Promise<number | null> {
  const stats = await allStats();
  const byPid = new Map(stats.map((s) => [s.pid, s]));
  const roots = stats.filter((s) => s.comm === 'postgres' && byPid.get(s.ppid)?.comm !== 'postgres');
  return roots.length === 1 ? roots[0]!.pid : null;
}

/** The redis-server's process id when it runs on this machine (INFO server), else null. */
export async function findRedisPid(redisUrl: string): Promise<number | null> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 500, disconnectTimeout: 0 }); // only a local Redis is of use here
  redis.on('error', () => {}); // a refused connection is answered by null below
  try {
    await redis.connect();
    const info = await redis.info('server');
    const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    if (!Number.isInteger(pid)) return null;
    const stat = await readProcessStat(pid);
    return stat && stat.comm.startsWith('redis-server') ? pid : null;
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

/** PostgreSQL's processes that serve every database: their work (WAL, checkpoints) is shared. */
const SHARED_POSTGRES = /: (walwriter|checkpointer|background writer|autovacuum launcher|logical replication launcher|archiver|stats collector)\b/;

/**
 * PostgreSQL's processes and their CPU so far (ticks by pid). With `databases`,
 * the sessions and autovacuum workers on those databases and the shared
 * processes (WAL writer, checkpointer…), so that a neighbour's work on another
 * database is not counted; without, every child of the postmaster and the
 * postmaster itself.
 */
async function postgresTicks(postmasterPid: number, databases: readonly string[] | null): Promise<Map<number, number> | null> {
  const root = await readProcessStat(postmasterPid);
  if (!root) return null;
  const ticks = new Map<number, number>([[postmasterPid, root.ticks]]);
  for (const child of (await allStats()).filter((s) => s.ppid === postmasterPid)) {
    if (databases !== null) {
      const cmdline = await readFile(`/proc/${child.pid}/cmdline`, 'utf8').catch(() => '');
      const words = cmdline.replace(/\0/g, ' ').split(/\s+/);
      if (!SHARED_POSTGRES.test(cmdline) && !databases.some((db) => words.includes(db))) continue;
    }
    ticks.set(child.pid, child.ticks);
  }
  return ticks;
}

/**
 * What PostgreSQL's processes spent between two readings: each process's growth,
 * a process that started meanwhile all of its time. A session that ended
 * meanwhile is left out (its last ticks cannot be read), so this is a floor;
 * the pool keeps its sessions for seconds of idleness, longer than a run's gaps.
 */
function postgresSpent(before: Map<number, number> | null, after: Map<number, number> | null): number | null {
  if (before === null || after === null) return null;
  let spent = 0;
  for (const [pid, t] of after) spent += Math.max(0, t - (before.get(pid) ?? 0));
  return spent;
}

async function machineBusyTicks(): Promise<number | null> {
  try {
    const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!;
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is counted in user already)
    const busy = v[0]! + v[1]! + v[2]! + v[5]! + v[6]! + v[7]!;
    return Number.isFinite(busy) ? busy : null;
  } catch {
    return null;
  }
}

export interface MachineProcesses {
  /** The HTTP server process; null where a run has none (the race lab's SQL strategies talk to PostgreSQL directly). */
  serverPid: number | null;
  redisPid: number | null;
  postmasterPid: number | null;
  /** Count only PostgreSQL's sessions on these databases (and its shared processes); null: all of PostgreSQL. */
  postgresDatabases: readonly string[] | null;
}

interface Reading {
  server: number | null;
  redis: number | null;
  postgres: Map<number, number> | null;
  client: number;
  machine: number | null;
}

async function read(p: MachineProcesses): Promise<Reading> {
  const [server, redis, postgres, machine] = await Promise.all([
    p.serverPid === null ? null : readProcessStat(p.serverPid).then((s) => s?.ticks ?? null),
    p.redisPid === null ? null : readProcessStat(p.redisPid).then((s) => s?.ticks ?? null),
    p.postmasterPid === null ? null : postgresTicks(p.postmasterPid, p.postgresDatabases),
    machineBusyTicks(),
  ]);
  const usage = process.cpuUsage();
  return { server, redis, postgres, machine, client: (usage.user + usage.system) / 1000 };
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** CPU milliseconds each process spent while a piece of work ran (not divided by anything); null: not readable (or no such process). */
export interface ProcessesCpuMs {
  server: number | null;
  redis: number | null;
  postgres: number | null;
  client: number;
  machine: number | null;
}

/** Runs `work` and returns its result with the CPU milliseconds each process spent meanwhile (see MachineCpuPerRequest for what each counts). */
export async function withProcessesCpu<T>(p: MachineProcesses, work: () => Promise<T>): Promise<{ result: T; spentMs: ProcessesCpuMs }> {
  const before = await read(p);
  const result = await work();
  const after = await read(p);
  const ms = (a: number | null, b: number | null) => (a === null || b === null ? null : ((b - a) * 1000) / TICKS_PER_SECOND);
  return {
    result,
    spentMs: {
      server: ms(before.server, after.server),
      redis: ms(before.redis, after.redis),
      postgres: ms(0, postgresSpent(before.postgres, after.postgres)),
      client: after.client - before.client,
      machine: ms(before.machine, after.machine),
    },
  };
}

/**
 * Runs `work` and returns its result with each process's CPU per request
 * (`requests(result)` of them) meanwhile; null for a process that could not be
 * read. The resolution is /proc's tick (10 ms), so a run should take seconds.
 */
export async function withMachineCpu<T>(
  p: MachineProcesses,
  requests: (result: T) => number,
  work: () => Promise<T>,
): Promise<{ result: T; cpu: MachineCpuPerRequest | null }> {
  const { result, spentMs } = await withProcessesCpu(p, work);
  const n = requests(result);
  if (n <= 0 || spentMs.server === null) return { result, cpu: null };
  const per = (ms: number | null) => (ms === null ? null : round4(ms / n));
  return {
    result,
    cpu: { server: per(spentMs.server)!, redis: per(spentMs.redis), postgres: per(spentMs.postgres), client: per(spentMs.client)!, machine: per(spentMs.machine) },
  };
}
