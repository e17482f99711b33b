import { Router } from 'express';
import {
  adminAuditQuery, adminHoldsQuery, adminOrdersQuery, adminPaymentsQuery, adminRefundBody, adminReleaseBody, emptyQuery,
} from '@holdfast/contracts';
import {
  adminListAudit, adminListHolds, adminListOrders, adminListPayments, adminMarkRefunded, adminReleaseHold, eventSales,
  type DomainContext,
} from '@holdfast/domain';
import { requireRole } from '../middleware/auth';
import { parse } from '../middleware/validate';

/** The admin console: holds, force release, orders, payments and the audit log (admin role only). */
export function adminRoutes(ctx: DomainContext, jwtSecret: string): Router {
  const r = Router();
  const admin = requireRole(jwtSecret, 'admin');

  r.get('/v1/admin/holds', admin, async (req, res) => {
    const q = parse(adminHoldsQuery, req.query, 'query');
    const page = await adminListHolds(ctx, q);
    res.json({ holds: page.items, nextCursor: page.nextCursor });
  });

  r.delete('/v1/admin/holds/:holdId', admin, async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    const body = parse(adminReleaseBody, req.body);
    res.json({ hold: await adminReleaseHold(ctx, req.principal!.id, String(req.params.holdId), body.reason) });
  });

  r.get('/v1/admin/orders', admin, async (req, res) => {
    const q = parse(adminOrdersQuery, req.query, 'query');
    const page = await adminListOrders(ctx, q);
    res.json({ orders: page.items, nextCursor: page.nextCursor });
  });

  r.get('/v1/admin/payments', admin, async (req, res) => {
    const q = parse(adminPaymentsQuery, req.query, 'query');
    const page = await adminListPayments(ctx, q);
    res.json({ payments: page.items, nextCursor: page.nextCursor });
  });

  r.post('/v1/admin/payments/:paymentId/refund', admin, async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    const body = parse(adminRefundBody, req.body);
    res.json({ payment: await adminMarkRefunded(ctx, req.principal!.id, String(req.params.paymentId), body.note) });
  });

  r.get('/v1/admin/events/:eventId/sales', admin, async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    res.json({ sales: await eventSales(ctx, String(req.params.eventId)) });
  });

  r.get('/v1/admin/audit', admin, async (req, res) => {
    const q = parse(adminAuditQuery, req.query, 'query');
    const page = await adminListAudit(ctx, q);
    res.json({ entries: page.items, nextCursor: page.nextCursor });
  });

  return r;
}
