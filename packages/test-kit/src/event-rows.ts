/**
 * The statements that remove an event's rows, children first ($1: the event's
 * id); the rest (seats, ticket types, holds, orders, waiting lists…) go with
 * the event's row (ON DELETE CASCADE). One list for the suites (dropTestEvent)
 * and for a run's cleanup (removeWhatTheRunMade).
 */
export const EVENT_ROWS_DELETE: readonly string[] = [
  'DELETE FROM order_items WHERE order_id IN (SELECT id FROM orders WHERE event_id = $1::uuid)',
  'DELETE FROM payments WHERE event_id = $1::uuid OR hold_id IN (SELECT id FROM holds WHERE event_id = $1::uuid)',
  'DELETE FROM audit_entries WHERE event_id = $1::uuid',
  'DELETE FROM events WHERE id = $1::uuid',
];
