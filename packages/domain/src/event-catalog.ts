import { findEvent, listSeats, type Db, type EventRow, type SeatRow } from '@holdfast/db';
import { sortTierSeats } from './best-available';

/** An event's immutable layout: what a hold request needs without touching PostgreSQL. */
export interface Catalog {
  event: EventRow;
  seats: SeatRow[];
  seatById: Map<string, SeatRow>;
  /** Seats of each tier sorted by price, then section, row and number. */
  tiers: Map<string, SeatRow[]>;
  ticketTypeById: Map<string, EventRow['ticketTypes'][number]>;
}

/**
 * Events' seats, prices and ticket types never change after creation, so each
 * process keeps them in memory (least recently used first out) and a hold costs
 * no PostgreSQL round trip.
 */
export class EventCatalog {
  private readonly cache = new Map<string, Promise<Catalog | null>>();

  constructor(private readonly db: Db, private readonly maxEvents = 32) {}

  get(eventId: string): Promise<Catalog | null> {
    let entry = this.cache.get(eventId);
    if (entry) {
      this.cache.delete(eventId);
      this.cache.set(eventId, entry);
      return entry;
    }
    entry = this.load(eventId);
    this.cache.set(eventId, entry);
    // Unknown events and failed loads are not remembered.
    entry.then(
      (c) => { if (!c) this.cache.delete(eventId); },
      () => this.cache.delete(eventId),
    );
    while (this.cache.size > this.maxEvents) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }

  private async load(eventId: string): Promise<Catalog | null> {
    const event = await findEvent(this.db, eventId);
    if (!event) return null;
    const seats = event.seatCount > 0 ? await listSeats(this.db, eventId) : [];
    const tiers = new Map<string, SeatRow[]>();
    for (const s of seats) {
      let t = tiers.get(s.tier);
      if (!t) tiers.set(s.tier, (t = []));
      t.push(s);
    }
    for (const t of tiers.values()) sortTierSeats(t);
    return {
      event,
      seats,
      seatById: new Map(seats.map((s) => [s.id, s])),
      tiers,
      ticketTypeById: new Map(event.ticketTypes.map((t) => [t.id, t])),
    };
  }
}
