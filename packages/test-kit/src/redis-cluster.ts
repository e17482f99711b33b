// A Redis Cluster of a test's own: 3 masters and 3 replicas of redis-server on
// loopback ports 7100-7199 (cluster bus +10000), data in a temp dir, no
// persistence. Only the nodes it started are ever stopped.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { standIn } from './stand-in';
import { waitFor } from './wait';

const run = promisify(execFile);

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * Reservations of ports across test processes: one file per port in the temp
 * dir, created exclusively, holding the reserving pid. A file whose pid is
 * gone (a killed jest worker) is taken over. A suite keeps its ports from
 * start to stop, so restarting one of its own nodes never finds the port
 * taken by another suite's cluster.
 */
const RESERVATIONS = path.join(os.tmpdir(), 'holdfast-redis-ports');

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function reservePort(port: number): boolean {
  mkdirSync(RESERVATIONS, { recursive: true });
  const file = path.join(RESERVATIONS, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(file, 'utf8').trim() || NaN);
      if (Number.isFinite(owner) && (owner === process.pid || pidAlive(owner))) return false;
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  return false;
}

/** Gives back ports reserved by `freeClusterPortBlocks` (only those this process holds). */
export function releasePorts(ports: number[]): void {
  for (const p of ports) {
    const file = path.join(RESERVATIONS, String(p));
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // not reserved, or already released
    }
  }
}

/** Reserves every port of a block, or none of them. */
function reserveBlock(ports: number[]): boolean {
  const taken: number[] = [];
  for (const p of ports) {
    if (!reservePort(p)) {
      releasePorts(taken);
      return false;
    }
    taken.push(p);
  }
  return true;
}

/**
 * Bases of `size` consecutive loopback ports in 7100-7199, reserved for this
 * process and free now, their cluster bus ports (+10000) too, in random order.
 * The caller owns the reservation: `RedisCluster.stop` releases it, and a
 * block given up must be released with `releasePorts`.
 */
export async function* freeClusterPortBlocks(size: number): AsyncGenerator<number> {
  const bases = Array.from({ length: Math.floor(100 / size) }, (_, i) => 7100 + i * size).sort(() => Math.random() - 0.5);
  for (const base of bases) {
    const ports = Array.from({ length: size }, (_, i) => base + i);
    if (!reserveBlock(ports)) continue;
    if ((await Promise.all(ports.flatMap((p) => [portFree(p), portFree(p + 10000)]))).every(Boolean)) yield base;
    else releasePorts(ports);
  }
}

/** `redis-cli -p port args…` (one line of output, trimmed). */
export async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-p', String(port), ...args], { timeout: 5000 });
  return stdout.trim();
}

/** The process id of the redis-server answering on `port`, or null when none answers. */
async function answeringPid(port: number): Promise<number | null> {
  const info = await cli(port, 'INFO', 'server').catch(() => '');
  const m = /process_id:(\d+)/.exec(info);
  return m ? Number(m[1]) : null;
}

export interface ClusterNode {
  port: number;
  role: 'master' | 'slave';
  id: string;
  /** Slot ranges a master serves, e.g. [[0, 5460]]. */
  slots: [number, number][];
  failed: boolean;
  /** A replica's master's id (null for a master). */
  masterId: string | null;
}

export class RedisCluster {
  private readonly procs = new Map<number, ChildProcess>();
  /** Nodes stopped by `pause` (SIGSTOP): asked nothing until resumed. */
  private readonly paused = new Set<number>();

  private constructor(readonly ports: number[], readonly dir: string) {}

  /** Starts 6 nodes on 6 free consecutive ports of 7100-7199 and creates the cluster. */
  static async start(): Promise<RedisCluster> {
    return RedisCluster.onFreePorts(6, (c) => c.create());
  }

  /**
   * One cluster-enabled node on a free port of 7100-7199 that joins no cluster
   * and serves no slot: a cluster that is not ok (cluster_state:fail).
   */
  static async startLoneNode(): Promise<RedisCluster> {
    return RedisCluster.onFreePorts(1, (c) => c.startNode(c.ports[0]!));
  }

  /** Runs `begin` on the first block of `size` free ports where no other process takes one first. */
  private static async onFreePorts(size: number, begin: (c: RedisCluster) => Promise<void>): Promise<RedisCluster> {
    for await (const base of freeClusterPortBlocks(size)) {
      const ports = Array.from({ length: size }, (_, i) => base + i);
      const c = new RedisCluster(ports, mkdtempSync(path.join(os.tmpdir(), 'holdfast-cluster-')));
      try {
        await begin(c);
        return c;
      } catch (err) {
        await c.stop();
        if (!/Address already in use|did not start/.test(String(err))) throw err;
      }
    }
    throw new Error(`no ${size} free port(s) in 7100-7199 for a Redis Cluster`);
  }

  /** REDIS_CLUSTER_NODES for this cluster. */
  get seeds(): string {
    return this.ports.map((p) => `127.0.0.1:${p}`).join(',');
  }

  get nodes(): { host: string; port: number }[] {
    return this.ports.map((port) => ({ host: '127.0.0.1', port }));
  }

  private async create(): Promise<void> {
    for (const p of this.ports) await this.startNode(p);
    await run('redis-cli', ['--cluster', 'create', ...this.ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], { timeout: 30_000 });
    await this.waitOk();
  }

  /**
   * Starts (or restarts, empty: no persistence) one node; its nodes.conf brings it back into the cluster.
   * A snapshot a replica's full sync left in its directory would be loaded at start: removed first.
   */
  async startNode(port: number): Promise<void> {
    const dir = path.join(this.dir, String(port));
    await run('mkdir', ['-p', dir]);
    await run('rm', ['-f', path.join(dir, 'dump.rdb')]);
    const proc = spawn('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
      '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '1000',
      '--cluster-require-full-coverage', 'no', '--save', '', '--appendonly', 'no',
      '--maxmemory-policy', 'noeviction', '--loglevel', 'warning',
    ], { stdio: 'ignore' });
    this.procs.set(port, proc);
    // The node must be this process: another suite's node may hold the port
    // (free when checked, taken since), and its PONG would pass for ours.
    const up = await waitFor(`redis-server on ${port} to answer as pid ${proc.pid} or exit`,
      async () => proc.exitCode !== null || (await answeringPid(port)) === proc.pid, { timeoutMs: 10_000, intervalMs: 50 })
      .catch(() => false);
    if (!up || proc.exitCode !== null) throw new Error(`redis-server on ${port} did not start${proc.exitCode !== null ? ` (exit ${proc.exitCode})` : ''}`);
  }

  /** SHUTDOWN NOSAVE of one node (its data is gone); waits for the process to end. */
  async shutdownNoSave(port: number): Promise<void> {
    const proc = this.procs.get(port);
    const exited = proc && proc.exitCode === null ? new Promise((r) => proc.once('exit', r)) : Promise.resolve();
    await cli(port, 'SHUTDOWN', 'NOSAVE').catch(() => undefined);
    await exited;
    this.procs.delete(port);
  }

  /** kill -9 of one node. */
  async kill(port: number): Promise<void> {
    const proc = this.procs.get(port);
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
    this.procs.delete(port);
    this.paused.delete(port);
  }

  /**
   * SIGSTOP of one node: its process stays, its sockets stay open, it answers
   * nothing and reads nothing (a replica stops taking its master's stream) until `resume`.
   */
  pause(port: number): void {
    const proc = this.procs.get(port);
    if (!proc || proc.exitCode !== null) throw new Error(`no redis-server of this cluster runs on ${port}`);
    proc.kill('SIGSTOP');
    this.paused.add(port);
  }

  /** SIGCONT of a node `pause` stopped. */
  resume(port: number): void {
    const proc = this.procs.get(port);
    if (!proc || proc.exitCode !== null) throw new Error(`no redis-server of this cluster runs on ${port}`);
    proc.kill('SIGCONT');
    this.paused.delete(port);
  }

  /** The port of the replica of the master on `masterPort`, as the cluster sees it now. */
  async replicaOf(masterPort: number): Promise<number> {
    const nodes = await this.topology();
    const master = nodes.find((n) => n.port === masterPort);
    const replica = nodes.find((n) => n.role === 'slave' && !n.failed && master && n.masterId === master.id);
    if (!replica) throw new Error(`no replica of ${masterPort}`);
    return replica.port;
  }

  /**
   * Promotes a replica at once without its master's agreement (CLUSTER FAILOVER TAKEOVER),
   * then waits until the cluster sees it serve slots.
   */
  async takeover(port: number, timeoutMs = 15_000): Promise<void> {
    const said = await cli(port, 'CLUSTER', 'FAILOVER', 'TAKEOVER');
    if (said !== 'OK') throw new Error(`CLUSTER FAILOVER TAKEOVER on ${port}: ${said}`);
    await waitFor(`${port} to serve slots as a master`, async () => (await this.masters().catch((): number[] => [])).includes(port), { timeoutMs, intervalMs: 50 });
  }

  /** The cluster as a node that answers sees it. */
  async topology(): Promise<ClusterNode[]> {
    for (const p of this.ports) {
      if (!this.procs.has(p) || this.paused.has(p)) continue;
      const text = await cli(p, 'CLUSTER', 'NODES').catch(() => '');
      if (!text) continue;
      return text.split('\n').map((line) => {
        const f = line.split(' ');
        const port = Number(f[1]!.split('@')[0]!.split(':')[1]);
        const slots = f.slice(8).filter((s) => /^\d/.test(s)).map((s) => {
          const [a, b] = s.split('-');
          return [Number(a), Number(b ?? a)] as [number, number];
        });
        return {
          port, id: f[0]!, role: f[2]!.includes('master') ? 'master' : 'slave', slots, failed: /fail/.test(f[2]!),
          masterId: f[3] === '-' ? null : f[3]!,
        };
      });
    }
    throw new Error('no node of the cluster answers');
  }

  /** Ports of the masters serving slots, as the cluster sees them now. */
  async masters(): Promise<number[]> {
    return (await this.topology()).filter((n) => n.role === 'master' && !n.failed && n.slots.length).map((n) => n.port).sort();
  }

  /**
   * The port of the running master serving a slot. Right after a master is stopped the node asked
   * may still list it as the slot's master (it is flagged failed only after the node timeout), and
   * right after a failover it may not have heard of the promotion yet (it learns by gossip). So this
   * waits, up to `timeoutMs`, for a master this cluster still runs, not flagged failed, to serve the slot.
   */
  async masterOfSlot(slot: number, timeoutMs = 10_000): Promise<number> {
    const serving = async () => (await this.topology()).find((n) => n.role === 'master' && !n.failed && this.procs.has(n.port)
      && n.slots.some(([a, b]) => slot >= a && slot <= b))?.port;
    return waitFor(`a running master to serve slot ${slot}`, serving, { timeoutMs, intervalMs: 50 })
      .catch((err: Error) => { throw new Error(`no master serves slot ${slot}: ${err.message}`); });
  }

  /** Waits until every running node says cluster_state:ok, 3 masters serve the slots and the other running nodes are their replicas. */
  async waitOk(timeoutMs = 30_000): Promise<void> {
    const ok = await waitFor('cluster_state:ok with 3 masters and their replicas', async () => {
      const states = await Promise.all([...this.procs.keys()].map((p) => cli(p, 'CLUSTER', 'INFO').catch(() => '')));
      const nodes = await this.topology().catch(() => []);
      const replicas = nodes.filter((n) => n.role === 'slave' && !n.failed).length;
      const linked = await Promise.all(nodes.filter((n) => n.role === 'slave' && !n.failed && this.procs.has(n.port))
        .map((n) => cli(n.port, 'INFO', 'replication').then((r) => r.includes('master_link_status:up'), () => false)));
      // Every slot served by 3 masters, and a replica attached (and in sync) to each master that runs.
      return states.every((s) => s.includes('cluster_state:ok')) && (await this.masters().catch(() => [])).length === 3
        && replicas >= this.procs.size - 3 && linked.every(Boolean);
    }, { timeoutMs, intervalMs: 100 }).catch(() => false);
    if (!ok) throw new Error('the Redis Cluster did not reach cluster_state:ok');
  }

  async stop(): Promise<void> {
    for (const p of [...this.procs.keys()]) await this.kill(p);
    rmSync(this.dir, { recursive: true, force: true });
    releasePorts(this.ports);
  }
}

/** The hash slot of a key (CRC16 of its hash tag), as Redis Cluster computes it. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

/**
 * For a suite on a Redis Cluster of its own: a beforeAll starts it and points
 * every API started after at it (REDIS_CLUSTER_NODES set, REDIS_URL unset).
 * `restore` puts both variables back and stops the cluster: give it to an
 * afterAll declared after the hooks that close what uses the cluster.
 */
export function useRedisCluster(): { cluster: RedisCluster; restore: () => Promise<void> } {
  let started: RedisCluster | undefined;
  const saved = { REDIS_URL: process.env.REDIS_URL, REDIS_CLUSTER_NODES: process.env.REDIS_CLUSTER_NODES };
  beforeAll(async () => {
    started = await RedisCluster.start();
    delete process.env.REDIS_URL;
    process.env.REDIS_CLUSTER_NODES = started.seeds;
  }, 60_000);
  return {
    cluster: standIn(() => {
      if (!started) throw new Error('useRedisCluster: the cluster is not started yet (use it inside a test or a hook)');
      return started;
    }),
    async restore() {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await started?.stop();
    },
  };
}
