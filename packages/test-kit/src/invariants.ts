// The sale's invariants, checked over committed rows of one event. Tests call
// expectInvariants(db, eventId) after their races; a violation names the rows.
import type { Db } from '@holdfast/db';

interface Check {
  name: string;
  sql: string;
}

/** Each query returns the rows that break its rule (none when the rule holds). */
const CHECKS: Check[] = [
  {
    name: 'no seat is in two orders',
    sql: `SELECT i.seat_id::text AS seat_id, count(*)::int AS orders
          FROM order_items i JOIN orders o ON o.id = i.order_id
          WHERE o.event_id = $1::uuid AND i.seat_id IS NOT NULL AND NOT i.cancelled
          GROUP BY i.seat_id HAVING count(*) > 1`,
  },
  {
    // The lines of a cancelled order are set aside (cancelled): their seats are no longer theirs.
    name: 'a seat is SOLD iff it is in exactly one order, and seats.order_id names that order',
    sql: `SELECT s.id::text AS seat_id, s.status::text AS status, s.order_id::text AS seat_order,
                 array_agg(i.order_id::text) FILTER (WHERE i.order_id IS NOT NULL) AS item_orders
          FROM seats s LEFT JOIN order_items i ON i.seat_id = s.id AND NOT i.cancelled
          WHERE s.event_id = $1::uuid
          GROUP BY s.id, s.status, s.order_id
          HAVING (s.status = 'SOLD') <> (count(i.order_id) = 1)
              OR count(i.order_id) > 1
              OR (s.status = 'SOLD' AND s.order_id IS DISTINCT FROM min(i.order_id::text)::uuid)
              OR (s.status = 'AVAILABLE' AND s.order_id IS NOT NULL)`,
  },
  {
    name: 'every ticket type sells within capacity, and sold equals its order lines',
    sql: `SELECT t.id::text AS ticket_type_id, t.capacity, t.sold, COALESCE(sum(i.quantity), 0)::int AS in_orders
          FROM ticket_types t LEFT JOIN order_items i ON i.ticket_type_id = t.id AND NOT i.cancelled
          WHERE t.event_id = $1::uuid
          GROUP BY t.id, t.capacity, t.sold
          HAVING t.sold > t.capacity OR t.sold < 0 OR t.sold <> COALESCE(sum(i.quantity), 0)`,
  },
  {
    name: 'every order is backed by exactly one applied payment (Stripe or a service confirmation)',
    sql: `SELECT o.id::text AS order_id, o.number, count(p.id)::int AS applied_payments
          FROM orders o LEFT JOIN payments p ON p.order_id = o.id AND p.status = 'APPLIED'
          WHERE o.event_id = $1::uuid AND o.status <> 'cancelled'
          GROUP BY o.id, o.number HAVING count(p.id) <> 1`,
  },
  {
    name: 'a cancelled order has no applied payment and owes (or made) a refund for one',
    sql: `SELECT o.id::text AS order_id, o.number,
                 count(p.id) FILTER (WHERE p.status = 'APPLIED')::int AS applied,
                 count(p.id) FILTER (WHERE p.status = 'REFUND_REQUIRED')::int AS refund_required
          FROM orders o LEFT JOIN payments p ON p.order_id = o.id
          WHERE o.event_id = $1::uuid AND o.status = 'cancelled'
          GROUP BY o.id, o.number
          HAVING count(p.id) FILTER (WHERE p.status = 'APPLIED') > 0 OR count(p.id) FILTER (WHERE p.status = 'REFUND_REQUIRED') = 0`,
  },
  {
    name: 'no applied payment without its order, no refund-required payment with one',
    sql: `SELECT p.id::text AS payment_id, p.status::text AS status, p.order_id::text AS order_id
          FROM payments p LEFT JOIN orders o ON o.id = p.order_id
          WHERE p.event_id = $1::uuid
            AND ((p.status = 'APPLIED' AND (o.id IS NULL OR o.status = 'cancelled'))
              OR (p.status = 'REFUND_REQUIRED' AND p.order_id IS NOT NULL AND o.status IS DISTINCT FROM 'cancelled'))`,
  },
  {
    name: 'every payment is an order (APPLIED), an ignored record or refund_required; an ignored one has no order',
    sql: `SELECT p.id::text AS payment_id, p.status::text AS status, p.order_id::text AS order_id
          FROM payments p
          WHERE (p.event_id = $1::uuid OR p.hold_id IN (SELECT id FROM holds WHERE event_id = $1::uuid))
            AND (p.status NOT IN ('APPLIED', 'IGNORED', 'REFUND_REQUIRED') OR (p.status = 'IGNORED' AND p.order_id IS NOT NULL))`,
  },
  {
    name: 'no refund_required for a payment that has an order (same payment reference)',
    sql: `SELECT p.id::text AS payment_id, p.reference, o.id::text AS order_id
          FROM payments p JOIN orders o ON o.payment_reference = p.reference AND o.event_id = $1::uuid AND o.status <> 'cancelled'
          WHERE p.status = 'REFUND_REQUIRED'
            AND (p.event_id = $1::uuid OR p.hold_id IN (SELECT id FROM holds WHERE event_id = $1::uuid))`,
  },
  {
    name: 'a hold is CONFIRMED iff it has an order, and holds.order_id names it',
    sql: `SELECT h.id AS hold_id, h.status::text AS status, h.order_id::text AS hold_order, o.id::text AS order_id
          FROM holds h LEFT JOIN orders o ON o.hold_id = h.id
          WHERE h.event_id = $1::uuid
            AND ((h.status = 'CONFIRMED') <> (o.id IS NOT NULL) OR h.order_id IS DISTINCT FROM o.id)`,
  },
  {
    name: 'every order belongs to a hold of its event',
    sql: `SELECT o.id::text AS order_id, o.hold_id FROM orders o LEFT JOIN holds h ON h.id = o.hold_id
          WHERE o.event_id = $1::uuid AND (h.id IS NULL OR h.event_id <> o.event_id)`,
  },
  {
    name: "no customer owns more than the event's limit (maxTicketsPerCustomer: a seat counts one, a ticket line its quantity)",
    sql: `SELECT o.customer_id, e.max_tickets_per_customer AS "limit",
                 sum(CASE WHEN i.seat_id IS NOT NULL THEN 1 ELSE i.quantity END)::int AS owned
          FROM orders o JOIN order_items i ON i.order_id = o.id JOIN events e ON e.id = o.event_id
          WHERE o.event_id = $1::uuid AND o.status <> 'cancelled'
          GROUP BY o.customer_id, e.max_tickets_per_customer
          HAVING sum(CASE WHEN i.seat_id IS NOT NULL THEN 1 ELSE i.quantity END) > e.max_tickets_per_customer`,
  },
  {
    name: "each customer's sold count (customer_sales, the confirm's limit fence) equals what their orders hold",
    sql: `SELECT COALESCE(c.customer_id, o.customer_id) AS customer_id, c.sold, o.owned
          FROM (SELECT customer_id, sold FROM customer_sales WHERE event_id = $1::uuid) c
          FULL JOIN (SELECT o.customer_id, sum(CASE WHEN i.seat_id IS NOT NULL THEN 1 ELSE i.quantity END)::int AS owned
                     FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.event_id = $1::uuid AND o.status <> 'cancelled'
                     GROUP BY o.customer_id) o ON o.customer_id = c.customer_id
          WHERE COALESCE(c.sold, 0) <> COALESCE(o.owned, 0)`,
  },
  {
    // A hold's time: from its creation to its release (ended_at), its order's cancellation
    // (a confirmed hold keeps its seats, sold, until then), or else its expiresAt. Checked for
    // pairs with a waiting-list offer: two ordinary holds may overlap after Redis lost a lease
    // (PostgreSQL's fence then sells the seat once, the rules above).
    name: 'no seat of a waiting-list offer is in another hold at the same time',
    sql: `WITH spans AS (
            SELECT h.id, item->>'seatId' AS seat_id, h.created_at AS since,
                   CASE WHEN h.status = 'RELEASED' THEN LEAST(COALESCE(h.ended_at, h.expires_at), h.expires_at)
                        WHEN h.status = 'CONFIRMED' THEN COALESCE(o.cancelled_at, 'infinity'::timestamptz)
                        ELSE h.expires_at END AS until
            FROM holds h CROSS JOIN LATERAL jsonb_array_elements(h.items) item
            LEFT JOIN orders o ON o.hold_id = h.id
            WHERE h.event_id = $1::uuid AND item ? 'seatId')
          SELECT a.seat_id, a.id AS hold, b.id AS other_hold
          FROM spans a JOIN spans b ON a.seat_id = b.seat_id AND a.id < b.id
          WHERE a.since < b.until AND b.since < a.until
            AND EXISTS (SELECT 1 FROM waitlist_entries w WHERE w.hold_id IN (a.id, b.id))`,
  },
  {
    // An entry was offered while an earlier one of the same line that wanted no more was waiting.
    name: 'waiting-list offers go in join order',
    sql: `SELECT later.id::text AS offered_entry, earlier.id::text AS passed_over
          FROM waitlist_entries later JOIN waitlist_entries earlier
            ON earlier.event_id = later.event_id AND earlier.seq < later.seq AND earlier.quantity <= later.quantity
           AND earlier.tier IS NOT DISTINCT FROM later.tier AND earlier.ticket_type_id IS NOT DISTINCT FROM later.ticket_type_id
          WHERE later.event_id = $1::uuid AND later.offered_at IS NOT NULL
            AND earlier.created_at < later.offered_at
            AND (earlier.offered_at IS NULL OR earlier.offered_at > later.offered_at)
            AND (earlier.ended_at IS NULL OR earlier.ended_at > later.offered_at)`,
  },
  {
    name: 'order numbers have the form PREFIX-YYYY-NNNNNN',
    sql: `SELECT id::text AS order_id, number FROM orders
          WHERE event_id = $1::uuid AND number !~ '^[A-Z]+-[0-9]{4}-[0-9]{6,}$'`,
  },
];

export interface Violation {
  rule: string;
  rows: unknown[];
}

/** The rules broken for this event, with the offending rows; empty when all hold. */
export async function checkInvariants(db: Db, eventId: string): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const check of CHECKS) {
    const rows = await db.$queryRawUnsafe<unknown[]>(check.sql, eventId);
    if (rows.length) violations.push({ rule: check.name, rows });
  }
  return violations;
}

/** Throws with every broken rule and its rows. */
export async function expectInvariants(db: Db, eventId: string): Promise<void> {
  const violations = await checkInvariants(db, eventId);
  if (violations.length) {
    throw new Error(`invariants broken for event ${eventId}:\n${JSON.stringify(violations, null, 2)}`);
  }
}
