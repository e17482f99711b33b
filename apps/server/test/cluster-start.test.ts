// Start-up on a Redis Cluster: a misconfiguration or a cluster that does not
// serve every slot stops `npm start` with one line.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

function run(env: Record<string, string | undefined>) {
  const child = spawn(tsx, [path.join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', WORKER_METRICS_PORT: '0', ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { exited, err: () => stderr };
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

test('when both REDIS_URL and REDIS_CLUSTER_NODES are set, then start-up stops with one line saying to set one', async () => {
  const p = run({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7100' });
  expect(await p.exited).toBe(1);
  expect(p.err().trim()).toBe('holdfast: Invalid configuration: set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both');
}, 60_000);

test('when REDIS_CLUSTER_NODES is not a list of host:port, then start-up stops naming it', async () => {
  const p = run({ REDIS_URL: undefined, REDIS_CLUSTER_NODES: 'redis://127.0.0.1:7100' });
  expect(await p.exited).toBe(1);
  expect(p.err().trim()).toBe('holdfast: Invalid configuration: REDIS_CLUSTER_NODES must be comma-separated host:port seeds');
}, 60_000);

test('when the cluster does not serve every slot (cluster_state:fail), then start-up stops with one line saying so', async () => {
  // A cluster-enabled node with no slots assigned: a cluster that is not ok.
  let port = 0;
  for (const p of Array.from({ length: 100 }, (_, i) => 7100 + i).sort(() => Math.random() - 0.5)) {
    if ((await portFree(p)) && (await portFree(p + 10000))) {
      port = p;
      break;
    }
  }
  expect(port).toBeGreaterThan(0);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'holdfast-cluster-node-'));
  const node: ChildProcess = spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--cluster-enabled', 'yes', '--save', '', '--appendonly', 'no',
  ], { stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 500));
    const p = run({ REDIS_URL: undefined, REDIS_CLUSTER_NODES: `127.0.0.1:${port}` });
    expect(await p.exited).toBe(1);
    const lines = p.err().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^holdfast: The Redis Cluster at 127\\.0\\.0\\.1:${port} is not ready \\(cluster_state:fail\\)`));
  } finally {
    const exited = new Promise((r) => node.once('exit', r));
    node.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

test('when no node of the cluster answers, then start-up stops with one line naming the seeds and the script', async () => {
  const p = run({ REDIS_URL: undefined, REDIS_CLUSTER_NODES: '127.0.0.1:1' });
  expect(await p.exited).toBe(1);
  const lines = p.err().trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^holdfast: Cannot reach the Redis Cluster at 127\.0\.0\.1:1 .*scripts\/redis-cluster\.sh start/);
}, 60_000);
