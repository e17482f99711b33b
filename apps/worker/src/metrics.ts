import { createServer, type Server } from 'node:http';
import client from 'prom-client';
import type { DomainMetrics, RepairKind } from '@holdfast/domain';

/** The worker's own Prometheus registry: jobs by outcome, expiries, reconciliation repairs, webhook rows deleted by retention. */
export function createWorkerMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'holdfast_worker_' });
  const jobs = new client.Counter({
    name: 'holdfast_jobs_total', help: 'Jobs finished by queue, job name and result (completed | failed).',
    labelNames: ['queue', 'name', 'result'], registers: [registry],
  });
  const holdsExpired = new client.Counter({ name: 'holdfast_holds_expired_total', help: 'Holds that ended by expiry.', registers: [registry] });
  const repairs = new client.Counter({
    name: 'holdfast_reconcile_repairs_total', help: 'Drift repaired by reconciliation, by kind.', labelNames: ['kind'], registers: [registry],
  });
  const outboxParked = new client.Counter({
    name: 'holdfast_outbox_parked_total', help: 'Hold records PostgreSQL refused, parked aside so the outbox drains on.', registers: [registry],
  });
  const webhookRowsDeleted = new client.Counter({
    name: 'holdfast_webhook_retention_deleted_total',
    help: 'Webhook rows deleted by retention (WEBHOOK_RETENTION_DAYS), by table (events | deliveries | attempts).',
    labelNames: ['table'], registers: [registry],
  });
  const domain: DomainMetrics = {
    holdOutcome() {},
    confirmOutcome() {},
    outboxParked(count) {
      outboxParked.inc(count);
    },
    holdsExpired(count) {
      holdsExpired.inc(count);
    },
  };
  return {
    registry, jobs, repairs, domain, webhookRowsDeleted,
    repair: (kind: RepairKind, count = 1) => repairs.inc({ kind }, count),
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/** A tiny HTTP server answering GET /metrics (port 0 picks a free one). */
export async function serveMetrics(metrics: WorkerMetrics, port: number): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      void metrics.registry.metrics().then((text) => {
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType });
        res.end(text);
      });
      return;
    }
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'No such endpoint.' } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  return { server, url: `http://127.0.0.1:${actual}/metrics` };
}
