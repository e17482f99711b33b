import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { insertHoldsIfMissing, type Db } from '@holdfast/db';
import type { HoldStore } from '@holdfast/hold-store';
import type { Logger } from './context';
import { parseRecord } from './hold-view';

/** What the persisted-hook hears of each hold written. */
export interface PersistedHold {
  id: string;
  eventId: string;
  expiresAt: Date;
}

/**
 * Writes the durable records of new holds to PostgreSQL off the request path.
 * The hold script appends each hold to its event's outbox stream in Redis, in
 * the same atomic step as the hold; this drains the outboxes in batches.
 * Inserts skip rows that exist, so draining twice changes nothing. Every
 * process drains as one consumer of the outbox's consumer group, so processes
 * side by side never read the same entry, and the entries of a process that
 * died are taken over once they are idle for claimIdleMs (XAUTOCLAIM).
 */
export class HoldPersister {
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** This process's name in the outbox consumer group. */
  readonly consumer = `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  /** Entries another drainer took and left this long are taken over (it died). */
  claimIdleMs = 30_000;

  constructor(
    private readonly db: Db,
    private readonly store: HoldStore,
    private readonly log: Logger,
    private readonly delayMs = 20,
    /**
     * Called with every batch written (rows that existed already included),
     * before the outbox entries are acknowledged: when it throws, the batch is
     * drained again later. The apps schedule the holds' expiry jobs here.
     */
    private readonly onPersisted?: (rows: PersistedHold[]) => Promise<void>,
  ) {}

  /** A hold was just taken in this event: drain its outbox soon. */
  notify(eventId: string): void {
    this.dirty.add(eventId);
    if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.delayMs);
  }

  /** Drains the outboxes of the given events (all the dirty ones by default). */
  async flush(eventIds?: Iterable<string>): Promise<number> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.running) await this.running;
    const ids = [...(eventIds ?? this.dirty)];
    for (const id of ids) this.dirty.delete(id);
    let written = 0;
    const run = (async () => {
      for (const eventId of ids) {
        try {
          written += await this.drain(eventId);
        } catch (err) {
          this.dirty.add(eventId);
          this.log.warn({ err, eventId }, 'could not persist holds yet; will retry');
        }
      }
    })();
    this.running = run;
    await run;
    this.running = null;
    if (this.dirty.size && !this.timer) this.timer = setTimeout(() => void this.flush(), 1000);
    return written;
  }

  private async drain(eventId: string): Promise<number> {
    let written = 0;
    for (;;) {
      const entries = await this.store.claimOutbox(eventId, this.consumer, 500, this.claimIdleMs);
      if (!entries.length) return written;
      const rows = entries.map((e) => {
        const r = parseRecord(e.json);
        return {
          id: e.holdId, eventId, customerId: r.customerId, createdAt: new Date(e.createdAtMs),
          expiresAt: new Date(e.expiresAtMs), items: r.items, totalCents: r.totalCents, currency: r.currency,
        };
      });
      written += await insertHoldsIfMissing(this.db, rows);
      if (this.onPersisted) await this.onPersisted(rows.map((r) => ({ id: r.id, eventId, expiresAt: r.expiresAt })));
      await this.store.ackClaimedOutbox(eventId, entries.map((e) => e.entryId));
      if (entries.length < 500) return written;
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
