import client from 'prom-client';
import type { Queue } from 'bullmq';
import type { DomainMetrics } from '@holdfast/domain';
import { queueDepths } from '@holdfast/jobs';

export interface MetricSources {
  /** Queues whose job counts per state are read on each scrape. */
  queues?: Queue[];
  /** Statistics the worker process keeps in Redis (holds expired). */
  stats?: { readStat(name: string): Promise<number> };
  /** The hold store's undos waiting for Redis (give-backs, keys' releases), read on scrape. */
  undos?: { readonly size: number; readonly dropped: number };
}

/** The process's Prometheus registry with the contract's series. */
export function createMetrics(sources: MetricSources = {}) {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const holdsCreated = new client.Counter({ name: 'holdfast_holds_created_total', help: 'Holds created.', registers: [registry] });
  let expiredHere = 0;
  let expiredShared = 0;
  new client.Counter({
    name: 'holdfast_holds_expired_total',
    help: 'Holds that ended by expiry (counted by the worker process, read from Redis on scrape).',
    registers: [registry],
    // Every API process reads the same shared value: one /metrics over several processes takes it once.
    aggregator: 'max',
    async collect() {
      // The expiries happen in the worker; its count lives in Redis. A scrape while Redis is away keeps the last value.
      if (sources.stats) expiredShared = await sources.stats.readStat('holds_expired').catch(() => expiredShared);
      this.reset();
      this.inc(Math.max(expiredHere, expiredShared));
    },
  });
  new client.Gauge({
    name: 'holdfast_queue_jobs',
    help: 'Jobs per queue and state (failed: jobs that used up their attempts), read on scrape.',
    labelNames: ['queue', 'state'],
    registers: [registry],
    aggregator: 'max',
    async collect() {
      if (!sources.queues?.length) return;
      try {
        const depths = await queueDepths(sources.queues);
        this.reset();
        for (const d of depths) this.set({ queue: d.queue, state: d.state }, d.count);
      } catch {
        /* Redis away: the scrape answers without queue depths */
        this.reset();
      }
    },
  });
  new client.Gauge({
    name: 'holdfast_redis_undos_pending',
    help: 'Give-backs of holds (and releases of Idempotency-Keys) whose calls failed though they may have run, waiting for Redis to be reachable.',
    registers: [registry],
    collect() {
      this.set(sources.undos?.size ?? 0);
    },
  });
  new client.Counter({
    name: 'holdfast_redis_undos_dropped_total',
    help: 'Such undos given up: the hold\'s lease (or the key\'s) ran out first, or too many were waiting.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(sources.undos?.dropped ?? 0);
    },
  });
  const ordersConfirmed = new client.Counter({ name: 'holdfast_orders_confirmed_total', help: 'Orders confirmed.', registers: [registry] });
  const holdOutcomes = new client.Counter({
    name: 'holdfast_hold_requests_total', help: 'Hold requests by result code.', labelNames: ['result'], registers: [registry],
  });
  const confirmOutcomes = new client.Counter({
    name: 'holdfast_confirm_requests_total', help: 'Confirm attempts by result code.', labelNames: ['result'], registers: [registry],
  });
  const confirmBatches = new client.Histogram({
    name: 'holdfast_confirm_batch_size',
    help: 'Confirms per group-commit batch (one transaction each).',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [registry],
  });
  const confirmBatchSeconds = new client.Histogram({
    name: 'holdfast_confirm_batch_seconds',
    help: 'Duration of each committed group-commit batch statement (one round trip to PostgreSQL).',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const outboxParked = new client.Counter({
    name: 'holdfast_outbox_parked_total', help: 'Hold records PostgreSQL refused, parked aside so the outbox drains on.', registers: [registry],
  });
  const httpDuration = new client.Histogram({
    name: 'holdfast_http_request_duration_seconds',
    help: 'HTTP request duration by route.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const streamsOpen = new client.Gauge({
    name: 'holdfast_stream_connections', help: 'Event streams open now.', registers: [registry],
  });
  const streamsRefused = new client.Counter({
    name: 'holdfast_stream_refused_total', help: 'Event streams refused or closed early, by reason.', labelNames: ['reason'], registers: [registry],
  });
  const queueWaiting = new client.Gauge({
    name: 'holdfast_queue_waiting', help: 'Places waiting in an event\'s waiting room, as the last queue call saw them.',
    labelNames: ['event'], registers: [registry], aggregator: 'max',
  });
  const queueAdmitted = new client.Counter({
    name: 'holdfast_queue_admitted_total', help: 'Places the waiting rooms admitted.', registers: [registry],
  });
  const queuePassesEnded = new client.Counter({
    name: 'holdfast_queue_passes_ended_total',
    help: 'Queue passes ended, by reason: confirmed, released, hold_expired (its hold\'s time), timeout (passSeconds without a hold).',
    labelNames: ['reason'], registers: [registry],
  });
  const queueWaited = new client.Histogram({
    name: 'holdfast_queue_wait_seconds', help: 'How long each admitted place waited (from joining, or from the opening for places taken before it).',
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200], registers: [registry],
  });
  const queueTicks = new client.Counter({
    name: 'holdfast_queue_ticks_total',
    help: 'Admission tick script calls (one a second per waiting room with buyers waiting that this process knows of, whatever the crowd).',
    registers: [registry],
  });
  const keyTakeovers = new client.Counter({
    name: 'holdfast_hold_key_takeovers_total',
    help: 'Hold requests that took their Idempotency-Key over from a request that never answered (its process died), by outcome: answered its hold, took its hold id (it had taken none), held afresh (its hold had ended).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const domain: DomainMetrics = {
    holdKeyTakeover(outcome) {
      keyTakeovers.inc({ outcome });
    },
    queueTickRun() {
      queueTicks.inc();
    },
    queueTick(eventId, tick) {
      queueWaiting.set({ event: eventId }, tick.waiting);
      if (tick.admitted) queueAdmitted.inc(tick.admitted);
      if (tick.endedTimeout) queuePassesEnded.inc({ reason: 'timeout' }, tick.endedTimeout);
      if (tick.endedHoldExpired) queuePassesEnded.inc({ reason: 'hold_expired' }, tick.endedHoldExpired);
      for (const ms of tick.waitsMs) queueWaited.observe(ms / 1000);
    },
    queuePassEnded(reason) {
      queuePassesEnded.inc({ reason });
    },
    holdOutcome(result) {
      holdOutcomes.inc({ result });
      if (result === 'created') holdsCreated.inc();
    },
    confirmOutcome(result) {
      confirmOutcomes.inc({ result });
      if (result === 'created') ordersConfirmed.inc();
    },
    holdsExpired(count) {
      expiredHere += count;
    },
    confirmBatch(size, seconds) {
      confirmBatches.observe(size);
      confirmBatchSeconds.observe(seconds);
    },
    outboxParked(count) {
      outboxParked.inc(count);
    },
  };
  return {
    registry, httpDuration, domain,
    stream: { open: streamsOpen, refused: streamsRefused },
    /**
     * What /metrics answers: this process's registry, or (several API processes)
     * every process's, added up by the supervising process (prom-client's AggregatorRegistry).
     */
    text: () => registry.metrics(),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
