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
    // Subscribe before the headers go out: a client that re-reads the seat map
    // when the stream opens then misses no change made after that read.
    let open = false;
    const early: string[] = [];
    const stop = await feed.listen(eventId, (change) => {
      const { type, ...data } = change;
      const frame = `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
      if (open) res.write(frame);
      else early.push(frame);
    });
    if (req.socket.destroyed) {
      stop(); // the client left while we subscribed
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write(`retry: 2000\n\n${early.join('')}: connected\n\n`);
    open = true;
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15000);
    req.on('close', () => {
      clearInterval(heartbeat);
      stop();
    });
  });
  return r;
}
