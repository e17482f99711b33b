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

/** A client for REDIS_URL, or for the cluster of REDIS_CLUSTER_NODES when set. */
export function createRedisClient(target: RedisTarget, options: ClientOptions = {}): RedisClient {
  if (target.redisClusterNodes) return new Cluster(target.redisClusterNodes, clusterOptions(options));
  const { subscriber: _subscriber, ...rest } = options;
  return new Redis(target.redisUrl, rest);
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
