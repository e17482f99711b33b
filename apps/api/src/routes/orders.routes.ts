import { confirmBody, emptyQuery, responses } from '@holdfast/contracts';
import { confirmHold, getOrder, type DomainContext } from '@holdfast/domain';
import { endpointOf } from '../endpoint';
import { err, overloadedOrUnavailable, unavailable } from '../response-docs';

const endpoint = endpointOf<DomainContext>();

/** Confirming (the hot path, with its Idempotency-Key) and reading orders. */
export const ORDER_ENDPOINTS = [
  endpoint({
    method: 'post', path: '/v1/holds/{holdId}/confirm', operationId: 'confirmHold', tag: 'Confirming', roles: ['service', 'admin'],
    query: emptyQuery, body: confirmBody, idempotent: true,
    summary: 'Turn a hold into an order after the payment was captured elsewhere; a hold becomes at most one order.',
    responses: {
      201: { description: 'the order, created now', schema: responses.order }, 200: { description: 'the order this hold already became', schema: responses.order },
      404: err('HOLD_NOT_FOUND'),
      409: err('HOLD_EXPIRED (its items are gone), HOLD_NOT_ACTIVE (released), or IDEMPOTENCY_IN_PROGRESS'),
      422: err('LIMIT_EXCEEDED (the customer would own more than the event\'s maxTicketsPerCustomer: details.limit, details.inUse; nothing sold, the hold is over), or IDEMPOTENCY_KEY_REUSED'),
      503: overloadedOrUnavailable,
    },
    // An integrator's backend (or an admin) confirms after capturing the payment itself.
    answer: async ({ deps: ctx, params, body, principal }) => {
      const { order, created } = await confirmHold(ctx, {
        holdId: params.holdId,
        payment: { provider: 'service', reference: body.paymentReference },
        auditActor: principal!.role === 'admin' ? `admin:${principal!.id}` : undefined,
      });
      return { status: created ? 201 : 200, body: { order } };
    },
  }),
  endpoint({
    method: 'get', path: '/v1/orders/{orderId}', operationId: 'getOrder', tag: 'Orders', roles: ['customer', 'service', 'admin'], query: emptyQuery,
    summary: 'An order (a customer sees only their own).',
    responses: { 200: { description: 'the order', schema: responses.order }, 404: err('ORDER_NOT_FOUND'), 503: unavailable },
    handler: async ({ req, res, deps: ctx, params }) => {
      res.json({ order: await getOrder(ctx, req.principal!, params.orderId) });
    },
  }),
];
