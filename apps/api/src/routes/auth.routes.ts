import { Router } from 'express';
import { demoTokenBody } from '@holdfast/contracts';
import { signToken } from '../middleware/auth';
import { jsonBody } from '../middleware/body';
import { parse } from '../middleware/validate';

/** Demo mode only: tokens for the demo checkout page, without an identity provider. */
export function demoAuthRoutes(jwtSecret: string): Router {
  const r = Router();
  r.post('/v1/auth/demo-token', jsonBody, (req, res) => {
    const body = parse(demoTokenBody, req.body);
    res.json({ token: signToken(jwtSecret, body.customerId, body.role) });
  });
  return r;
}
