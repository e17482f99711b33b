// Start-up on a Redis Cluster: a misconfiguration or a cluster that does not
// serve every slot stops `npm start` with one line.
import { RedisCluster, ServerProcess } from '@holdfast/test-kit';

test('when both REDIS_URL and REDIS_CLUSTER_NODES are set, then start-up stops with one line saying to set one', async () => {
  const p = ServerProcess.start({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7100' });
  expect(await p.exited).toBe(1);
  expect(p.stderr.trim()).toBe('holdfast: Invalid configuration: set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both');
}, 60_000);

test('when REDIS_CLUSTER_NODES is not a list of host:port, then start-up stops naming it', async () => {
  const p = ServerProcess.start({ REDIS_URL: undefined, REDIS_CLUSTER_NODES: 'redis://127.0.0.1:7100' });
  expect(await p.exited).toBe(1);
  expect(p.stderr.trim()).toBe('holdfast: Invalid configuration: REDIS_CLUSTER_NODES must be comma-separated host:port seeds');
}, 60_000);

test('when the cluster does not serve every slot (cluster_state:fail), then start-up stops with one line saying so', async () => {
  // A cluster-enabled node with no slots assigned: a cluster that is not ok.
  const node = await RedisCluster.startLoneNode();
  const port = node.ports[0]!;
  expect(port).toBeGreaterThan(0);
  try {
    const p = ServerProcess.start({ REDIS_URL: undefined, REDIS_CLUSTER_NODES: `127.0.0.1:${port}` });
    expect(await p.exited).toBe(1);
    const lines = p.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^holdfast: The Redis Cluster at 127\\.0\\.0\\.1:${port} is not ready \\(cluster_state:fail\\)`));
  } finally {
    await node.stop();
  }
}, 60_000);

test('when no node of the cluster answers, then start-up stops with one line naming the seeds and the script', async () => {
  const p = ServerProcess.start({ REDIS_URL: undefined, REDIS_CLUSTER_NODES: '127.0.0.1:1' });
  expect(await p.exited).toBe(1);
  const lines = p.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^holdfast: Cannot reach the Redis Cluster at 127\.0\.0\.1:1 .*scripts\/redis-cluster\.sh start/);
}, 60_000);
