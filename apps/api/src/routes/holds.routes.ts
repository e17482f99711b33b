import { Router } from 'express';
import { emptyQuery } from '@holdfast/contracts';
import { getHold, releaseHold, type DomainContext } from '@holdfast/domain';
import { requireRole } from '../middleware/auth';
import { parse } from '../middleware/validate';

export function holdRoutes(ctx: DomainContext, jwtSecret: string): Router {
  const r = Router();

  r.get('/v1/holds/:holdId', requireRole(jwtSecret, 'customer', 'service', 'admin'), async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    res.json({ hold: await getHold(ctx, req.principal!, String(req.params.holdId)) });
  });

  r.delete('/v1/holds/:holdId', requireRole(jwtSecret, 'customer'), async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    const hold = await releaseHold(ctx, String(req.params.holdId), { kind: 'customer', customerId: req.principal!.id });
    res.json({ hold });
  });

  return r;
}
