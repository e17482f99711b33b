/**
 * pgbench shaped like holdfast's group commit (issue 12): one transaction
 * confirms `perTransaction` seats at once, in one statement (holdfast sends one
 * statement per batch too): sell the seats with a conditional UPDATE, take
 * their order numbers with ONE upsert of the year row (+ perTransaction), insert
 * the orders, their items and their payments, COMMIT. Set-based, with no
 * savepoint per confirm: the honest limit of what PostgreSQL itself does with
 * batches of that size on this machine. Tables as in pgbench.runner.ts.
 */
export function confirmBatchScript(year: number, perTransaction: number): string {
  const b = Math.max(1, Math.floor(perTransaction));
  return `WITH pick AS (SELECT nextval('pgb_seat_pick') AS id FROM generate_series(1, ${b})),
sold AS (
  UPDATE pgb_seat SET status = 'SOLD' FROM pick
  WHERE pgb_seat.id = pick.id AND pgb_seat.status = 'AVAILABLE'
  RETURNING pgb_seat.id, pgb_seat.label, pgb_seat.price_cents),
num AS (
  INSERT INTO pgb_order_number (year, last_value) VALUES (${year}, ${b})
  ON CONFLICT (year) DO UPDATE SET last_value = pgb_order_number.last_value + ${b}
  RETURNING last_value),
ord AS (
  INSERT INTO pgb_order (number, hold_id, customer_id, total_cents, currency, status, payment_reference)
  SELECT 'HF-${year}-' || lpad((num.last_value - ${b} + row_number() OVER (ORDER BY sold.id))::text, 6, '0'),
         sold.id, 'customer-' || sold.id, sold.price_cents, 'USD', 'confirmed', 'pi_' || sold.id
  FROM sold, num
  RETURNING id, hold_id, total_cents),
items AS (
  INSERT INTO pgb_order_item (order_id, seat_id, label, price_cents)
  SELECT ord.id, sold.id, sold.label, sold.price_cents FROM ord JOIN sold ON sold.id = ord.hold_id)
INSERT INTO pgb_payment (provider, reference, hold_id, order_id, amount_cents, currency, status)
SELECT 'stripe', 'pi_' || ord.hold_id, ord.hold_id, ord.id, ord.total_cents, 'USD', 'applied' FROM ord;
`;
}
