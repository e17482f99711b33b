import { demoTokenBody, responses } from '@holdfast/contracts';
import { endpointOf } from '../endpoint';
import { signToken } from '../middleware/auth';
import { err } from '../response-docs';

const endpoint = endpointOf<{ jwtSecret: string }>();

/** Demo mode only: tokens for the demo checkout page, without an identity provider. */
export const DEMO_AUTH_ENDPOINTS = [
  endpoint({
    method: 'post', path: '/v1/auth/demo-token', operationId: 'demoToken', tag: 'Auth', body: demoTokenBody,
    summary: 'Demo mode only: a signed token for a customer id and role (404 outside demo mode).',
    responses: { 200: { description: 'a token', schema: responses.token }, 404: err('NOT_FOUND outside demo mode') },
    handler: ({ res, deps, body }) => {
      res.json({ token: signToken(deps.jwtSecret, body.customerId, body.role) });
    },
  }),
];
