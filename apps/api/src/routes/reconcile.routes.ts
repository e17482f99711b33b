import { Router } from 'express';
import type { Queue } from 'bullmq';
import { emptyQuery, z } from '@holdfast/contracts';
import { lastReconcileReport } from '@holdfast/domain';
import type { ReconcileStore } from '@holdfast/hold-store';
import { requestReconcile } from '@holdfast/jobs';
import { requireRole } from '../middleware/auth';
import { parse } from '../middleware/validate';

export interface ReconcileDeps {
  queue: Queue;
  store: ReconcileStore;
}

/** An empty body, `{}`, or nothing at all. */
const reconcileBody = z.strictObject({}).optional();

export function reconcileRoutes(deps: ReconcileDeps, jwtSecret: string): Router {
  const r = Router();

  // Asks the worker for a run now; the report appears at /v1/admin/reconcile/last.
  r.post('/v1/admin/reconcile', requireRole(jwtSecret, 'admin'), async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    parse(reconcileBody, req.body);
    const jobId = await requestReconcile(deps.queue, `admin:${req.principal!.id}`);
    res.status(202).json({ jobId, status: 'queued' });
  });

  r.get('/v1/admin/reconcile/last', requireRole(jwtSecret, 'admin'), async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    res.json({ report: await lastReconcileReport(deps.store) });
  });

  return r;
}
