export * from './hold-store';
export {
  eventKeys, eventKeyPattern, parseEventKey, globalKeys, CHANGE_CHANNEL_PATTERN,
  type EventKeys, type EventKeyKind, type SingleKeyKind, type PerIdKeyKind, type ParsedEventKey,
} from './keys';
export { ENDED_HOLD_TTL_MS, HOLD_RECORD_TTL_MS, RATE_LIMIT_WINDOW_MS, IDEMPOTENCY_TTL_SECONDS } from './ttls';
export { StoreUnavailableError, translateRedisError, type StoreUnavailableReason } from './store-errors';
export { IdempotencyStore, type IdempotencyClaim } from './idempotency-store';
export { ReconcileStore, type EventKeyScan, type KeyGivenTtl, type TicketCounters } from './reconcile-store';
export { maxmemoryPolicy } from './redis-info';
export { ChangeFeed, type Change } from './change-feed';
export {
  createRedisClient, clusterOptions, clusterState, isCluster, masters, reconnectOnReadOnly, redisOptionsFromUrl,
  type ClientOptions, type RedisClient, type RedisTarget,
} from './redis-client';
export { SCRIPT_FILE_NAMES, scriptFiles, scriptSource, type ScriptName } from './scripts';
export {
  QueueStore, queuePassEvent, queuePassPrefix,
  type QueueRoom, type QueueTick, type QueueStanding, type QueueState, type JoinResult,
} from './queue-store';
