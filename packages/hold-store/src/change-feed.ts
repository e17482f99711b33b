import { isCluster, type RedisClient } from './redis-client';
import { eventKeys } from './keys';

export type Change =
  | { type: 'seat'; seatId: string; status: 'available' | 'held' | 'sold' }
  | { type: 'availability'; ticketTypeId: string; available: number };

type Listener = (change: Change) => void;

/**
 * Seat and ticket changes of events, from the channel the hold scripts publish
 * to. One subscriber connection per process; an event's channel is subscribed
 * while anyone listens to it (ioredis re-subscribes after a reconnect).
 */
export class ChangeFeed {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly channelToEvent = new Map<string, string>();

  /** On a cluster: sharded pub/sub (SSUBSCRIBE on the shard of the event's slot). */
  private readonly sharded: boolean;

  constructor(private readonly subscriber: RedisClient) {
    this.sharded = isCluster(subscriber);
    subscriber.on(this.sharded ? 'smessage' : 'message', (channel: string, message: string) => this.dispatch(channel, message));
  }

  async listen(eventId: string, listener: Listener): Promise<() => void> {
    const channel = eventKeys(eventId).channel;
    let set = this.listeners.get(eventId);
    if (!set) {
      this.listeners.set(eventId, (set = new Set()));
      this.channelToEvent.set(channel, eventId);
      await (this.sharded ? this.subscriber.ssubscribe(channel) : this.subscriber.subscribe(channel));
    }
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (set!.size === 0 && this.listeners.get(eventId) === set) {
        this.listeners.delete(eventId);
        this.channelToEvent.delete(channel);
        (this.sharded ? this.subscriber.sunsubscribe(channel) : this.subscriber.unsubscribe(channel)).catch(() => undefined);
      }
    };
  }

  private dispatch(channel: string, message: string): void {
    const eventId = this.channelToEvent.get(channel);
    const set = eventId ? this.listeners.get(eventId) : undefined;
    if (!set) return;
    let payload: { seatIds?: string[]; status?: string; ticketTypeId?: string; available?: number };
    try {
      payload = JSON.parse(message);
    } catch {
      return;
    }
    const changes: Change[] = [];
    if (Array.isArray(payload.seatIds) && payload.status) {
      for (const seatId of payload.seatIds) changes.push({ type: 'seat', seatId, status: payload.status as 'held' });
    } else if (payload.ticketTypeId && typeof payload.available === 'number') {
      changes.push({ type: 'availability', ticketTypeId: payload.ticketTypeId, available: Math.max(0, payload.available) });
    }
    for (const change of changes) for (const l of set) l(change);
  }
}
