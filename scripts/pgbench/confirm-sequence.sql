-- The same shape as confirm-year-row.sql with the alternative numbering: a sequence.
-- One bench hold per transaction (nextval picks a fresh one): lock the hold
-- row, the seat fence, order + item, payment, hold CONFIRMED, then LAST the
-- order number from a PostgreSQL sequence (no row lock, gaps allowed), then COMMIT.
-- Variables: :event (bench event id), :year (a year no real order uses).
SELECT nextval('bench_confirm_n') AS n, gen_random_uuid() AS oid \gset
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT id FROM holds WHERE id = 'bench_' || :n FOR UPDATE;
UPDATE seats SET status = 'SOLD', order_id = ':oid' WHERE event_id = ':event' AND section = 'P' AND "row" = '1' AND number = :n AND status = 'AVAILABLE';
INSERT INTO orders (id, number, event_id, customer_id, hold_id, total_cents, currency, payment_reference, created_at) VALUES (':oid', 'pending-:oid', ':event', 'bench', 'bench_' || :n, 1000, 'USD', 'bench', now());
INSERT INTO order_items (id, order_id, seat_id, label, tier, price_cents, quantity, position) SELECT gen_random_uuid(), ':oid', s.id, s.label, s.tier, s.price_cents, 1, 0 FROM seats s WHERE s.event_id = ':event' AND s.section = 'P' AND s."row" = '1' AND s.number = :n;
INSERT INTO payments (id, provider, reference, hold_id, amount_cents, currency, status, order_id, event_id) VALUES (gen_random_uuid(), 'service', 'bench', 'bench_' || :n, 1000, 'USD', 'APPLIED', ':oid', ':event');
UPDATE holds SET status = 'CONFIRMED', order_id = ':oid', ended_at = now() WHERE id = 'bench_' || :n;
UPDATE orders SET number = 'HF-:year-' || lpad(nextval('bench_order_number_seq')::text, 6, '0') WHERE id = ':oid';
COMMIT;
