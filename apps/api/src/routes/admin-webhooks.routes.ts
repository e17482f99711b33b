import { adminWebhookBody, adminWebhookPatchBody, emptyQuery, listQuery, webhookResponses } from '@holdfast/contracts';
import {
  deleteWebhook, listWebhookDeliveries, listWebhooks, registerWebhook, setWebhookEnabled, type DomainContext,
} from '@holdfast/domain';
import { endpointOf } from '../endpoint';
import { err, unavailable } from '../response-docs';

const endpoint = endpointOf<DomainContext>();

/** Outbound webhooks: the seller's receivers of events (admin role only; every change audited). */
export const ADMIN_WEBHOOK_ENDPOINTS = [
  endpoint({
    method: 'post', path: '/v1/admin/webhooks', operationId: 'adminCreateWebhook', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    body: adminWebhookBody,
    summary: 'Register a receiver of events (https only outside demo mode; no loopback, link-local or private address unless WEBHOOK_ALLOW_PRIVATE=true). The answer carries the signing secret, shown this once.',
    responses: {
      201: { description: 'the endpoint, with its signing secret', schema: webhookResponses.webhookCreated },
      400: err('VALIDATION_FAILED: a field is not valid, or the URL is refused (details.fields names `url` and why: not https, does not resolve, resolves to a private address)'),
      503: unavailable,
    },
    handler: async ({ req, res, deps: ctx, body }) => {
      res.status(201).json({ webhook: await registerWebhook(ctx, req.principal!.id, body) });
    },
  }),
  endpoint({
    method: 'get', path: '/v1/admin/webhooks', operationId: 'adminListWebhooks', tag: 'Admin', roles: ['admin'], query: listQuery,
    summary: 'Registered webhook endpoints, oldest first (never their secrets).',
    responses: { 200: { description: 'a page of endpoints', schema: webhookResponses.webhooks }, 503: unavailable },
    handler: async ({ res, deps: ctx, query }) => {
      const page = await listWebhooks(ctx, query);
      res.json({ webhooks: page.items, nextCursor: page.nextCursor });
    },
  }),
  endpoint({
    method: 'patch', path: '/v1/admin/webhooks/{webhookId}', operationId: 'adminUpdateWebhook', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    body: adminWebhookPatchBody,
    summary: 'Disable an endpoint (`{"enabled": false}`: no new deliveries, and its pending ones are given up) or enable it again; audited.',
    responses: {
      200: { description: 'the endpoint', schema: webhookResponses.webhook }, 404: err('WEBHOOK_NOT_FOUND'), 503: unavailable,
    },
    handler: async ({ req, res, deps: ctx, params, body }) => {
      res.json({ webhook: await setWebhookEnabled(ctx, req.principal!.id, params.webhookId, body.enabled) });
    },
  }),
  endpoint({
    method: 'delete', path: '/v1/admin/webhooks/{webhookId}', operationId: 'adminDeleteWebhook', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    summary: 'Delete an endpoint with its deliveries and their attempts; audited.',
    responses: {
      200: { description: 'the endpoint as it was', schema: webhookResponses.webhook }, 404: err('WEBHOOK_NOT_FOUND'), 503: unavailable,
    },
    handler: async ({ req, res, deps: ctx, params }) => {
      res.json({ webhook: await deleteWebhook(ctx, req.principal!.id, params.webhookId) });
    },
  }),
  endpoint({
    method: 'get', path: '/v1/admin/webhooks/{webhookId}/deliveries', operationId: 'adminListWebhookDeliveries', tag: 'Admin', roles: ['admin'],
    query: listQuery,
    summary: 'An endpoint\'s deliveries, newest first, each with its status and every attempt (when, outcome, the receiver\'s status code). '
      + 'Deliveries finished longer ago than the retention period (WEBHOOK_RETENTION_DAYS, default 30 days) are deleted with their attempts and '
      + 'no longer listed; pending and queued ones are listed whatever their age.',
    responses: {
      200: { description: 'a page of deliveries', schema: webhookResponses.webhookDeliveries }, 404: err('WEBHOOK_NOT_FOUND'), 503: unavailable,
    },
    handler: async ({ res, deps: ctx, params, query }) => {
      const page = await listWebhookDeliveries(ctx, params.webhookId, query);
      res.json({ deliveries: page.items, nextCursor: page.nextCursor });
    },
  }),
];
