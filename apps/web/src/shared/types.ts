/** Shapes of the v1 API objects, as written in the HTTP contract. */

export interface TicketType {
  id: string;
  name: string;
  priceCents: number;
  capacity: number;
  available: number;
}

export interface Event {
  id: string;
  name: string;
  startsAt: string;
  currency: string;
  holdTtlSeconds: number;
  maxTicketsPerCustomer: number;
  seatCount: number;
  ticketTypes: TicketType[];
}

export type SeatStatus = 'available' | 'held' | 'sold';

export interface Seat {
  id: string;
  label: string;
  section: string;
  row: string;
  number: number;
  tier: string;
  priceCents: number;
  status: SeatStatus;
}

export type HoldItem =
  | { seatId: string; label: string; tier: string; priceCents: number; quantity: 1 }
  | { ticketTypeId: string; name: string; priceCents: number; quantity: number };

export type HoldStatus = 'active' | 'confirmed' | 'expired' | 'released';

export interface Hold {
  id: string;
  eventId: string;
  customerId: string;
  status: HoldStatus;
  createdAt: string;
  expiresAt: string;
  items: HoldItem[];
  totalCents: number;
  currency: string;
  orderId: string | null;
  releasedBy: 'customer' | 'admin' | null;
}

export interface Order {
  id: string;
  number: string;
  eventId: string;
  customerId: string;
  holdId: string;
  status: 'confirmed';
  items: HoldItem[];
  totalCents: number;
  currency: string;
  paymentReference: string;
  createdAt: string;
}

export interface Payment {
  id: string;
  provider: string;
  reference: string;
  holdId: string;
  amountCents: number;
  currency: string;
  status: 'applied' | 'refund_required';
  reason: string | null;
  orderId: string | null;
  receivedAt: string;
}

export interface AuditEntry {
  at: string;
  actor: string;
  action: string;
  holdId: string | null;
  orderId: string | null;
  reason: string | null;
}

/** The body of every non-2xx response. */
export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/** What a hold request selects: given seats, best N in a tier, or general admission. */
export type HoldRequest =
  | { seatIds: string[] }
  | { tier: string; quantity: number }
  | { ticketTypeId: string; quantity: number };

export function isSeatItem(item: HoldItem): item is Extract<HoldItem, { seatId: string }> {
  return 'seatId' in item;
}
