#!/usr/bin/env node
// `node scripts/measure-start.mjs [runs]`: time to ready and idle resident
// memory of the server run through tsx (the TypeScript source, as `npm start`
// ran it before the compiled build) and run by node (the compiled build, as
// `npm start` and the Docker image run it), alternated, `runs` each (default 3).
//
// Each run starts the command in a process group of its own with
// NODE_ENV=production (no demo event), on the database in DATABASE_URL
// (created and migrated by the first run, so every measured run applies no
// migration) and REDIS_URL; time to ready is from spawn to the first 200 from
// /readyz; idle memory is the sum of VmRSS over every process of the group
// (the API, the worker, and tsx's own processes) 15 s after ready, the worker
// started. Then SIGTERM to the group. Build first: `npm run build:server`.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const runs = Number(process.argv[2] ?? 3);
const port = Number(process.env.MEASURE_PORT ?? 3950);
const IDLE_MS = 15_000;
const variants = {
  tsx: [path.join(root, 'node_modules/.bin/tsx'), ['--max-semi-space-size=64', 'apps/server/src/main.ts']],
  node: [process.execPath, ['--max-semi-space-size=64', 'apps/server/dist/main.js']],
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** [pid, command, rss KiB] of every process in process group `pgid`. */
function group(pgid) {
  const found = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 90);
      found.push([Number(pid), cmd, rss]);
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

async function ready() {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

async function once(name) {
  const [cmd, args] = variants[name];
  const env = {
    ...process.env, PORT: String(port), NODE_ENV: 'production', LOG_FORMAT: 'json', LOG_LEVEL: 'info', WORKER_METRICS_PORT: '0',
    JWT_SECRET: process.env.JWT_SECRET ?? 'measure-start-secret-0123456789abcdef', STRIPE_WEBHOOK_SECRET: process.env.STRIPE_WEBHOOK_SECRET ?? 'whsec_measure_start',
  };
  let out = '';
  const started = performance.now();
  const child = spawn(cmd, args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => child.on('exit', r));
  try {
    while (!(await ready())) {
      if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}: ${out}`);
      if (performance.now() - started > 180_000) throw new Error(`${name} not ready after 180 s: ${out}`);
      await sleep(50);
    }
    const readyMs = performance.now() - started;
    while (!out.includes('"msg":"worker started"')) await sleep(100);
    await sleep(IDLE_MS);
    const procs = group(child.pid);
    return { name, readyMs, rssMiB: procs.reduce((s, p) => s + p[2], 0) / 1024, procs };
  } finally {
    process.kill(-child.pid, 'SIGTERM');
    const t = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 30_000);
    await exited;
    clearTimeout(t);
    while (group(child.pid).length) await sleep(100);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
await once('node'); // creates and migrates the database; not counted
const results = [];
for (let i = 0; i < runs; i++) {
  for (const name of i % 2 ? ['node', 'tsx'] : ['tsx', 'node']) {
    const r = await once(name);
    results.push(r);
    console.log(`${name.padEnd(4)} ready ${(r.readyMs / 1000).toFixed(2)} s, idle RSS ${r.rssMiB.toFixed(0)} MiB: ${r.procs.map((p) => `${p[1].split(' ').slice(0, 3).join(' ')} ${(p[2] / 1024).toFixed(0)}`).join('; ')}`);
  }
}
for (const name of ['tsx', 'node']) {
  const mine = results.filter((r) => r.name === name);
  console.log(`${name}: ready ${mine.map((r) => (r.readyMs / 1000).toFixed(2)).join(', ')} s (median ${(median(mine.map((r) => r.readyMs)) / 1000).toFixed(2)}); idle RSS ${mine.map((r) => r.rssMiB.toFixed(0)).join(', ')} MiB (median ${median(mine.map((r) => r.rssMiB)).toFixed(0)})`);
}
