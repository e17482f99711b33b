import { adminCancelOrderBody, emptyQuery, responses } from '@holdfast/contracts';
import { cancelOrder, type DomainContext } from '@holdfast/domain';
import { endpointOf } from '../endpoint';
import { err, unavailable } from '../response-docs';

const endpoint = endpointOf<DomainContext>();

/** An admin cancels an order (issue 30): its seats and tickets go back, to the waiting lists first. */
export const CANCEL_ORDER_ENDPOINTS = [
  endpoint({
    method: 'post', path: '/v1/admin/orders/{orderId}/cancel', operationId: 'adminCancelOrder', tag: 'Admin', roles: ['admin'],
    query: emptyQuery, body: adminCancelOrderBody,
    summary: 'Cancel an order with a reason: its seats and tickets go back (offered to the waiting lists first), its payment becomes refund_required (or refunded when `refunded`); audited as order.cancelled.',
    responses: {
      200: { description: 'the order, cancelled (or as it was when cancelled already)', schema: responses.order },
      404: err('ORDER_NOT_FOUND'), 503: unavailable,
    },
    answer: async ({ deps: ctx, params, body, principal }) => ({
      status: 200, body: { order: await cancelOrder(ctx, principal!.id, params.orderId, { reason: body.reason, refunded: body.refunded }) },
    }),
  }),
];
