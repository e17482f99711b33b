// The one-node concurrency suite, case by case, on a Redis Cluster of the test's
// own (3 masters, 3 replicas): the same buyers get the same answers and every
// invariant holds, whatever shard an event's slot lands on.
import { HOLD_ID_PATTERN } from '@holdfast/contracts';
import { cli, useRedisCluster } from '@holdfast/test-kit';

describe('on a Redis Cluster (3 masters, 3 replicas)', () => {
  const { cluster, restore } = useRedisCluster();

  // Every case of the one-node suite, unchanged: its beforeAll starts the API on the cluster.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the suite's tests are defined here, inside this describe
  require('./holds-concurrency.test');

  test('when the cases ran, then their expiry jobs wait on the cluster under the hash-tagged queue prefix', async () => {
    const found = await Promise.all((await cluster.masters()).map((p) => cli(p, '--scan', '--pattern', '{holdfast}:holdfast-expiry:*')));
    const jobIds = found.join('\n').split('\n').map((key) => key.slice('{holdfast}:holdfast-expiry:'.length));
    // A batch's job id: exp_<its first hold id>_<count>.
    expect(jobIds.some((id) => /^exp_.+_\d+$/.test(id) && HOLD_ID_PATTERN.test(id.slice(4, id.lastIndexOf('_'))))).toBe(true);
  });

  // After the suite's own afterAll, which closes the API on the cluster.
  afterAll(restore);
});
