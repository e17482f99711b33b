import {
  adminAuditQuery, adminHoldsQuery, adminOrdersQuery, adminPaymentsQuery, adminRefundBody, adminReleaseBody, emptyQuery, responses,
} from '@holdfast/contracts';
import {
  adminListAudit, adminListHolds, adminListOrders, adminListPayments, adminMarkRefunded, adminReleaseHold, eventSales,
  type DomainContext,
} from '@holdfast/domain';
import { endpointOf } from '../endpoint';
import { err, unavailable } from '../response-docs';

const endpoint = endpointOf<DomainContext>();

/** The admin console: holds, force release, orders, payments and the audit log (admin role only). */
export const ADMIN_ENDPOINTS = [
  endpoint({
    method: 'get', path: '/v1/admin/holds', operationId: 'adminListHolds', tag: 'Admin', roles: ['admin'], query: adminHoldsQuery,
    summary: 'Holds by event and status (an active hold past its time is listed as expired), oldest first.',
    responses: { 200: { description: 'a page of holds', schema: responses.holds }, 503: unavailable },
    handler: async ({ res, deps: ctx, query }) => {
      const page = await adminListHolds(ctx, query);
      res.json({ holds: page.items, nextCursor: page.nextCursor });
    },
  }),
  endpoint({
    method: 'delete', path: '/v1/admin/holds/{holdId}', operationId: 'adminReleaseHold', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    body: adminReleaseBody, summary: 'Force-release a hold with a reason; recorded in the audit log.',
    responses: {
      200: { description: 'released', schema: responses.hold }, 404: err('HOLD_NOT_FOUND'),
      409: err('HOLD_ALREADY_CONFIRMED'), 503: unavailable,
    },
    handler: async ({ req, res, deps: ctx, params, body }) => {
      res.json({ hold: await adminReleaseHold(ctx, req.principal!.id, params.holdId, body.reason) });
    },
  }),
  endpoint({
    method: 'get', path: '/v1/admin/orders', operationId: 'adminListOrders', tag: 'Admin', roles: ['admin'], query: adminOrdersQuery,
    summary: 'Orders, optionally of one event and matching `q` (part of an order number, a customer id, or a seat label), oldest first.',
    responses: { 200: { description: 'a page of orders', schema: responses.orders }, 503: unavailable },
    handler: async ({ res, deps: ctx, query }) => {
      const page = await adminListOrders(ctx, query);
      res.json({ orders: page.items, nextCursor: page.nextCursor });
    },
  }),
  endpoint({
    method: 'get', path: '/v1/admin/payments', operationId: 'adminListPayments', tag: 'Admin', roles: ['admin'], query: adminPaymentsQuery,
    summary: 'Payments, refund-required ones first.',
    responses: { 200: { description: 'a page of payments', schema: responses.payments }, 503: unavailable },
    handler: async ({ res, deps: ctx, query }) => {
      const page = await adminListPayments(ctx, query);
      res.json({ payments: page.items, nextCursor: page.nextCursor });
    },
  }),
  endpoint({
    method: 'post', path: '/v1/admin/payments/{paymentId}/refund', operationId: 'adminMarkRefunded', tag: 'Admin', roles: ['admin'],
    query: emptyQuery, body: adminRefundBody,
    summary: 'Record that a refund_required payment was refunded at the provider (who, when, a note); audited as payment.refunded.',
    responses: {
      200: { description: 'the payment with its refund', schema: responses.payment }, 404: err('PAYMENT_NOT_FOUND'), 409: err('PAYMENT_NOT_REFUNDABLE (details.reason: not_owed or already_refunded)'), 503: unavailable,
    },
    handler: async ({ req, res, deps: ctx, params, body }) => {
      res.json({ payment: await adminMarkRefunded(ctx, req.principal!.id, params.paymentId, body.note) });
    },
  }),
  endpoint({
    method: 'get', path: '/v1/admin/events/{eventId}/sales', operationId: 'adminEventSales', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    summary: 'The sales dashboard\'s numbers: sold, held and available per tier and ticket type, revenue, holds and orders per minute (last 30 minutes).',
    responses: {
      200: { description: 'the numbers', schema: responses.sales }, 404: err('EVENT_NOT_FOUND'), 503: unavailable,
    },
    handler: async ({ res, deps: ctx, params }) => {
      res.json({ sales: await eventSales(ctx, params.eventId) });
    },
  }),
  endpoint({
    method: 'get', path: '/v1/admin/audit', operationId: 'adminListAudit', tag: 'Admin', roles: ['admin'], query: adminAuditQuery,
    summary: 'The audit log (admin releases, refund-required payments), oldest first.',
    responses: { 200: { description: 'a page of entries', schema: responses.audit }, 503: unavailable },
    handler: async ({ res, deps: ctx, query }) => {
      const page = await adminListAudit(ctx, query);
      res.json({ entries: page.items, nextCursor: page.nextCursor });
    },
  }),
];
