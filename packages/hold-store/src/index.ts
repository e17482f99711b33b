export * from './hold-store';
export { eventKeys, CHANGE_CHANNEL_PATTERN, type EventKeys } from './keys';
export { IdempotencyStore, IDEMPOTENCY_TTL_SECONDS, type IdempotencyClaim } from './idempotency-store';
export { ReconcileStore, type EventKeyScan, type TicketCounters } from './reconcile-store';
export { maxmemoryPolicy } from './redis-info';
export { ChangeFeed, RedisUnavailable, type Change } from './change-feed';
export {
  createRedisClient, clusterOptions, clusterState, isCluster, masters, redisOptionsFromUrl,
  type ClientOptions, type RedisClient, type RedisTarget,
} from './redis-client';
export { SCRIPT_FILE_NAMES, scriptFiles, scriptSource, type ScriptName } from './scripts';
