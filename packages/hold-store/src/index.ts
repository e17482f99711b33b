export * from './hold-store';
export { eventKeys, CHANGE_CHANNEL_PATTERN, type EventKeys } from './keys';
export { IdempotencyStore, IDEMPOTENCY_TTL_SECONDS, type IdempotencyClaim } from './idempotency-store';
export { ChangeFeed, type Change } from './change-feed';
