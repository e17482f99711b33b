// The one-node concurrency suite, case by case, on a Redis Cluster of the test's
// own (3 masters, 3 replicas): the same buyers get the same answers and every
// invariant holds, whatever shard an event's slot lands on.
import { cli, holdPost, seatGrid, useRedisCluster, useTestApi } from '@holdfast/test-kit';

describe('on a Redis Cluster (3 masters, 3 replicas)', () => {
  const { cluster, restore } = useRedisCluster();

  // Every case of the one-node suite, unchanged: its beforeAll starts the API on the cluster.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the suite's tests are defined here, inside this describe
  require('./holds-concurrency.test');

  // An API of this block's own on the cluster (the suite's is its module's): its event is dropped, jobs and all, after.
  const { api, newEvent } = useTestApi();

  test('when a hold is persisted, then its expiry job waits on the cluster under the hash-tagged queue prefix', async () => {
    const { event, seats } = await newEvent({ seats: seatGrid(['A'], 1, 1) });
    const held = await holdPost(api, event.id, 'cluster-expiry-job', { seatIds: [seats[0]!.id] });
    expect(held.status).toBe(201);
    await api.rt.ctx.persister.flush();
    const found = await Promise.all((await cluster.masters()).map((p) => cli(p, '--scan', '--pattern', '{holdfast}:holdfast-expiry:*')));
    const jobIds = found.join('\n').split('\n').map((key) => key.slice('{holdfast}:holdfast-expiry:'.length));
    // A batch's job id: exp_<its first hold id>_<count>.
    expect(jobIds).toContain(`exp_${held.body.hold.id}_1`);
  });

  // After the suite's own afterAll, which closes the API on the cluster.
  afterAll(restore);
});
