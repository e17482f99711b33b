import { Router } from 'express';
import type { ChangeFeed } from '@holdfast/hold-store';
import { emptyQuery } from '@holdfast/contracts';
import { getEvent, type DomainContext } from '@holdfast/domain';
import { parse } from '../middleware/validate';

/**
 * `GET /v1/events/:eventId/stream`: Server-Sent Events `seat` {seatId, status}
 * and `availability` {ticketTypeId, available}, fed by Redis pub/sub so every
 * API process sees every change. Public, like the seat map (EventSource sends
 * no Authorization header).
 */
export function streamRoutes(ctx: DomainContext, feed: ChangeFeed): Router {
  const r = Router();
  r.get('/v1/events/:eventId/stream', async (req, res) => {
    parse(emptyQuery, req.query, 'query');
    const eventId = String(req.params.eventId);
    await getEvent(ctx, eventId);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    const stop = await feed.listen(eventId, (change) => {
      const { type, ...data } = change;
      res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    });
    // Subscribed: from here on no change is missed.
    res.write(': connected\n\n');
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15000);
    req.on('close', () => {
      clearInterval(heartbeat);
      stop();
    });
  });
  return r;
}
