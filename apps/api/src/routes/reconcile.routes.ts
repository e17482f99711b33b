import type { Queue } from 'bullmq';
import { emptyBody, emptyQuery, responses } from '@holdfast/contracts';
import { lastReconcileReport } from '@holdfast/domain';
import type { ReconcileStore } from '@holdfast/hold-store';
import { requestReconcile } from '@holdfast/jobs';
import { endpointOf } from '../endpoint';
import { unavailable } from '../response-docs';

export interface ReconcileDeps {
  queue: Queue;
  store: ReconcileStore;
}

const endpoint = endpointOf<ReconcileDeps>();

export const RECONCILE_ENDPOINTS = [
  endpoint({
    method: 'post', path: '/v1/admin/reconcile', operationId: 'adminReconcile', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    body: emptyBody,
    summary: 'Ask the worker to reconcile Redis against PostgreSQL now (body empty or `{}`).',
    responses: { 202: { description: 'queued: `{jobId, status}`', schema: responses.reconcileQueued }, 503: unavailable },
    // Asks the worker for a run now; the report appears at /v1/admin/reconcile/last.
    handler: async ({ req, res, deps }) => {
      const jobId = await requestReconcile(deps.queue, `admin:${req.principal!.id}`);
      res.status(202).json({ jobId, status: 'queued' });
    },
  }),
  endpoint({
    method: 'get', path: '/v1/admin/reconcile/last', operationId: 'adminReconcileLast', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    summary: 'The last reconciliation report: `{report}`.',
    responses: { 200: { description: 'the report', schema: responses.reconcileReport }, 503: unavailable },
    handler: async ({ res, deps }) => {
      res.json({ report: await lastReconcileReport(deps.store) });
    },
  }),
];
