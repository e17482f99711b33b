import { adminReleaseBody, emptyQuery, joinWaitlistBody, responses } from '@holdfast/contracts';
import { adminWaitlist, joinWaitlist, leaveWaitlist, myWaitlist, type DomainContext } from '@holdfast/domain';
import { endpointOf } from '../endpoint';
import { err, unavailable } from '../response-docs';

const endpoint = endpointOf<DomainContext>();

/** The waiting list of a sold-out tier or ticket type (issue 30): join, read, leave; the admin's view and removal. */
export const WAITLIST_ENDPOINTS = [
  endpoint({
    method: 'post', path: '/v1/events/{eventId}/waitlist', operationId: 'joinWaitlist', tag: 'Waiting list', roles: ['customer'],
    query: emptyQuery, body: joinWaitlistBody,
    summary: 'Join the waiting list of a tier or ticket type; what comes back is offered in join order as a hold of the customer (entry.offer). Joining again answers the same entry.',
    responses: {
      201: { description: 'in line (or offered at once when enough came back meanwhile)', schema: responses.waitlistEntry },
      200: { description: 'the customer\'s live entry for this tier or ticket type', schema: responses.waitlistEntry },
      404: err('EVENT_NOT_FOUND or TICKET_TYPE_NOT_FOUND'),
      409: err('WAITLIST_NOT_NEEDED (nobody waits and enough is free: hold it; details.available) or SALES_CLOSED'),
      503: unavailable,
    },
    answer: async ({ deps: ctx, params, body, principal }) => {
      const { entry, created } = await joinWaitlist(ctx, { eventId: params.eventId, customerId: principal!.id, ...body });
      return { status: created ? 201 : 200, body: { entry } };
    },
  }),
  endpoint({
    method: 'get', path: '/v1/events/{eventId}/waitlist/me', operationId: 'myWaitlist', tag: 'Waiting list', roles: ['customer'],
    query: emptyQuery, summary: 'The customer\'s waiting-list entries of the event (every state), in join order.',
    responses: { 200: { description: 'the entries', schema: responses.waitlistEntries }, 404: err('EVENT_NOT_FOUND'), 503: unavailable },
    answer: async ({ deps: ctx, params, principal }) => ({
      status: 200, body: { entries: await myWaitlist(ctx, params.eventId, principal!.id) },
    }),
  }),
  endpoint({
    method: 'delete', path: '/v1/events/{eventId}/waitlist/{entryId}', operationId: 'leaveWaitlist', tag: 'Waiting list', roles: ['customer'],
    query: emptyQuery, summary: 'Leave the waiting list; an open offer is released and goes to the next in line.',
    responses: {
      200: { description: 'the entry, left (or as it was when it had ended)', schema: responses.waitlistEntry },
      404: err('WAITLIST_ENTRY_NOT_FOUND'), 503: unavailable,
    },
    answer: async ({ deps: ctx, params, principal }) => {
      const { customerId: _, ...entry } = await leaveWaitlist(ctx, params.eventId, params.entryId, { kind: 'customer', customerId: principal!.id });
      return { status: 200, body: { entry } };
    },
  }),
  endpoint({
    method: 'get', path: '/v1/admin/events/{eventId}/waitlist', operationId: 'adminWaitlist', tag: 'Admin', roles: ['admin'], query: emptyQuery,
    summary: 'The event\'s waiting list: live entries (waiting, offered) in join order, with position, customer, quantity, state and offer.',
    responses: { 200: { description: 'the entries', schema: responses.adminWaitlist }, 404: err('EVENT_NOT_FOUND'), 503: unavailable },
    answer: async ({ deps: ctx, params }) => ({ status: 200, body: { entries: await adminWaitlist(ctx, params.eventId) } }),
  }),
  endpoint({
    method: 'delete', path: '/v1/admin/events/{eventId}/waitlist/{entryId}', operationId: 'adminRemoveWaitlistEntry', tag: 'Admin', roles: ['admin'],
    query: emptyQuery, body: adminReleaseBody,
    summary: 'Remove an entry with a reason (audited as waitlist.removed); an open offer is released and goes to the next in line.',
    responses: {
      200: { description: 'the entry, removed (or as it was when it had ended)', schema: responses.adminWaitlistEntry },
      404: err('WAITLIST_ENTRY_NOT_FOUND'), 503: unavailable,
    },
    answer: async ({ deps: ctx, params, body, principal }) => ({
      status: 200,
      body: { entry: await leaveWaitlist(ctx, params.eventId, params.entryId, { kind: 'admin', adminId: principal!.id, reason: body.reason }) },
    }),
  }),
];
