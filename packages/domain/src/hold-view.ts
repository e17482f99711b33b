import type { holdItem, holdObject, holdStatus, seatItem, ticketItem, z } from '@holdfast/contracts';
import type { HoldRow } from '@holdfast/db';
import type { HoldRecord } from '@holdfast/hold-store';

// The hold as the API answers it: the types are the contract's zod schemas' (packages/contracts).
export type SeatItem = z.output<typeof seatItem>;
export type TicketItem = z.output<typeof ticketItem>;
export type HoldItem = z.output<typeof holdItem>;
export type HoldStatus = z.output<typeof holdStatus>;
/** The contract's Hold object. */
export type Hold = z.output<typeof holdObject>;

/** What the hold script stores as the hold's JSON in Redis (and the outbox). */
export interface HoldRecordJson {
  eventId: string;
  customerId: string;
  items: HoldItem[];
  totalCents: number;
  currency: string;
  /** Set on a waiting-list offer: the entry it was made for. */
  waitlistEntryId?: string;
}

export const parseRecord = (json: string): HoldRecordJson => JSON.parse(json) as HoldRecordJson;

/** What a hold takes: its seats, or a quantity of one ticket type. */
export function holdContents(items: HoldItem[]): { seatIds: string[]; ticketTypeId: string | null; quantity: number } {
  const seatIds: string[] = [];
  let ticketTypeId: string | null = null;
  let quantity = 0;
  for (const item of items) {
    if ('seatId' in item) seatIds.push(item.seatId);
    else ticketTypeId = item.ticketTypeId;
    quantity += item.quantity;
  }
  return { seatIds, ticketTypeId, quantity };
}

/** An unconfirmed, unreleased hold reads expired once its time has passed. */
function effectiveStatus(status: HoldStatus, expiresAt: Date, now: number): HoldStatus {
  return status === 'active' && expiresAt.getTime() <= now ? 'expired' : status;
}

export function holdFromRow(row: HoldRow, now = Date.now()): Hold {
  return {
    id: row.id,
    eventId: row.eventId,
    customerId: row.customerId,
    status: effectiveStatus(row.status.toLowerCase() as HoldStatus, row.expiresAt, now),
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    items: row.items as HoldItem[],
    totalCents: row.totalCents,
    currency: row.currency,
    orderId: row.orderId,
    releasedBy: (row.releasedBy as Hold['releasedBy']) ?? null,
    extensions: row.extensions,
  };
}

export function holdFromRecord(record: HoldRecord, now = Date.now()): Hold {
  const r = parseRecord(record.json);
  const expiresAt = new Date(record.expiresAtMs);
  const status = (['active', 'confirmed', 'expired', 'released'].includes(record.status) ? record.status : 'active') as HoldStatus;
  return {
    id: record.holdId,
    eventId: r.eventId,
    customerId: r.customerId,
    status: effectiveStatus(status, expiresAt, now),
    createdAt: new Date(record.createdAtMs).toISOString(),
    expiresAt: expiresAt.toISOString(),
    items: r.items,
    totalCents: r.totalCents,
    currency: r.currency,
    orderId: null,
    releasedBy: null,
    extensions: record.extensions,
  };
}

/** The durable row for a hold known only from its Redis record. */
export function rowFromRecord(record: HoldRecord): Omit<HoldRow, 'status' | 'orderId' | 'releasedBy' | 'extensions'> {
  const r = parseRecord(record.json);
  return {
    id: record.holdId,
    eventId: r.eventId,
    customerId: r.customerId,
    createdAt: new Date(record.createdAtMs),
    expiresAt: new Date(record.expiresAtMs),
    items: r.items,
    totalCents: r.totalCents,
    currency: r.currency,
  };
}
