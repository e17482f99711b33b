export {
  createHoldfastClient, type AuditEntry, type CallMethod, type Event, type Hold, type HoldfastClient, type HoldfastClientOptions, type HoldItem,
  type HoldRequest, type Order, type Payment, type QueueStanding, type RetryOptions, type Sales, type Seat,
} from './client';
export { HoldfastError, isHoldfastError, type ErrorBody, type ErrorCode, type TransportErrorCode } from './holdfast-error';
export { type EventStreamOptions, type StreamItem } from './event-stream';
export { readSse, type SseMessage } from './sse-parser';
export type { components, operations, paths } from './api.generated';
export { idempotentOperations } from './api.generated';
