import type { Db } from '@holdfast/db';
import type { HoldStore, IdempotencyStore, QueueTick } from '@holdfast/hold-store';
import { ConfirmBatcher, confirmBatchSettings, type ConfirmBatchSettings } from './confirm-batcher';
import { EventCatalog } from './event-catalog';
import { HoldPersister, type PersistedHold } from './hold-persister';
import type { WebhookDeliverySettings } from './deliver-webhook';
import { QueueTicker } from './queue-ticker';
import { queueRoom } from './waiting-room';

/** The logging methods the domain uses (pino's shape). */
export interface Logger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** Outcome counters the domain reports; the apps back them with Prometheus. */
export interface DomainMetrics {
  holdOutcome(result: string): void;
  confirmOutcome(result: string): void;
  holdsExpired(count: number): void;
  /** A confirm batch of this many confirms committed, its statement having taken this long (group commit). */
  confirmBatch?(size: number, seconds: number): void;
  /** Outbox records PostgreSQL refused, parked so the others go on. */
  outboxParked(count: number): void;
  /** What a waiting room call's lazy admission did (admitted, passes ended by time, waits) and the room's numbers. */
  queueTick?(eventId: string, tick: QueueTick): void;
  /** The admission tick ran its script once (for one room). */
  queueTickRun?(): void;
  /** A queue pass ended by its buyer's confirm or release. */
  queuePassEnded?(reason: 'confirmed' | 'released'): void;
  /**
   * A hold request took over its Idempotency-Key from a request that never answered, and
   * answered that request's hold, took its hold id, or held afresh (create-hold.ts).
   */
  holdKeyTakeover?(outcome: 'answered' | 'took_its_id' | 'afresh'): void;
}

export const noMetrics: DomainMetrics = { holdOutcome() {}, confirmOutcome() {}, holdsExpired() {}, outboxParked() {} };
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export interface DomainSettings {
  holdRateLimitPerMinute: number;
  /** Group commit of confirms; defaults from DEFAULT_CONFIRM_BATCH. */
  confirmBatch?: Partial<ConfirmBatchSettings>;
  /** Per event: holds not yet persisted in PostgreSQL past which new holds answer 503 (default 100000). */
  holdOutboxMaxPending?: number;
  /**
   * How long a hold request's claim of its Idempotency-Key lasts without an answer before a
   * retry with the key takes it over (default DEFAULT_HOLD_IDEMPOTENCY_LEASE_MS, 10 s).
   */
  holdIdempotencyLeaseMs?: number;
  /**
   * A confirm's claim on its hold's lease: how long it lasts, and how long before its end a
   * batch may no longer commit on it (longer than a batch's statement and COMMIT may take).
   * Default DEFAULT_CONFIRM_CLAIM (60 s, 2.5 s).
   */
  confirmClaim?: { leaseMs: number; marginMs: number };
  /** Outbound webhooks: which receivers may be registered, and how deliveries are tried (default DEFAULT_WEBHOOK_DELIVERY). */
  webhooks?: WebhookDeliverySettings;
}

export const DEFAULT_HOLD_OUTBOX_MAX_PENDING = 100_000;
export const DEFAULT_HOLD_IDEMPOTENCY_LEASE_MS = 10_000;

export interface DomainContext {
  db: Db;
  store: HoldStore;
  /** Idempotency-Key answers (the API's middleware), in the hold store's Redis. */
  idempotency: IdempotencyStore;
  settings: DomainSettings;
  log: Logger;
  metrics: DomainMetrics;
  catalog: EventCatalog;
  persister: HoldPersister;
  /** Gathers confirms into batches (one transaction each) and bounds their backlog. */
  confirms: ConfirmBatcher;
  /** Moves the waiting rooms this process knows of on, once a second each (stop it on close). */
  queueTicker: QueueTicker;
}

export function createDomain(deps: {
  db: Db;
  store: HoldStore;
  settings: DomainSettings;
  log?: Logger;
  metrics?: DomainMetrics;
  /** Hears of holds once their rows are written (the expiry jobs are scheduled here). */
  onHoldsPersisted?: (rows: PersistedHold[]) => Promise<void>;
}): DomainContext {
  const log = deps.log ?? silentLogger;
  const metrics = deps.metrics ?? noMetrics;
  const ctx: DomainContext = {
    db: deps.db,
    store: deps.store,
    idempotency: deps.store.idempotency,
    settings: deps.settings,
    log,
    metrics,
    catalog: new EventCatalog(deps.db),
    persister: new HoldPersister(deps.db, deps.store, log, 20, deps.onHoldsPersisted, (n) => metrics.outboxParked(n)),
    confirms: new ConfirmBatcher(deps.db, confirmBatchSettings(deps.settings.confirmBatch), (size, seconds) => metrics.confirmBatch?.(size, seconds)),
    queueTicker: new QueueTicker(() => ctx, queueRoom),
  };
  return ctx;
}
