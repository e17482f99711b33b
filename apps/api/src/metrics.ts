import client from 'prom-client';
import type { DomainMetrics } from '@holdfast/domain';

/** The process's Prometheus registry with the contract's series. */
export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const holdsCreated = new client.Counter({ name: 'holdfast_holds_created_total', help: 'Holds created.', registers: [registry] });
  const holdsExpired = new client.Counter({ name: 'holdfast_holds_expired_total', help: 'Holds that ended by expiry.', registers: [registry] });
  const ordersConfirmed = new client.Counter({ name: 'holdfast_orders_confirmed_total', help: 'Orders confirmed.', registers: [registry] });
  const holdOutcomes = new client.Counter({
    name: 'holdfast_hold_requests_total', help: 'Hold requests by result code.', labelNames: ['result'], registers: [registry],
  });
  const confirmOutcomes = new client.Counter({
    name: 'holdfast_confirm_requests_total', help: 'Confirm attempts by result code.', labelNames: ['result'], registers: [registry],
  });
  const httpDuration = new client.Histogram({
    name: 'holdfast_http_request_duration_seconds',
    help: 'HTTP request duration by route.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const domain: DomainMetrics = {
    holdOutcome(result) {
      holdOutcomes.inc({ result });
      if (result === 'created') holdsCreated.inc();
    },
    confirmOutcome(result) {
      confirmOutcomes.inc({ result });
      if (result === 'created') ordersConfirmed.inc();
    },
    holdsExpired(count) {
      holdsExpired.inc(count);
    },
  };
  return { registry, httpDuration, domain };
}

export type Metrics = ReturnType<typeof createMetrics>;
