export * from './hold-store';
export { eventKeys, CHANGE_CHANNEL_PATTERN, type EventKeys } from './keys';
export { ChangeFeed, type Change } from './change-feed';
