import { Router } from 'express';
import { emptyBody, emptyQuery } from '@holdfast/contracts';
import { extendHold, getHold, releaseHold, type DomainContext } from '@holdfast/domain';
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

  // More time for the owner (or an admin): body empty or `{}`.
  r.post('/v1/holds/:holdId/extend', requireRole(jwtSecret, 'customer', 'admin'), async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    parse(emptyBody, req.body);
    res.json({ hold: await extendHold(ctx, req.principal!, String(req.params.holdId)) });
  });

  return r;
}
