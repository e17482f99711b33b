// The hold path's CPU per request in every process a run used (machine-cpu.probe.ts):
// read from /proc for real processes doing real work, PostgreSQL's counted by database.
import { spawn } from 'node:child_process';
import Redis from 'ioredis';
import { Client } from 'pg';
import { isolatedDatabaseUrl } from '@holdfast/test-kit';
import { databaseName } from '../src/bench-database.service';
import { findPostmasterPid, findRedisPid, withMachineCpu, withProcessesCpu } from '../src/machine-cpu.probe';

// A database of its own: PostgreSQL's CPU is counted by database, and the other suites running
// beside this one would be charged to the shared test database.
const databaseUrl = isolatedDatabaseUrl('machinecpu');
const redisUrl = process.env.REDIS_URL!;

/**
 * A child process that, once started, spends `cpuMs` of its own CPU, says "spent", then idles
 * until stopped (a process that has exited can no longer be read).
 */
function child(cpuMs: number): { pid: number; spent: Promise<void>; stop: () => Promise<void> } {
  const script = `
    process.stdin.resume();
    const start = process.cpuUsage();
    while (true) { const u = process.cpuUsage(start); if ((u.user + u.system) / 1000 >= ${cpuMs}) break; }
    process.stdout.write('spent\\n');`;
  const proc = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  const spent = new Promise<void>((resolve) => proc.stdout.on('data', (d: Buffer) => { if (d.toString().includes('spent')) resolve(); }));
  return { pid: proc.pid!, spent, stop: () => { proc.kill(); return exited; } };
}

test('when the server process spends 400 ms of CPU over 4 requests, then at least 100 ms a request is charged to the server and none of it to this client', async () => {
  const server = child(400);
  try {
    const own = process.cpuUsage();
    const { cpu } = await withMachineCpu({ serverPid: server.pid, redisPid: null, postmasterPid: null, postgresDatabases: null }, () => 4, () => server.spent);
    const spent = process.cpuUsage(own);
    expect(cpu).not.toBeNull();
    // 400 ms spent in the window (plus what node's start-up spent after the first reading), ÷ 4, at 10 ms ticks.
    expect(cpu!.server).toBeGreaterThanOrEqual(97.5);
    expect(cpu!.server).toBeLessThanOrEqual(200);
    // The client is this process alone, none of the server's 400 ms: at most what this process spent around
    // the call. (Not a fixed bound: its own threads vary; a long-lived jest worker once spent 640 ms on a busy machine.)
    expect(cpu!.client * 4).toBeLessThanOrEqual((spent.user + spent.system) / 1000 + 0.01);
    expect(cpu!.redis).toBeNull();
    expect(cpu!.postgres).toBeNull();
  } finally {
    await server.stop();
  }
});

test('when a run has no server process, then its server CPU is null and the others are still read', async () => {
  const postmasterPid = await findPostmasterPid();
  const busy = new Client({ connectionString: databaseUrl });
  await busy.connect();
  try {
    const burn = () => busy.query('SELECT count(*) FROM generate_series(1, 4000000)');
    await burn(); // the session exists and is warm before either reading
    const { spentMs } = await withProcessesCpu({ serverPid: null, redisPid: null, postmasterPid, postgresDatabases: [databaseName(databaseUrl)] }, burn);
    expect(spentMs.server).toBeNull();
    expect(spentMs.redis).toBeNull();
    expect(spentMs.postgres).toBeGreaterThanOrEqual(100);
    expect(spentMs.client).toEqual(expect.any(Number));
    expect(spentMs.machine).toEqual(expect.any(Number));
  } finally {
    await busy.end();
  }
});

test('when a session on one database burns CPU, then PostgreSQL counted for that database includes it and counted for another database does not', async () => {
  const postmasterPid = await findPostmasterPid();
  expect(postmasterPid).not.toBeNull();
  const busy = new Client({ connectionString: databaseUrl });
  await busy.connect();
  const self = child(0); // any live process as the "server"
  try {
    const burn = () => busy.query('SELECT count(*) FROM generate_series(1, 4000000)');
    await burn(); // the session exists and is warm before either reading
    const measure = (postgresDatabases: string[]) =>
      withMachineCpu({ serverPid: self.pid, redisPid: null, postmasterPid, postgresDatabases }, () => 1, burn);
    const ours = await measure([databaseName(databaseUrl)]);
    const other = await measure(['holdfast_no_such_database']);
    expect(ours.cpu!.postgres).toBeGreaterThanOrEqual(100);
    expect(other.cpu!.postgres!).toBeLessThan(ours.cpu!.postgres! / 4);
  } finally {
    await busy.end();
    await self.stop();
  }
});

test('when a session that had burnt CPU ends during the run, then PostgreSQL is charged nothing for it, not its past work taken off', async () => {
  const postmasterPid = await findPostmasterPid();
  const ending = new Client({ connectionString: databaseUrl });
  await ending.connect();
  await ending.query('SELECT count(*) FROM generate_series(1, 4000000)'); // a few hundred ms, before the first reading
  const self = child(0);
  try {
    const { cpu } = await withMachineCpu(
      { serverPid: self.pid, redisPid: null, postmasterPid, postgresDatabases: [databaseName(databaseUrl)] }, () => 1,
      async () => {
        await ending.end();
        await new Promise((resolve) => setTimeout(resolve, 200)); // the session's process is gone
      },
    );
    expect(cpu!.postgres).toBeGreaterThanOrEqual(0);
    expect(cpu!.postgres).toBeLessThan(100);
  } finally {
    await self.stop();
  }
});

test('when Redis runs on this machine, then its process is found and the commands sent meanwhile are charged to it', async () => {
  const redisPid = await findRedisPid(redisUrl);
  expect(redisPid).not.toBeNull();
  const redis = new Redis(redisUrl);
  const self = child(0);
  const key = `test:machine-cpu:${process.pid}`;
  try {
    const { cpu } = await withMachineCpu({ serverPid: self.pid, redisPid, postmasterPid: null, postgresDatabases: null }, () => 1, async () => {
      for (let i = 0; i < 100; i += 1) {
        const batch = redis.pipeline();
        for (let j = 0; j < 2_000; j += 1) batch.incr(key);
        await batch.exec();
      }
    });
    // 200,000 INCRs cost redis-server a hundred milliseconds or more. The kernel charges CPU by the
    // 10 ms tick a process is caught running at, so 40,000 (some 20-40 ms in short bursts) read 0
    // in two of some fifteen runs here, on a busy machine.
    expect(cpu!.redis).toBeGreaterThan(0);
    expect(cpu!.client).toBeGreaterThan(0);
  } finally {
    await redis.del(key);
    redis.disconnect();
    await self.stop();
  }
});

test('when Redis is not on this machine (an address nothing answers at), then no Redis process is claimed', async () => {
  expect(await findRedisPid('redis://127.0.0.1:1')).toBeNull();
});
