/**
 * Shapes of the v1 API objects, from @holdfast/client's types (generated from
 * the API's OpenAPI document, itself rendered from the zod schemas in
 * @holdfast/contracts): one definition. Type-only: nothing reaches the bundle.
 */
import type { components } from '@holdfast/client';

type Schemas = components['schemas'];
export type Event = Schemas['Event'];
export type TicketType = Event['ticketTypes'][number];
export type Seat = Schemas['Seat'];
export type SeatStatus = Seat['status'];
export type HoldItem = Schemas['HoldItem'];
export type Hold = Schemas['Hold'];
export type HoldStatus = Hold['status'];
export type Order = Schemas['Order'];
export type Payment = Schemas['Payment'];
export type AuditEntry = Schemas['AuditEntry'];
export type Sales = Schemas['Sales'];
export type EventInput = Schemas['CreateEventBody'];
export type EventPatch = Schemas['UpdateEventBody'];
/** The body of every non-2xx response. */
export type ErrorBody = Schemas['Error'];

/** What a hold request selects: given seats, best N in a tier, or general admission. */
export type HoldRequest =
  | { seatIds: string[] }
  | { tier: string; quantity: number }
  | { ticketTypeId: string; quantity: number };

export function isSeatItem(item: HoldItem): item is Extract<HoldItem, { seatId: string }> {
  return 'seatId' in item;
}
