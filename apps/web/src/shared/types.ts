/**
 * Shapes of the v1 API objects, inferred from the zod schemas in
 * @holdfast/contracts that also generate the OpenAPI document: one definition.
 * Type-only imports: nothing of zod reaches the bundle.
 */
import type {
  auditEntryObject, createEventBody, errorBody, eventObject, holdItem, holdObject, orderObject, paymentObject, salesObject,
  seatObject, updateEventBody, z,
} from '@holdfast/contracts';

export type Event = z.infer<typeof eventObject>;
export type TicketType = Event['ticketTypes'][number];
export type Seat = z.infer<typeof seatObject>;
export type SeatStatus = Seat['status'];
export type HoldItem = z.infer<typeof holdItem>;
export type Hold = z.infer<typeof holdObject>;
export type HoldStatus = Hold['status'];
export type Order = z.infer<typeof orderObject>;
export type Payment = z.infer<typeof paymentObject>;
export type AuditEntry = z.infer<typeof auditEntryObject>;
export type Sales = z.infer<typeof salesObject>;
export type EventInput = z.input<typeof createEventBody>;
export type EventPatch = z.input<typeof updateEventBody>;
/** The body of every non-2xx response. */
export type ErrorBody = z.infer<typeof errorBody>;

/** What a hold request selects: given seats, best N in a tier, or general admission. */
export type HoldRequest =
  | { seatIds: string[] }
  | { tier: string; quantity: number }
  | { ticketTypeId: string; quantity: number };

export function isSeatItem(item: HoldItem): item is Extract<HoldItem, { seatId: string }> {
  return 'seatId' in item;
}
