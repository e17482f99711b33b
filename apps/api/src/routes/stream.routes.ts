import type { ChangeFeed } from '@holdfast/hold-store';
import { emptyQuery } from '@holdfast/contracts';
import { errors, getEvent, watchQueue, type DomainContext } from '@holdfast/domain';
import { endpointOf } from '../endpoint';
import type { Metrics } from '../metrics';
import { err } from '../response-docs';

export interface StreamLimits {
  /** Streams open at once in this process. */
  maxConnections: number;
  /** Streams open at once from one client address. */
  maxConnectionsPerClient: number;
  /** Bytes waiting for one reader before its stream is closed. */
  maxBufferBytes: number;
}

export interface StreamDeps {
  ctx: DomainContext;
  feed: ChangeFeed;
  limits: StreamLimits;
  metrics: Metrics['stream'];
  /** Takes a place for one stream, or refuses; the returned release gives it back (once). */
  reserve: (address: string) => () => void;
}

/** The stream's dependencies, with this process's count of open streams. */
export function streamDeps(ctx: DomainContext, feed: ChangeFeed, limits: StreamLimits, metrics: Metrics['stream']): StreamDeps {
  const perClient = new Map<string, number>();
  let total = 0;

  const reserve = (address: string): (() => void) => {
    const mine = perClient.get(address) ?? 0;
    if (mine >= limits.maxConnectionsPerClient) {
      metrics.refused.inc({ reason: 'client_limit' });
      throw errors.streamLimit('client', limits.maxConnectionsPerClient);
    }
    if (total >= limits.maxConnections) {
      metrics.refused.inc({ reason: 'total_limit' });
      throw errors.streamLimit('total', limits.maxConnections);
    }
    perClient.set(address, mine + 1);
    total++;
    metrics.open.set(total);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      total--;
      const left = (perClient.get(address) ?? 1) - 1;
      if (left > 0) perClient.set(address, left);
      else perClient.delete(address);
      metrics.open.set(total);
    };
  };

  return { ctx, feed, limits, metrics, reserve };
}

const endpoint = endpointOf<StreamDeps>();

/**
 * `GET /v1/events/:eventId/stream`: Server-Sent Events `seat` {seatId, status},
 * `availability` {ticketTypeId, available} and `queue` {admitted, waiting, perMinute}, fed by Redis pub/sub so every
 * API process sees every change. Public, like the seat map (EventSource sends
 * no Authorization header).
 *
 * Bounded: at most `maxConnectionsPerClient` streams per client address and
 * `maxConnections` in all (503 STREAM_LIMIT_REACHED past either); a reader that
 * lets more than `maxBufferBytes` pile up is closed (its browser reconnects and
 * re-reads the seat map) instead of being buffered without end; while Redis
 * cannot take the subscription the stream answers 503 at once.
 */
export const STREAM_ENDPOINTS = [
  endpoint({
    method: 'get', path: '/v1/events/{eventId}/stream', operationId: 'streamEvent', tag: 'Events', query: emptyQuery,
    summary: 'Server-Sent Events: `seat` {seatId, status} when a seat changes status, `availability` {ticketTypeId, available} when a ticket type\'s availability changes, `queue` {admitted, waiting, perMinute} when the waiting room admits places (one message per admission, not per buyer; about one a second while a room admits): `admitted` counts the places admitted so far, so a waiting page is at its `queue/me` position − (admitted now − its answer\'s `admitted`) without asking again; `perMinute` is the pace wait estimates use.',
    responses: {
      200: { description: 'an event stream', contentType: 'text/event-stream' }, 404: err('EVENT_NOT_FOUND'),
      503: err('SERVICE_UNAVAILABLE: Redis (or PostgreSQL) is unavailable; or STREAM_LIMIT_REACHED: too many streams from this address or on the server (Retry-After)'),
    },
    handler: async ({ req, res, deps: { ctx, feed, limits, metrics, reserve }, params }) => {
      const eventId = params.eventId;
      const release = reserve(req.socket.remoteAddress ?? 'unknown');
      let open = false;
      const early: string[] = [];
      /** Writes a frame, or closes the stream of a reader that is not keeping up. */
      const send = (frame: string) => {
        if (res.destroyed) return;
        if (res.writableLength + Buffer.byteLength(frame) > limits.maxBufferBytes) {
          metrics.refused.inc({ reason: 'slow_reader' });
          ctx.log.debug({ eventId, buffered: res.writableLength }, 'closing the stream of a slow reader');
          res.destroy();
          return;
        }
        res.write(frame);
      };
      let stop: () => void;
      let lost = false;
      try {
        await getEvent(ctx, eventId);
        // A room with buyers waiting is ticked by this process too, while they wait (its readers' process may be gone).
        await watchQueue(ctx, eventId);
        // Subscribe before the headers go out: a client that re-reads the seat map
        // when the stream opens then misses no change made after that read.
        stop = await feed.listen(eventId, (change) => {
          const { type, ...data } = change;
          const frame = `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
          if (open) send(frame);
          else early.push(frame);
        }, () => {
          // Redis's subscription was lost: changes went unheard. The stream ends, so the reader
          // opens it again and re-reads what it shows (its reconnect's re-read, docs/http-api.md).
          if (!open) lost = true;
          else if (!res.destroyed) res.end();
        });
      } catch (err) {
        release();
        throw err;
      }
      if (req.socket.destroyed) {
        stop(); // the client left while we subscribed
        release();
        return;
      }
      if (lost) {
        // The connection was lost while subscribing: the reader tries again (503, Retry-After).
        stop();
        release();
        throw errors.unavailable('Redis');
      }
      res.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      open = true;
      send(`retry: 2000\n\n${early.join('')}: connected\n\n`);
      const heartbeat = setInterval(() => send(': keep-alive\n\n'), 15000);
      res.on('close', () => {
        clearInterval(heartbeat);
        stop();
        release();
      });
    },
  }),
];
