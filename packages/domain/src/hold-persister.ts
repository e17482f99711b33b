import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DataRefused, insertHoldRecordsIfMissing, markWaitlistOffered, runTransaction, type Db, type DbClient, type NewHoldRow } from '@holdfast/db';
import type { HoldStore, OutboxEntry } from '@holdfast/hold-store';
import { withSpan } from '@holdfast/telemetry';
import type { Logger } from './context';
import { parseRecord } from './hold-view';
import { entryPayload } from './waitlist-line';
import { recordWebhookEvent } from './webhook-events';

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
 *
 * One record PostgreSQL refuses (a data error: SQLSTATE class 22 or 23) must
 * not block its event's outbox for ever: when a batch is refused, its records
 * are written one by one, and each refused one is parked (kept in the event's
 * parked stream with the error, counted, logged) and acknowledged, so the others
 * go on. Any other failure (PostgreSQL away, a timeout) leaves the batch for later.
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
    /** Hears how many records were parked (the apps count holdfast_outbox_parked_total). */
    private readonly onParked?: (count: number) => void,
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
          // The span `outbox.drain` (when tracing is on): a child of the hold whose notify set the timer,
          // and the parent of the expiry jobs it schedules (onPersisted).
          written += await withSpan('outbox.drain', { 'holdfast.event_id': eventId }, async (span) => {
            const n = await this.drain(eventId);
            span?.setAttribute('holdfast.outbox.written', n);
            return n;
          });
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
      const good: { entry: OutboxEntry; row: OfferRow }[] = [];
      const bad: { entry: OutboxEntry; error: string }[] = [];
      for (const entry of entries) {
        try {
          good.push({ entry, row: toRow(eventId, entry) });
        } catch (err) {
          bad.push({ entry, error: `unreadable record: ${(err as Error).message}` });
        }
      }
      let rows = good.map((g) => g.row);
      try {
        written += await insertWithOffers(this.db, eventId, good);
      } catch (err) {
        if (!(err instanceof DataRefused)) throw err;
        // One record spoils the batch: write them one by one, setting aside each refused one.
        rows = [];
        for (const g of good) {
          try {
            written += await insertWithOffers(this.db, eventId, [g]);
            rows.push(g.row);
          } catch (one) {
            if (!(one instanceof DataRefused)) throw one;
            bad.push({ entry: g.entry, error: `PostgreSQL refused the record (SQLSTATE ${one.sqlState}): ${one.message}` });
          }
        }
      }
      if (this.onPersisted && rows.length) await this.onPersisted(rows.map((r) => ({ id: r.id, eventId, expiresAt: r.expiresAt })));
      for (const b of bad) {
        await this.store.parkOutboxEntry(eventId, b.entry, b.error);
        this.log.error({ eventId, holdId: b.entry.holdId, error: b.error }, 'a hold record could not be persisted; parked in the outbox:parked stream');
      }
      if (bad.length) this.onParked?.(bad.length);
      // Written and parked entries alike leave the group's pending list and the stream.
      await this.store.ackClaimedOutbox(eventId, entries.map((e) => e.entryId));
      if (entries.length < 500) return written;
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** A hold offered to a waiting-list entry (its record names the entry). */
type OfferRow = NewHoldRow & { waitlistEntryId?: string };

/**
 * Inserts the holds (from their records' own JSON: insertHoldRecordsIfMissing);
 * the waiting-list entries offered some of them are marked offered in the same
 * transaction (an entry is never waiting in PostgreSQL while its offer's hold is
 * there: reconciliation would put it in line again).
 */
async function insertWithOffers(db: Db, eventId: string, good: readonly { entry: OutboxEntry; row: OfferRow }[]): Promise<number> {
  const offers: OfferRow[] = [];
  const records: OutboxEntry[] = [];
  for (const g of good) {
    records.push(g.entry);
    if (g.row.waitlistEntryId) offers.push(g.row);
  }
  const insert = (tx: DbClient) => insertHoldRecordsIfMissing(tx, eventId, records);
  if (!offers.length) return insert(db);
  return runTransaction(db, async (tx) => {
    const n = await insert(tx);
    const moved = await markWaitlistOffered(tx, offers.map((o) => ({ entryId: o.waitlistEntryId!, holdId: o.id, offeredAt: o.createdAt, expiresAt: o.expiresAt })));
    // Each entry offered now, with its waitlist.offered event (webhooks), in the holds' transaction.
    for (const entry of moved) {
      const r = offers.find((o) => o.id === entry.holdId)!;
      const hold = {
        id: r.id, eventId: r.eventId, customerId: r.customerId, status: 'active', createdAt: r.createdAt.toISOString(),
        expiresAt: r.expiresAt.toISOString(), items: r.items, totalCents: r.totalCents, currency: r.currency,
        orderId: null, releasedBy: null, extensions: 0,
      };
      await recordWebhookEvent(tx, 'waitlist.offered', { entry: entryPayload(entry, 'offered'), hold }, r.id);
    }
    return n;
  });
}

/** The row an outbox entry stands for; throws when its record is not a hold record. */
function toRow(eventId: string, e: OutboxEntry): OfferRow {
  const r = parseRecord(e.json);
  if (!r || typeof r !== 'object' || !Array.isArray(r.items) || typeof r.customerId !== 'string') {
    throw new Error('not a hold record');
  }
  return {
    id: e.holdId, eventId, customerId: r.customerId, createdAt: new Date(e.createdAtMs),
    expiresAt: new Date(e.expiresAtMs), items: r.items, totalCents: r.totalCents, currency: r.currency,
    ...(typeof r.waitlistEntryId === 'string' ? { waitlistEntryId: r.waitlistEntryId } : {}),
  };
}
