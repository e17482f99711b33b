export * from './errors';
export * from './context';
export * from './ids';
export * from './hold-view';
export { appErrorOf } from './app-error-of';
export {
  createEvent, updateEvent, getEvent, listEvents, listSeats, type EventView, type SeatView, type CreateEventInput,
} from './events';
export { extendHold } from './extend-hold';
export { saleState, assertSaleOpen, type SaleState } from './sale-window';
export { eventSales, type EventSales } from './event-sales';
export { adminMarkRefunded } from './admin-payments';
export { createHold, countRefusedHoldRequest, type CreateHoldInput, type HoldSelector, type KeyClaim } from './create-hold';
export { getHold, releaseHold, findAnyHold, type Principal, type Releaser } from './holds';
export { primeEvent, ensurePrimed } from './prime-event';
export { compareSeat, sortTierSeats } from './best-available';
export { EventCatalog, type Catalog } from './event-catalog';
export { syncSeatIndex, seatIndexLayout, type SeatIndexSync } from './seat-index';
export type { Page } from './paging';
export { adminListHolds, adminReleaseHold, type AdminHoldQuery } from './admin-holds';
export { adminListOrders } from './admin-orders';
export { adminListPayments, type PaymentView, type PaymentStatus } from './admin-payments';
export { adminListAudit, type AuditEntryView } from './admin-audit';
export { expireHold, expireHolds, expireDueHolds, EXPIRE_HOLDS_PER_TRANSACTION, type ExpireOutcome } from './expire-hold';
export {
  reconcile, lastReconcileReport, REPAIR_KINDS, type RepairKind, type RepairEntry, type ReconcileReport, type ReconcileOptions,
} from './reconcile';
export { HoldPersister, type PersistedHold } from './hold-persister';
export {
  claimHoldLease, confirmHold, finishConfirm, type ConfirmInput, type ConfirmOptions, type ConfirmResult,
  type ConfirmTxOutcome, type HoldClaim, type PaymentInput,
} from './confirm-hold';
export {
  ConfirmBatcher, confirmBatchSettings, DEFAULT_CONFIRM_BATCH, type ConfirmBatchSettings, type ConfirmBatchStats,
} from './confirm-batcher';
export { getOrder, orderFromRow, type Order } from './orders';
export { applyStripePayment, type StripePayment, type StripeOutcome } from './apply-stripe-payment';
export { recordWebhookEvent } from './webhook-events';
export {
  joinWaitlist, myWaitlist, leaveWaitlist, adminWaitlist, waitlistNumbers,
  type WaitlistEntryView, type AdminWaitlistEntryView, type JoinWaitlistInput, type WaitlistLeaver,
} from './waitlist';
export { restoreWaitlist, scopeOf } from './waitlist-line';
export {
  joinQueue, queueStanding, queueAdminState, updateQueue, endQueuePass, proofOfWorkHolds, watchQueue,
  type QueueView, type QueueAdminView,
} from './waiting-room';
export { QueueTicker, QUEUE_TICK_MS, type QueueTickStats } from './queue-ticker';
export {
  registerWebhook, listWebhooks, setWebhookEnabled, deleteWebhook, listWebhookDeliveries,
  type WebhookView, type WebhookWithSecret, type WebhookDeliveryView,
} from './admin-webhooks';
export {
  deliverWebhook, dispatchWebhookDeliveries, requeueWebhookDeliveries, signWebhook, webhookRetryDelayMs, DEFAULT_WEBHOOK_DELIVERY, SIGNATURE_HEADER,
  type DeliverOutcome, type WebhookDeliverySettings,
} from './deliver-webhook';
export {
  purgeWebhookHistory, DEFAULT_PURGE_BATCH_SIZE, DEFAULT_PURGE_BUDGET_MS, type PurgeWebhookHistoryOptions, type PurgeWebhookHistoryReport,
} from './purge-webhook-history';
export { checkWebhookUrl, isPrivateAddress, type WebhookUrlPolicy } from './webhook-url';
export { cancelOrder, type CancelOrderInput } from './cancel-order';
