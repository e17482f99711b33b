import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from './child-process';
import { waitFor } from './wait';

/** A free loopback port (the OS picks one; it is released before use). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}


/**
 * The process id of the redis-server answering on the port (its INFO server), or
 * null when nothing answers there as a Redis does.
 */
function serverPid(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let text = '';
    const done = (pid: number | null) => {
      sock.destroy();
      resolve(pid);
    };
    sock.setTimeout(300, () => done(null));
    sock.once('error', () => done(null));
    sock.once('connect', () => sock.write('INFO server\r\n'));
    sock.on('data', (d) => {
      text += d.toString();
      const pid = /process_id:(\d+)/.exec(text);
      if (pid) done(Number(pid[1]));
      else if (text.startsWith('-')) done(null);
    });
  });
}

/** The port was taken between freePort and redis-server's bind: by what answered there instead, or its bind failed. */
class PortTakenError extends Error {}

/**
 * A redis-server of the test's own on a spare loopback port, without
 * persistence (`--save ""`): a restart comes back empty, as after a crash
 * without AOF. Faults never touch the shared Redis. Its working directory is
 * its own (a replica's full sync writes the master's snapshot there, and a
 * redis-server loads a snapshot it finds at start): emptied before each start.
 */
export class RedisProcess {
  private proc: ChildProcess | null = null;
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'holdfast-redis-'));

  private constructor(readonly port: number) {}

  /**
   * Starts one on a free port; when another process took that port first (freePort
   * releases it before redis-server binds it), on another one.
   */
  static async start(): Promise<RedisProcess> {
    for (let attempt = 1; ; attempt += 1) {
      const r = new RedisProcess(await freePort());
      try {
        await r.start();
        return r;
      } catch (err) {
        rmSync(r.dir, { recursive: true, force: true });
        if (!(err instanceof PortTakenError) || attempt === 5) throw err;
      }
    }
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** Starts the server (a no-op while it runs). */
  async start(): Promise<void> {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) return;
    mkdirSync(this.dir, { recursive: true });
    rmSync(path.join(this.dir, 'dump.rdb'), { force: true });
    this.proc = spawn('redis-server', [
      '--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir,
      '--maxmemory-policy', 'noeviction', '--loglevel', 'warning',
    ], { stdio: 'ignore' });
    const port = this.port;
    const proc = this.proc;
    // The server answering must be this one: a relay or a server of another test that took the
    // port would otherwise answer PING, and the suite would run (and FLUSHALL) on its Redis.
    const answer = await waitFor(`redis-server on port ${port} to answer`, async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return 'exited';
      const pid = await serverPid(port);
      return pid !== null && (pid === proc.pid ? 'ours' : 'another process');
    }, { timeoutMs: 10_000, intervalMs: 50 }).catch(() => { throw new Error(`redis-server on port ${port} did not start`); });
    if (answer !== 'ours') {
      await this.kill();
      throw new PortTakenError(`redis-server on port ${port}: ${answer === 'exited' ? 'it exited (the port is taken)' : 'another process answers there'}`);
    }
  }

  /** kill -9: the data is gone (no persistence). */
  async kill(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
    this.proc = null;
  }

  /** SIGSTOP: the server keeps its data and its connections but answers nothing. */
  pause(): void {
    this.proc?.kill('SIGSTOP');
  }

  resume(): void {
    this.proc?.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    this.resume();
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * For a suite whose server or worker processes run on Redis: a redis-server of
 * its own, named by REDIS_URL for everything the suite starts (its processes
 * inherit it), so their workers never take another suite's jobs and what they
 * write goes with the server. Call it before the suite's other hooks, and
 * register `stop` as the suite's last afterAll (hooks run in the order they are
 * declared): it restores REDIS_URL and stops the server.
 */
export function useOwnRedis(): { stop: () => Promise<void> } {
  let redis: RedisProcess | undefined;
  const saved = process.env.REDIS_URL;
  beforeAll(async () => {
    redis = await RedisProcess.start();
    process.env.REDIS_URL = redis.url;
  });
  return {
    async stop() {
      if (saved === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = saved;
      await redis?.stop();
    },
  };
}

/** Writes a fault test's measurements where the closing report can read them. */
export function recordMeasurements(name: string, data: unknown): void {
  const dir = path.join(REPO_ROOT, 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(data, null, 2)}\n`);
  process.stdout.write(`\n[fault ${name}] ${JSON.stringify(data)}\n`);
}
