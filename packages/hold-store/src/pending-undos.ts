import type { Redis } from 'ioredis';
import { isCluster, type RedisClient } from './redis-client';
import { StoreUnavailableError, translateRedisError } from './store-errors';

/** An undo kept for later: what sends it, until when it is worth sending, and whether to wait for a new connection. */
interface Kept {
  undo: () => Promise<unknown>;
  untilMs: number;
  /**
   * It got no answer in time: it is still queued on its connection (Redis runs it
   * when it answers again, and ioredis sends it again on a new connection), so it
   * is sent once more only after a reconnect, not while Redis is frozen; once a
   * PING on that same connection is answered, it has run and is no longer kept.
   * Never on a cluster, which may not announce `ready` again.
   */
  afterReconnect: boolean;
}

/**
 * The undos of writes whose answers were lost (a hold given back, an
 * Idempotency-Key released), when the undo itself could not be sent: Redis was
 * unreachable, its connection closed, or a failover under way. Without this,
 * a hold that ran just before its connection was lost stayed held, by a hold
 * whose buyer was answered 503, until its lease ran out.
 *
 * Each undo is kept under its key and sent again when the client is ready
 * (its `ready` event, which ioredis announces after it has sent again what the
 * old connection left unanswered, so the undo comes after the write it undoes)
 * and every `everyMs` while the client is ready (a cluster stays `ready` while
 * one shard fails over), until Redis answers it or `untilMs` passes (the lease
 * has lapsed by then and there is nothing to undo). Every undo sent through
 * here must be idempotent: it may run more than once. At most `limit` are kept,
 * the oldest dropped first.
 */
export class PendingUndos {
  readonly #kept = new Map<string, Kept>();
  #timer: NodeJS.Timeout | null = null;
  #listening = false;
  #probing = false;
  /** Undos dropped: past their time, or over the limit. */
  dropped = 0;

  constructor(private readonly redis: RedisClient, private readonly limit = 10_000, private readonly everyMs = 1000) {}

  /** How many undos wait to be sent again. */
  get size(): number {
    return this.#kept.size;
  }

  /**
   * Sends `undo` now; if Redis could not take it (StoreUnavailableError), keeps it
   * to send again. Resolves once this attempt is settled; never rejects.
   */
  async send(key: string, undo: () => Promise<unknown>, untilMs: number): Promise<void> {
    try {
      await undo();
    } catch (err) {
      this.keepAfter(err, key, undo, untilMs);
    }
  }

  /** Keeps `undo`, which failed with `err`, to send again, if Redis could not take it (StoreUnavailableError). */
  keepAfter(err: unknown, key: string, undo: () => Promise<unknown>, untilMs: number): void {
    const e = translateRedisError(err);
    // A cluster may not announce `ready` again when one shard fails over: its undos go by the timer.
    if (e instanceof StoreUnavailableError) this.#keep(key, { undo, untilMs, afterReconnect: e.reason === 'timeout' && !isCluster(this.redis) });
  }

  #keep(key: string, kept: Kept): void {
    if (kept.untilMs <= Date.now()) {
      this.dropped += 1;
      return;
    }
    this.#kept.delete(key);
    if (this.#kept.size >= this.limit) {
      const oldest = this.#kept.keys().next().value as string;
      this.#kept.delete(oldest);
      this.dropped += 1;
    }
    this.#kept.set(key, kept);
    if (!this.#listening) {
      this.#listening = true;
      this.redis.on('ready', () => this.#flush(true));
    }
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#flush(false), this.everyMs);
      this.#timer.unref();
    }
  }

  /** Sends again what is kept, if the client can send now (`reconnected`: on its `ready` event). */
  #flush(reconnected: boolean): void {
    if (this.redis.status !== 'ready') return;
    const now = Date.now();
    const due: [string, Kept][] = [];
    for (const [key, kept] of this.#kept) {
      if (kept.untilMs <= now) {
        this.#kept.delete(key);
        this.dropped += 1;
      } else if (reconnected || !kept.afterReconnect) {
        this.#kept.delete(key);
        due.push([key, kept]);
      }
    }
    this.#stopWhenEmpty();
    // A send that fails again keeps its undo again (and sets the timer again).
    for (const [key, kept] of due) void this.send(key, kept.undo, kept.untilMs);
    if (!reconnected) void this.#settleAnswered();
  }

  /**
   * The undos kept for a reconnect that Redis has run after all: it answered
   * again (a PING sent after them on the same connection came back), so they
   * ran before it. Without this they would wait, counted, for their lease.
   */
  async #settleAnswered(): Promise<void> {
    if (this.#probing || isCluster(this.redis)) return;
    const waiting = [...this.#kept].filter(([, kept]) => kept.afterReconnect);
    if (waiting.length === 0) return;
    const client = this.redis as Redis;
    const connection = client.stream;
    this.#probing = true;
    try {
      await client.ping();
      if (client.stream !== connection) return;
      for (const [key, kept] of waiting) if (this.#kept.get(key) === kept) this.#kept.delete(key);
      this.#stopWhenEmpty();
    } catch {
      // Still no answer: they stay kept.
    } finally {
      this.#probing = false;
    }
  }

  #stopWhenEmpty(): void {
    if (this.#kept.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }
}
