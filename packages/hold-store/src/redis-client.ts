import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** One Redis node (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES): every store takes either. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: the one node's URL, or the cluster's seeds. */
export interface RedisTarget {
  redisUrl: string;
  redisClusterNodes: { host: string; port: number }[] | null;
}

export function isCluster(redis: RedisClient): redis is Cluster {
  return redis instanceof Cluster;
}

/**
 * Per-connection options as each caller wants them (timeouts, retries). On a
 * cluster, `retryStrategy` becomes the cluster's reconnect strategy and
 * `enableOfflineQueue` the cluster's own; the rest applies to every node's
 * connection. `subscriber` turns on sharded pub/sub (SSUBSCRIBE per shard).
 */
export interface ClientOptions extends Omit<RedisOptions, 'host' | 'port' | 'path' | 'sentinels'> {
  subscriber?: boolean;
}

/** Options of one node's connection from a redis:// URL (BullMQ takes options, not a URL). */
export function redisOptionsFromUrl(url: string) {
  const u = new URL(url);
  const db = u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : 0;
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    db: Number.isInteger(db) ? db : 0,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/** The options ioredis' Cluster takes for the given per-connection options. */
export function clusterOptions(options: ClientOptions = {}): ClusterOptions {
  const { subscriber, retryStrategy, enableOfflineQueue, lazyConnect, readOnly: _readOnly, db: _db, ...node } = options;
  return {
    lazyConnect,
    enableOfflineQueue,
    // A shard whose master died answers CLUSTERDOWN or refuses connections until a
    // replica is promoted: re-read the slot map soon, and retry within the budget.
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: 1000,
    slotsRefreshInterval: 2000,
    maxRedirections: 8,
    clusterRetryStrategy: retryStrategy ? (times) => retryStrategy(times) : undefined,
    shardedSubscribers: subscriber === true,
    redisOptions: node,
  };
}

/**
 * ioredis' reconnectOnError for one Redis behind an endpoint: a connection that is
 * answered READONLY reconnects. A managed Redis's primary endpoint (one name) moves
 * to the promoted replica on a failover, but an open connection stays on the demoted
 * node, which refuses every write for as long as the connection lasts. The command
 * that failed is not sent again (1, not 2): its caller answers 503 and the buyer
 * retries, on the new connection. At most one reconnect a `minGapMs` for each
 * connection: a Redis that stays read-only (a replica named by mistake) is not
 * reconnected to at the rate of its refusals. The connections made from one options
 * object (BullMQ makes several) each keep their own gap: ioredis calls the function
 * as a method of the connection's own copy of the options, which is what tells them
 * apart here; called bare, the calls share one gap. (A cluster follows its failovers
 * by itself.)
 */
export function reconnectOnReadOnly(minGapMs = 1000): (this: unknown, err: Error) => 1 | false {
  const lastOf = new WeakMap<object, number>();
  const bare = {};
  return function reconnectOnError(this: unknown, err: Error) {
    if (!err.message.startsWith('READONLY')) return false;
    const connection = typeof this === 'object' && this !== null ? this : bare;
    const now = Date.now();
    if (now - (lastOf.get(connection) ?? -Infinity) < minGapMs) return false;
    lastOf.set(connection, now);
    return 1;
  };
}

/** A client for REDIS_URL, or for the cluster of REDIS_CLUSTER_NODES when set. */
export function createRedisClient(target: RedisTarget, options: ClientOptions = {}): RedisClient {
  if (target.redisClusterNodes) return new Cluster(target.redisClusterNodes, clusterOptions(options));
  const { subscriber: _subscriber, ...rest } = options;
  return new Redis(target.redisUrl, { reconnectOnError: reconnectOnReadOnly(), ...rest });
}

/** The master nodes (every node for one Redis): SCAN and INFO go to each. */
export function masters(redis: RedisClient): Redis[] {
  return isCluster(redis) ? redis.nodes('master') : [redis];
}

/** `CLUSTER INFO`'s cluster_state of a cluster ("ok" when every slot is served). */
export async function clusterState(redis: Cluster): Promise<string> {
  const info = String(await redis.cluster('INFO'));
  return /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown';
}
