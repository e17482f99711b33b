import { emptyQuery, queueJoinBody, queuePatchBody, responses } from '@holdfast/contracts';
import { joinQueue, queueAdminState, queueStanding, updateQueue, type DomainContext } from '@holdfast/domain';
import { endpointOf } from '../endpoint';
import { err, unavailable } from '../response-docs';

const endpoint = endpointOf<DomainContext>();

const NOT_FOUND = err('EVENT_NOT_FOUND, or QUEUE_NOT_FOUND: the event has no waiting room');

/** An event's waiting room (issue 29): buyers join and learn where they stand; the seller watches and steers it. */
export const WAITING_ROOM_ENDPOINTS = [
  endpoint({
    method: 'post', path: '/v1/events/{eventId}/queue', operationId: 'joinQueue', tag: 'Waiting room', roles: ['customer'],
    query: emptyQuery, body: queueJoinBody,
    summary: 'Join the event\'s waiting room (one place per customer; joining again keeps it). Open from salesStartAt − preQueueSeconds; places taken before salesStartAt are drawn at random at the opening, later ones are in arrival order. With challengeBits, send `nonce`: SHA-256 of event id + customer id + nonce must have that many leading zero bits.',
    responses: {
      200: { description: 'where the customer stands (pass and passExpiresAt once admitted)', schema: responses.queue },
      400: err('VALIDATION_FAILED: also a missing, wrong or reused proof of work (details.fields path nonce)'),
      404: NOT_FOUND,
      409: err('SALES_CLOSED: before salesStartAt − preQueueSeconds, from salesEndAt on, or the event is a draft or closed (details.salesStatus, salesStartAt, salesEndAt, serverTime)'),
      503: unavailable,
    },
    // A hot endpoint (a crowd joins at the opening): answered on the lean path, as holds are.
    answer: async ({ deps: ctx, params, body, principal }) => ({
      status: 200, body: { queue: await joinQueue(ctx, { eventId: params.eventId, customerId: principal!.id, nonce: body?.nonce }) },
    }),
  }),
  endpoint({
    method: 'get', path: '/v1/events/{eventId}/queue/me', operationId: 'getQueueStanding', tag: 'Waiting room', roles: ['customer'],
    query: emptyQuery,
    summary: 'Where the customer stands in the event\'s waiting room: waiting (position, etaSeconds), admitted (pass, passExpiresAt), ended (the pass ended: join again for a new place at the back), or none (not joined).',
    responses: { 200: { description: 'where the customer stands', schema: responses.queue }, 404: NOT_FOUND, 503: unavailable },
    answer: async ({ deps: ctx, params, principal }) => ({
      status: 200, body: { queue: await queueStanding(ctx, params.eventId, principal!.id) },
    }),
  }),
  endpoint({
    method: 'get', path: '/v1/admin/events/{eventId}/queue', operationId: 'adminGetQueue', tag: 'Waiting room', roles: ['admin'],
    query: emptyQuery,
    summary: 'The waiting room as it is: places waiting, admitted so far, passes active now, its rate and most active passes, paused or not.',
    responses: { 200: { description: 'the room', schema: responses.queueAdmin }, 404: NOT_FOUND, 503: unavailable },
    handler: async ({ res, deps: ctx, params }) => {
      res.json(await queueAdminState(ctx, params.eventId));
    },
  }),
  endpoint({
    method: 'patch', path: '/v1/admin/events/{eventId}/queue', operationId: 'adminUpdateQueue', tag: 'Waiting room', roles: ['admin'],
    query: emptyQuery, body: queuePatchBody,
    summary: 'Pause or resume the waiting room, or change its rate (admitPerMinute) or most active passes (maxActive; the event\'s waitingRoom follows). Audited (queue.updated).',
    responses: { 200: { description: 'the room as it is now', schema: responses.queueAdmin }, 404: NOT_FOUND, 503: unavailable },
    handler: async ({ req, res, deps: ctx, params, body }) => {
      res.json(await updateQueue(ctx, params.eventId, body, req.principal!.id));
    },
  }),
];
