// The waiting room's admission tick (issue 29): admission moves on about once a second per
// room with buyers waiting, on Redis's clock, whether or not anyone asks. Per event, not per
// buyer: one script call a second for each room this process knows of, whatever the crowd.
import type { QueueRoom, QueueTick } from '@holdfast/hold-store';
import type { EventRow, WaitingRoom } from '@holdfast/db';
import type { DomainContext } from './context';

/** How often each known room is ticked. */
export const QUEUE_TICK_MS = 1000;

const STATS_KEPT = 1000;

/** What this process's ticks of one room did. */
export interface QueueTickStats {
  /** Tick script calls made for the room. */
  calls: number;
  /** Places those calls admitted. */
  admitted: number;
}

type RoomOf = (event: EventRow & { waitingRoom: WaitingRoom }) => QueueRoom;

/**
 * Ticks the rooms this process knows of: an event is known from a join, a
 * `queue/me`, a seller's view or change, or a stream opened on it; it is
 * forgotten when its room has nobody waiting, has no room any more, is gone,
 * or its sale closed or ended (a later join or stream makes it known again).
 * Every API process may tick the same room: the bucket is in Redis, so more
 * ticks do not admit more. The timer runs only while some room is known, is
 * unref'd, and `stop` ends it (the runtime's close).
 */
export class QueueTicker {
  private readonly known = new Set<string>();
  private readonly stats = new Map<string, QueueTickStats>();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private stopped = false;

  constructor(
    private readonly ctx: () => DomainContext,
    private readonly roomOf: RoomOf,
    private readonly everyMs = QUEUE_TICK_MS,
  ) {}

  /** The event's room is ticked from now on (until it empties or closes). */
  watch(eventId: string): void {
    if (this.stopped) return;
    this.known.add(eventId);
    if (!this.timer) {
      this.timer = setInterval(() => void this.round(), this.everyMs);
      this.timer.unref();
    }
  }

  /** Whether the event's room is being ticked by this process. */
  watching(eventId: string): boolean {
    return this.known.has(eventId);
  }

  /** What this process's ticks of the event's room did so far (zeros: never ticked). */
  statsOf(eventId: string): QueueTickStats {
    return { ...(this.stats.get(eventId) ?? { calls: 0, admitted: 0 }) };
  }

  /** Ends the ticks (a round under way finishes; no new one starts). */
  stop(): void {
    this.stopped = true;
    this.known.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private forget(eventId: string): void {
    this.known.delete(eventId);
    if (this.known.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** One tick of every known room (a round still under way skips this one). */
  private async round(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await Promise.all([...this.known].map((eventId) => this.tickOne(eventId)));
    } finally {
      this.running = false;
    }
  }

  private async tickOne(eventId: string): Promise<void> {
    const ctx = this.ctx();
    try {
      const event = await ctx.catalog.settings(eventId);
      if (this.stopped) return;
      const ended = event?.salesEndAt && Date.now() >= event.salesEndAt.getTime();
      if (!event?.waitingRoom || event.salesStatus !== 'on_sale' || ended) {
        this.forget(eventId);
        return;
      }
      const tick: QueueTick = await ctx.store.queue.tick(this.roomOf(event as EventRow & { waitingRoom: WaitingRoom }));
      let s = this.stats.get(eventId);
      if (!s) {
        // The stats of the latest rooms only: a long-lived process sees many events.
        if (this.stats.size >= STATS_KEPT) this.stats.delete(this.stats.keys().next().value!);
        s = { calls: 0, admitted: 0 };
      }
      s.calls += 1;
      s.admitted += tick.admitted;
      this.stats.set(eventId, s);
      ctx.metrics.queueTickRun?.();
      ctx.metrics.queueTick?.(eventId, tick);
      if (tick.waiting === 0) this.forget(eventId);
    } catch (err) {
      // Redis or PostgreSQL away: the room stays known and is ticked again next second.
      ctx.log.debug({ err: (err as Error).message, eventId }, 'a waiting room tick failed; trying again next second');
    }
  }
}
