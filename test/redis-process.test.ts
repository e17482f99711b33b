// The test kit's own Redis servers start empty whatever ran before them. A replica's full sync
// writes the master's snapshot into the replica's working directory, and redis-server loads a
// snapshot it finds there at start: with every server in the repository's root, one suite's
// failover leaked its keys into every later suite's "fresh" Redis.
import { cli, RedisProcess, waitFor } from '@holdfast/test-kit';

test('when a replica has synced from a master, then the replica restarted and a new server both start empty', async () => {
  const [master, replica] = await Promise.all([RedisProcess.start(), RedisProcess.start()]);
  let fresh: RedisProcess | null = null;
  try {
    await cli(master.port, 'SET', 'kit:marker', '1');
    await cli(replica.port, 'REPLICAOF', '127.0.0.1', String(master.port));
    await waitFor('the replica synced', async () => (await cli(replica.port, 'GET', 'kit:marker')) === '1', { timeoutMs: 10_000, intervalMs: 50 });

    await replica.kill();
    await replica.start();
    expect(await cli(replica.port, 'DBSIZE')).toBe('0');
    fresh = await RedisProcess.start();
    expect(await cli(fresh.port, 'DBSIZE')).toBe('0');
  } finally {
    await Promise.all([master.stop(), replica.stop(), fresh?.stop()]);
  }
});
