import { setImmediate as nextTurn } from 'node:timers/promises';
import { findEvent, readSeatMapColumns, type Db, type EventRow, type SeatMapColumns, type SeatRow } from '@holdfast/db';
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

  /** Catalogs forgotten for their settings: the next load of the event takes their seats rather than read them again. */
  private readonly forgotten = new Map<string, Promise<Catalog | null>>();

  /** Forgets an event's settings (they changed): the next request reads its row again (its seats are kept). */
  invalidate(eventId: string): void {
    const entry = this.cache.get(eventId);
    this.cache.delete(eventId);
    this.rows.delete(eventId);
    if (entry) {
      if (this.forgotten.size >= this.maxEvents) this.forgotten.clear();
      this.forgotten.set(eventId, entry);
    }
  }

  /**
   * Loads the event's catalog ahead of its first hold (when a buyer reads the
   * event, before the sale), unless this process has it: concurrent callers
   * share one load, as with get(). True when the event has a catalog now; a
   * failed load answers false and is not kept (the next request loads again).
   */
  preload(eventId: string): Promise<boolean> {
    return this.entry(eventId).then((c) => c !== null, () => false);
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
    const forgotten = this.forgotten.get(eventId) ?? null;
    this.forgotten.delete(eventId);
    const loading = this.load(eventId, forgotten);
    entry = loading;
    this.cache.set(eventId, loading);
    this.latest = eventId;
    // Unknown events and failed loads are not remembered (a newer entry of the event is left alone).
    const forget = () => {
      if (this.cache.get(eventId) === loading) this.cache.delete(eventId);
    };
    loading.then((c) => { if (!c) forget(); }, forget);
    while (this.cache.size > this.maxEvents) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }

  private async load(eventId: string, forgotten: Promise<Catalog | null> | null): Promise<Catalog | null> {
    const readAt = Date.now();
    const event = await findEvent(this.db, eventId);
    if (!event) return null;
    const kept = forgotten && (await forgotten.catch(() => null));
    // The seats never change: a catalog forgotten for its settings gives its seats to the next.
    if (kept && kept.seats.length === event.seatCount) {
      return { ...kept, event, readAt, ticketTypeById: new Map(event.ticketTypes.map((t) => [t.id, t])) };
    }
    return loadCatalog(this.db, event, readAt);
  }
}

/** Seats made into the catalog per turn of the event loop: requests of other events are served in between. */
export const CATALOG_BUILD_CHUNK = 10_000;

/**
 * The catalog of an event whose row was read at `readAt`: its seat map read in
 * one statement (columns, not row objects) and built in one pass, a turn of the
 * event loop given back every CATALOG_BUILD_CHUNK seats.
 */
export async function loadCatalog(db: Db, event: EventRow, readAt: number): Promise<Catalog> {
  const map = event.seatCount > 0 ? await readSeatMapColumns(db, event.id) : null;
  return map ? buildCatalog(event, readAt, map) : {
    event, readAt, seats: [], seatById: new Map(), tiers: new Map(), ticketTypeById: new Map(event.ticketTypes.map((t) => [t.id, t])),
  };
}

async function buildCatalog(event: EventRow, readAt: number, map: SeatMapColumns): Promise<Catalog> {
  const { ids, sections, rows, numbers, labels, tiers: tierOf, priceCents } = map;
  const n = ids.length;
  const seats = new Array<SeatRow>(n);
  const seatById = new Map<string, SeatRow>();
  const tiers = new Map<string, SeatRow[]>();
  let tierName = '';
  let tier: SeatRow[] = [];
  for (let i = 0; i < n; i += 1) {
    if (i > 0 && i % CATALOG_BUILD_CHUNK === 0) await nextTurn();
    const s: SeatRow = { id: ids[i]!, section: sections[i]!, row: rows[i]!, number: numbers[i]!, label: labels[i]!, tier: tierOf[i]!, priceCents: priceCents[i]! };
    seats[i] = s;
    seatById.set(s.id, s);
    // Neighbours mostly share a tier: its list is looked up again only when the tier changes.
    if (s.tier !== tierName || i === 0) {
      tierName = s.tier;
      let t = tiers.get(tierName);
      if (!t) tiers.set(tierName, (t = []));
      tier = t;
    }
    tier.push(s);
  }
  for (const t of tiers.values()) {
    await nextTurn();
    sortTierSeats(t);
  }
  return { event, readAt, seats, seatById, tiers, ticketTypeById: new Map(event.ticketTypes.map((t) => [t.id, t])) };
}
