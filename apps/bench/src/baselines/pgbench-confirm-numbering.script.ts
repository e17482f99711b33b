/**
 * A confirm's statements on holdfast's own tables, one confirm per transaction,
 * for pgbench, with its order number taken two ways: from the per-year row
 * (`order_sequences`, gap-free, the row locked until COMMIT) or from a
 * PostgreSQL sequence (no row lock, gaps allowed). Each transaction takes a
 * fresh bench hold (a sequence picks it): lock the hold row, sell its seat,
 * insert the order and its item, the payment, mark the hold CONFIRMED, then
 * LAST the number, COMMIT. pgbench variables: :event (the bench event), :year
 * (a year no real order uses). `suffix` names this run's sequences.
 */
export type Numbering = 'year-row' | 'sequence';

export function numberingSequences(suffix: string): { pick: string; orderNumber: string } {
  return { pick: `bench_confirm_n_${suffix}`, orderNumber: `bench_order_number_${suffix}` };
}

export function confirmNumberingScript(numbering: Numbering, suffix: string): string {
  const seq = numberingSequences(suffix);
  const number = numbering === 'year-row'
    ? `WITH q AS (INSERT INTO order_sequences (year, last_value) VALUES (:year, 1) ON CONFLICT (year) DO UPDATE SET last_value = order_sequences.last_value + 1 RETURNING last_value) UPDATE orders SET number = 'HF-:year-' || lpad(q.last_value::text, greatest(6, length(q.last_value::text)), '0') FROM q WHERE orders.id = ':oid';`
    : `UPDATE orders SET number = 'HF-:year-' || lpad(nextval('${seq.orderNumber}')::text, 6, '0') WHERE id = ':oid';`;
  return `SELECT nextval('${seq.pick}') AS n, gen_random_uuid() AS oid \\gset
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT id FROM holds WHERE id = 'bench_' || :n FOR UPDATE;
UPDATE seats SET status = 'SOLD', order_id = ':oid' WHERE event_id = ':event' AND section = 'P' AND "row" = '1' AND number = :n AND status = 'AVAILABLE';
INSERT INTO orders (id, number, event_id, customer_id, hold_id, total_cents, currency, payment_reference, created_at) VALUES (':oid', 'pending-:oid', ':event', 'bench', 'bench_' || :n, 1000, 'USD', 'bench', now());
INSERT INTO order_items (id, order_id, seat_id, label, tier, price_cents, quantity, position) SELECT gen_random_uuid(), ':oid', s.id, s.label, s.tier, s.price_cents, 1, 0 FROM seats s WHERE s.event_id = ':event' AND s.section = 'P' AND s."row" = '1' AND s.number = :n;
INSERT INTO payments (id, provider, reference, hold_id, amount_cents, currency, status, order_id, event_id) VALUES (gen_random_uuid(), 'service', 'bench', 'bench_' || :n, 1000, 'USD', 'APPLIED', ':oid', ':event');
UPDATE holds SET status = 'CONFIRMED', order_id = ':oid', ended_at = now() WHERE id = 'bench_' || :n;
${number}
COMMIT;
`;
}
