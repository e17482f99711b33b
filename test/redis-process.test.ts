// The test kit's own Redis servers start empty whatever ran before them. A replica's full sync
// writes the master's snapshot into the replica's working directory, and redis-server loads a
// snapshot it finds there at start: with every server in the repository's root, one suite's
// failover leaked its keys into every later suite's "fresh" Redis.
import net from 'node:net';
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

// A suite's own redis-server must be the server its clients reach: freePort releases its port
// before redis-server binds it, and a relay of another suite (listening again on a port it had)
// could take it first and answer PING for the machine's shared Redis.
test('when another process answers on the port a redis-server of the test\'s own starts on, then the start fails instead of running on that other Redis', async () => {
  const own = await RedisProcess.start();
  await own.kill();
  // A relay to the shared Redis takes the port, as a TCP relay of another suite could.
  const relay = net.createServer((client) => {
    const upstream = net.connect(6379, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(own.port, '127.0.0.1', resolve));
  try {
    await expect(own.start()).rejects.toThrow(new RegExp(`redis-server on port ${own.port}: `));
  } finally {
    await new Promise((resolve) => relay.close(resolve));
    await own.stop();
  }
  // A start on a free port is the server it spawned, as before.
  const next = await RedisProcess.start();
  try {
    expect(next.port).toBeGreaterThan(0);
  } finally {
    await next.stop();
  }
});
