// scripts/redis-cluster.sh, as a developer runs it: start gives a 3-master,
// 3-replica cluster on loopback and prints the REDIS_CLUSTER_NODES to export;
// stop ends exactly those nodes and removes their data.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { cli, freeClusterPortBlocks, releasePorts } from '@holdfast/test-kit';

const run = promisify(execFile);
const script = path.resolve(__dirname, '..', 'scripts', 'redis-cluster.sh');

test('when the cluster script starts and stops, then 3 masters and 3 replicas serve every slot in between and nothing is left after', async () => {
  let base = 0;
  for await (const b of freeClusterPortBlocks(6)) {
    base = b;
    break;
  }
  expect(base).toBeGreaterThan(0);
  const parent = mkdtempSync(path.join(os.tmpdir(), 'holdfast-cluster-script-'));
  const dir = path.join(parent, 'nodes');
  const env = { ...process.env, REDIS_CLUSTER_BASE_PORT: String(base), REDIS_CLUSTER_DIR: dir };
  const ids: string[] = [];
  try {
    const { stdout } = await run(script, ['start'], { env, timeout: 60_000 });
    const seeds = Array.from({ length: 6 }, (_, i) => `127.0.0.1:${base + i}`).join(',');
    expect(stdout).toContain(`export REDIS_CLUSTER_NODES=${seeds}`);
    expect(await cli(base, 'CLUSTER', 'INFO')).toContain('cluster_state:ok');
    const nodes = (await cli(base, 'CLUSTER', 'NODES')).split('\n');
    expect(nodes.filter((l) => / (myself,)?master /.test(l))).toHaveLength(3);
    expect(nodes.filter((l) => / (myself,)?slave /.test(l))).toHaveLength(3);
    for (let i = 0; i < 6; i++) ids.push(await cli(base + i, 'CLUSTER', 'MYID'));
  } finally {
    await run(script, ['stop'], { env, timeout: 30_000 });
    releasePorts(Array.from({ length: 6 }, (_, i) => base + i));
  }
  // Gone: nothing answers on the port, or what answers is another suite's node that took the freed port.
  for (let i = 0; i < 6; i++) expect(await cli(base + i, 'CLUSTER', 'MYID').catch(() => 'gone')).not.toBe(ids[i]);
  expect(existsSync(dir)).toBe(false);
  rmSync(parent, { recursive: true, force: true });
}, 90_000);
