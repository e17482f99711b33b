import { isCluster, type RedisClient } from './redis-client';
import { eventKeys } from './keys';
import { StoreUnavailableError, translateErrorsOf } from './store-errors';

export type Change =
  | { type: 'seat'; seatId: string; status: 'available' | 'held' | 'sold' }
  | { type: 'availability'; ticketTypeId: string; available: number }
  /** The event's waiting room admitted places: how many so far, and how many wait (one message per admission, never per buyer). */
  | { type: 'queue'; admitted: number; waiting: number };

type Listener = (change: Change) => void;

/** How long a SUBSCRIBE may take before the listener is refused (Redis frozen or far away). */
const SUBSCRIBE_TIMEOUT_MS = 1000;

interface Subscription {
  listeners: Set<Listener>;
  /** Told when the subscriber connection is lost: changes published meanwhile are never heard. */
  interrupted: Map<Listener, () => void>;
  /** Settles when Redis confirmed the SUBSCRIBE; a failure forgets the subscription. */
  ready: Promise<void>;
}

/**
 * Seat and ticket changes of events, from the channel the hold scripts publish
 * to. One subscriber connection per process; an event's channel is subscribed
 * while anyone listens to it (ioredis re-subscribes after a reconnect). A
 * listener is refused at once while the connection is down, and a SUBSCRIBE
 * that fails or times out is forgotten, so the next listener subscribes again
 * (never a channel that looks subscribed and hears nothing). When the
 * connection is lost (Redis restarted, a shard failed over), every listener's
 * `onInterrupted` is called: changes published until ioredis has subscribed
 * again are never heard, so a listener that shows state must read it again.
 */
export class ChangeFeed {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly channelToEvent = new Map<string, string>();

  /** On a cluster: sharded pub/sub (SSUBSCRIBE on the shard of the event's slot). */
  private readonly sharded: boolean;

  constructor(private readonly subscriber: RedisClient, private readonly subscribeTimeoutMs = SUBSCRIBE_TIMEOUT_MS) {
    this.sharded = isCluster(subscriber);
    subscriber.on(this.sharded ? 'smessage' : 'message', (channel: string, message: string) => this.dispatch(channel, message));
    subscriber.on('close', () => this.interrupt());
    // On a cluster a node that leaves (a failed-over master) takes its shard's subscriptions with it.
    if (this.sharded) subscriber.on('-node', () => this.interrupt());
  }

  /** Every listener hears that its changes may have been missed. */
  private interrupt(): void {
    for (const sub of this.subscriptions.values()) for (const told of [...sub.interrupted.values()]) told();
  }

  /** Events with a subscription (confirmed or under way). */
  get subscribedEvents(): number {
    return this.subscriptions.size;
  }

  /** Refused with StoreUnavailableError ('subscription') while Redis cannot take the subscription. */
  async listen(eventId: string, listener: Listener, onInterrupted?: () => void): Promise<() => void> {
    if (this.subscriber.status !== 'ready') {
      throw new StoreUnavailableError('subscription', `Redis is not connected for subscriptions (${this.subscriber.status})`);
    }
    const channel = eventKeys(eventId).channel;
    let sub = this.subscriptions.get(eventId);
    if (!sub) {
      const created: Subscription = { listeners: new Set(), interrupted: new Map(), ready: this.subscribe(channel) };
      sub = created;
      this.subscriptions.set(eventId, created);
      this.channelToEvent.set(channel, eventId);
      created.ready.catch(() => this.forget(eventId, created, channel));
    }
    const current = sub;
    current.listeners.add(listener);
    if (onInterrupted) current.interrupted.set(listener, onInterrupted);
    const stop = () => {
      current.listeners.delete(listener);
      current.interrupted.delete(listener);
      if (current.listeners.size === 0) this.forget(eventId, current, channel);
    };
    try {
      await current.ready;
    } catch (err) {
      current.listeners.delete(listener);
      current.interrupted.delete(listener);
      throw err;
    }
    return stop;
  }

  private subscribe(channel: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new StoreUnavailableError('subscription', `Redis did not confirm the subscription within ${this.subscribeTimeoutMs} ms`)), this.subscribeTimeoutMs);
      (this.sharded ? this.subscriber.ssubscribe(channel) : this.subscriber.subscribe(channel)).then(
        () => { clearTimeout(timer); resolve(); },
        (err: Error) => { clearTimeout(timer); reject(new StoreUnavailableError('subscription', `Redis refused the subscription: ${err.message}`)); },
      );
    });
  }

  /** Drops an event's subscription if it is still the current one (its last listener left, or it failed). */
  private forget(eventId: string, sub: Subscription, channel: string): void {
    if (this.subscriptions.get(eventId) !== sub) return;
    this.subscriptions.delete(eventId);
    this.channelToEvent.delete(channel);
    // A SUBSCRIBE that timed out may still land: unsubscribe either way (harmless if it never did).
    (this.sharded ? this.subscriber.sunsubscribe(channel) : this.subscriber.unsubscribe(channel)).catch(() => undefined);
  }

  private dispatch(channel: string, message: string): void {
    const eventId = this.channelToEvent.get(channel);
    const set = eventId ? this.subscriptions.get(eventId)?.listeners : undefined;
    if (!set) return;
    let payload: { seatIds?: string[]; status?: string; ticketTypeId?: string; available?: number; queue?: { admitted?: unknown; waiting?: unknown } };
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
    } else if (payload.queue && typeof payload.queue.admitted === 'number' && typeof payload.queue.waiting === 'number') {
      changes.push({ type: 'queue', admitted: payload.queue.admitted, waiting: payload.queue.waiting });
    }
    for (const change of changes) for (const l of set) l(change);
  }
}

translateErrorsOf(ChangeFeed);
