import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { createEventBody, createHoldBody, emptyQuery, listQuery, updateEventBody } from '@holdfast/contracts';
import {
  appErrorOf, countRefusedHoldRequest, createEvent, createHold, getEvent, listEvents, listSeats, updateEvent,
  type DomainContext, type HoldSelector,
} from '@holdfast/domain';
import { requireRole } from '../middleware/auth';
import { bodyParserError } from '../middleware/errors';
import { parse } from '../middleware/validate';

const passThrough: RequestHandler = (_req, _res, next) => next();
const dateOrNull = (iso: string | null | undefined): Date | null => (iso ? new Date(iso) : null);

/**
 * Every hold request counts against the customer's rate limit, also one refused
 * before its script ran (its body, an unknown seat or ticket type): the domain
 * counts it and may answer RATE_LIMITED instead.
 */
function countRefusal(ctx: DomainContext): ErrorRequestHandler {
  return (err, req, _res, next) => {
    const code = (appErrorOf(err) ?? bodyParserError(err as { type?: string }))?.code;
    if (!code || !req.principal) return next(err);
    countRefusedHoldRequest(ctx, { eventId: String(req.params.eventId), customerId: req.principal.id, code })
      .then((limited) => next(limited ?? err), () => next(err));
  };
}

/** `idempotency` is the Idempotency-Key middleware (middleware/idempotency.ts) for hold creation. */
export function eventRoutes(ctx: DomainContext, jwtSecret: string, idempotency: RequestHandler = passThrough): Router {
  const r = Router();

  r.post('/v1/admin/events', requireRole(jwtSecret, 'admin'), async (req, res) => {
    const body = parse(createEventBody, req.body);
    const event = await createEvent(
      ctx,
      { ...body, startsAt: new Date(body.startsAt), salesStartAt: dateOrNull(body.salesStartAt), salesEndAt: dateOrNull(body.salesEndAt) },
      req.principal!.id,
    );
    res.status(201).json({ event });
  });

  r.patch('/v1/admin/events/:eventId', requireRole(jwtSecret, 'admin'), async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    const body = parse(updateEventBody, req.body);
    const { startsAt, salesStartAt, salesEndAt, ...rest } = body;
    const patch = {
      ...rest,
      ...(startsAt !== undefined ? { startsAt: new Date(startsAt) } : {}),
      ...(salesStartAt !== undefined ? { salesStartAt: dateOrNull(salesStartAt) } : {}),
      ...(salesEndAt !== undefined ? { salesEndAt: dateOrNull(salesEndAt) } : {}),
    };
    res.json({ event: await updateEvent(ctx, String(req.params.eventId), patch, req.principal!.id) });
  });

  r.get('/v1/events', async (req, res) => {
    const q = parse(listQuery, req.query, 'query');
    const page = await listEvents(ctx, q.limit, q.cursor);
    res.json({ events: page.items, nextCursor: page.nextCursor });
  });

  r.get('/v1/events/:eventId', async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    res.json({ event: await getEvent(ctx, String(req.params.eventId)) });
  });

  r.get('/v1/events/:eventId/seats', async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    res.json({ seats: await listSeats(ctx, String(req.params.eventId)) });
  });

  const holdHandler: RequestHandler = async (req, res) => {
    const body = parse(createHoldBody, req.body);
    const selector: HoldSelector = body.seatIds
      ? { kind: 'seats', seatIds: body.seatIds }
      : body.tier !== undefined
        ? { kind: 'best', tier: body.tier, quantity: body.quantity! }
        : { kind: 'tickets', ticketTypeId: body.ticketTypeId!, quantity: body.quantity! };
    const hold = await createHold(ctx, { eventId: String(req.params.eventId), customerId: req.principal!.id, selector });
    res.status(201).json({ hold });
  };
  r.post('/v1/events/:eventId/holds', requireRole(jwtSecret, 'customer'), idempotency, holdHandler, countRefusal(ctx));

  return r;
}
