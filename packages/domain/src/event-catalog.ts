import { findEvent, listSeatMap, type Db, type EventRow, type SeatRow } from '@holdfast/db';
import { sortTierSeats } from './best-available';

/** An event's layout and settings: what a hold request needs without touching PostgreSQL. */
export interface Catalog {
  /** The event's row; its settings (hold time, limits, sale window) are re-read at most `settingsMaxAgeMs` old. */
  event: EventRow;
  /** When `event` was read (Date.now()). */
  readAt: number;
  seats: SeatRow[];
  seatById: Map<string, SeatRow>;
  /** Seats of each tier sorted by price, then section, row and number. */
  tiers: Map<string, SeatRow[]>;
  ticketTypeById: Map<string, EventRow['ticketTypes'][number]>;
}

/**
 * Events' seats, prices and ticket types never change after creation, so each
 * process keeps them in memory (least recently used first out) and a hold costs
 * no PostgreSQL round trip. The settings an admin may edit (hold time, limits,
 * sale window and status) are read again once they are a second old, so an edit
 * reaches every process within about a second (at once in the one that made it).
 */
export class EventCatalog {
  private readonly cache = new Map<string, Promise<Catalog | null>>();
  private readonly refreshing = new Map<string, Promise<void>>();
  /** The event last set in `cache` (its last entry while it is there). */
  private latest: string | null = null;
  /** Rows read for `settings` of events this process has no catalog of, each kept as long as a catalog's settings are. */
  private readonly rows = new Map<string, { row: Promise<EventRow | null>; readAt: number }>();

  constructor(private readonly db: Db, private readonly maxEvents = 32, private readonly settingsMaxAgeMs = 1000) {}

  /** Forgets an event (its settings changed): the next request reads it again. */
  invalidate(eventId: string): void {
    this.cache.delete(eventId);
    this.rows.delete(eventId);
  }

  async get(eventId: string): Promise<Catalog | null> {
    const catalog = await this.entry(eventId);
    if (catalog && Date.now() - catalog.readAt > this.settingsMaxAgeMs) await this.refresh(eventId, catalog);
    return catalog;
  }

  /**
   * The event's settings (limits, hold time, sale window): from the catalog when
   * this process has it, else one read of the event's row (the seat map is not
   * loaded for them). Null for an unknown event.
   */
  async settings(eventId: string): Promise<EventRow | null> {
    if (this.cache.has(eventId)) return (await this.get(eventId))?.event ?? null;
    // A confirm reads them for its claim and again to end the buyer's queue pass:
    // one read of the row per event a second serves both, and every other caller.
    const kept = this.rows.get(eventId);
    if (kept && Date.now() - kept.readAt <= this.settingsMaxAgeMs) return kept.row;
    if (this.rows.size >= this.maxEvents * 4) this.rows.clear();
    const entry = { row: findEvent(this.db, eventId), readAt: Date.now() };
    this.rows.set(eventId, entry);
    // A failed read (PostgreSQL away) is not kept: the next caller reads again.
    entry.row.catch(() => {
      if (this.rows.get(eventId) === entry) this.rows.delete(eventId);
    });
    return entry.row;
  }

  private refresh(eventId: string, catalog: Catalog): Promise<void> {
    let running = this.refreshing.get(eventId);
    if (!running) {
      const readAt = Date.now();
      running = findEvent(this.db, eventId)
        .then((row) => {
          if (row) Object.assign(catalog, { event: row, readAt });
          else this.cache.delete(eventId);
        })
        .finally(() => this.refreshing.delete(eventId));
      this.refreshing.set(eventId, running);
    }
    return running;
  }

  private entry(eventId: string): Promise<Catalog | null> {
    let entry = this.cache.get(eventId);
    if (entry) {
      // Moved to the end (most recently used) unless it is there already: a sale's
      // holds ask for one event over and over, and the move was a delete and an insert each time.
      if (this.latest !== eventId) {
        this.cache.delete(eventId);
        this.cache.set(eventId, entry);
        this.latest = eventId;
      }
      return entry;
    }
    entry = this.load(eventId);
    this.cache.set(eventId, entry);
    this.latest = eventId;
    // Unknown events and failed loads are not remembered.
    entry.then(
      (c) => { if (!c) this.cache.delete(eventId); },
      () => this.cache.delete(eventId),
    );
    while (this.cache.size > this.maxEvents) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }

  private async load(eventId: string): Promise<Catalog | null> {
    const readAt = Date.now();
    const event = await findEvent(this.db, eventId);
    if (!event) return null;
    // A seat map of up to 100,000 rows, read once per process: a longer statement budget.
    const seats = event.seatCount > 0 ? await listSeatMap(this.db, eventId) : [];
    const tiers = new Map<string, SeatRow[]>();
    for (const s of seats) {
      let t = tiers.get(s.tier);
      if (!t) tiers.set(s.tier, (t = []));
      t.push(s);
    }
    for (const t of tiers.values()) sortTierSeats(t);
    return {
      event,
      readAt,
      seats,
      seatById: new Map(seats.map((s) => [s.id, s])),
      tiers,
      ticketTypeById: new Map(event.ticketTypes.map((t) => [t.id, t])),
    };
  }
}
