import { emptyBody, emptyQuery, responses } from '@holdfast/contracts';
import { extendHold, getHold, releaseHold, type DomainContext } from '@holdfast/domain';
import { endpointOf } from '../endpoint';
import { err, unavailable } from '../response-docs';

const endpoint = endpointOf<DomainContext>();

export const HOLD_ENDPOINTS = [
  endpoint({
    method: 'get', path: '/v1/holds/{holdId}', operationId: 'getHold', tag: 'Holds', roles: ['customer', 'service', 'admin'], query: emptyQuery,
    summary: 'A hold (a customer sees only their own).',
    responses: { 200: { description: 'the hold', schema: responses.hold }, 404: err('HOLD_NOT_FOUND'), 503: unavailable },
    handler: async ({ req, res, deps: ctx, params }) => {
      res.json({ hold: await getHold(ctx, req.principal!, params.holdId) });
    },
  }),
  endpoint({
    method: 'delete', path: '/v1/holds/{holdId}', operationId: 'releaseHold', tag: 'Holds', roles: ['customer'], query: emptyQuery,
    summary: 'The owner releases a hold; its seats and tickets are free at once.',
    responses: {
      200: { description: 'released (or as it was, when already released or expired)', schema: responses.hold },
      404: err('HOLD_NOT_FOUND'), 409: err('HOLD_ALREADY_CONFIRMED'), 503: unavailable,
    },
    handler: async ({ req, res, deps: ctx, params }) => {
      const hold = await releaseHold(ctx, params.holdId, { kind: 'customer', customerId: req.principal!.id });
      res.json({ hold });
    },
  }),
  endpoint({
    method: 'post', path: '/v1/holds/{holdId}/extend', operationId: 'extendHold', tag: 'Holds', roles: ['customer', 'admin'],
    query: emptyQuery, body: emptyBody,
    summary: 'More time: expiresAt moves to now + the event\'s hold time, at most maxHoldExtensions times and never past createdAt + maxHoldSeconds; every seat key and ticket lease moves together (body empty or `{}`).',
    responses: {
      200: { description: 'extended', schema: responses.hold }, 404: err('HOLD_NOT_FOUND (also another customer\'s hold)'),
      409: err('HOLD_EXPIRED, HOLD_NOT_ACTIVE (released), HOLD_ALREADY_CONFIRMED, HOLD_EXTENSION_LIMIT (details.maxHoldExtensions), or HOLD_TIME_CAP (details.maxHoldSeconds, expiresAt)'),
      503: unavailable,
    },
    // More time for the owner (or an admin).
    handler: async ({ req, res, deps: ctx, params }) => {
      res.json({ hold: await extendHold(ctx, req.principal!, params.holdId) });
    },
  }),
];
