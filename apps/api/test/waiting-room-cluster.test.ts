// The waiting room suite, case by case, on a Redis Cluster of the test's own
// (3 masters, 3 replicas): every key of a room is in its event's hash slot, so
// places, admission and passes are decided there as on one Redis.
import { useRedisCluster } from '@holdfast/test-kit';

describe('on a Redis Cluster (3 masters, 3 replicas)', () => {
  const { restore } = useRedisCluster();

  // Every case of the one-node suite, unchanged: its beforeAll starts the API on the cluster.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the suite's tests are defined here, inside this describe
  require('./waiting-room.test');

  // After the suite's own afterAll, which closes the API on the cluster.
  afterAll(restore);
});
