import { Router, type RequestHandler } from 'express';
import { confirmBody, emptyQuery } from '@holdfast/contracts';
import { confirmHold, getOrder, type DomainContext } from '@holdfast/domain';
import { requireRole } from '../middleware/auth';
import { parse } from '../middleware/validate';

const passThrough: RequestHandler = (_req, _res, next) => next();

/** `idempotency` is the Idempotency-Key middleware (middleware/idempotency.ts) for confirm. */
export function orderRoutes(ctx: DomainContext, jwtSecret: string, idempotency: RequestHandler = passThrough): Router {
  const r = Router();

  /** An integrator's backend (or an admin) confirms after capturing the payment itself. */
  r.post('/v1/holds/:holdId/confirm', requireRole(jwtSecret, 'service', 'admin'), idempotency, async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    const body = parse(confirmBody, req.body);
    const { order, created } = await confirmHold(ctx, {
      holdId: String(req.params.holdId),
      payment: { provider: 'service', reference: body.paymentReference },
      auditActor: req.principal!.role === 'admin' ? `admin:${req.principal!.id}` : undefined,
    });
    res.status(created ? 201 : 200).json({ order });
  });

  r.get('/v1/orders/:orderId', requireRole(jwtSecret, 'customer', 'service', 'admin'), async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    res.json({ order: await getOrder(ctx, req.principal!, String(req.params.orderId)) });
  });

  return r;
}
