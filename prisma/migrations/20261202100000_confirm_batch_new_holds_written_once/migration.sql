-- The confirm function's set path writes a hold the outbox has not written yet once, in its final
-- state (prisma/functions/holdfast_confirm_batch.plpgsql): confirmed with its order, expired, or
-- active when its claim lapsed, read from its Redis record, instead of inserted active first and
-- then updated (holds has four indexes, and the update of its status wrote the row and each of
-- them again). The insert of every record first stays for the one-by-one path.

CREATE OR REPLACE FUNCTION holdfast_confirm_batch(confirms jsonb)
RETURNS TABLE (idx int, kind text, order_json jsonb, detail jsonb)
LANGUAGE plpgsql
AS E'DECLARE
  c jsonb\073
  i int := 0\073
  h holds%ROWTYPE\073
  rec jsonb\073
  seat_ids uuid[]\073
  seat_orders uuid[]\073
  seat_events uuid[]\073
  tt_id uuid\073
  tt_qty int\073
  n int\073
  new_order uuid\073
  kinds text[] := ''{}''\073
  order_ids uuid[] := ''{}''\073
  survivor_ids uuid[] := ''{}''\073
  survivor_years int[] := ''{}''\073
  survivor_numbers text[] := ''{}''\073
  survivor_holds text[] := ''{}''\073
  survivor_events uuid[] := ''{}''\073
  survivor_customers text[] := ''{}''\073
  survivor_totals bigint[] := ''{}''\073
  survivor_currencies text[] := ''{}''\073
  survivor_refs text[] := ''{}''\073
  survivor_items jsonb[] := ''{}''\073
  y int\073
  cnt int\073
  last_n bigint\073
  j int\073
  st interval\073
  fast boolean := false\073
  n_conf int\073
  hold_ids text[]\073
  c_confs jsonb[]\073
  expired_ids text[]\073
  survivor_confs jsonb[]\073
  tt_ids uuid[]\073
  tt_events uuid[]\073
  tt_qtys bigint[]\073
  all_holds text[]\073
  details jsonb[] := ''{}''\073
  lock_until timestamptz\073
  number_wait interval\073
  num_ts timestamptz\073
  db_year int\073
  qty int\073
  lim int\073
  newly_expired text[] := ''{}''\073
  new_flags boolean[]\073
  new_count int\073
  old_survivors text[]\073
BEGIN
  -- Lock waits have one budget for the whole batch, not one per row: a third of the session''s
  -- statement timeout (5 s without one), shared by every statement below that may wait for a
  -- row another transaction holds (the set, then each confirm of the loop, each given what is
  -- left, at least 1 ms). Past it, a confirm whose row is still locked steps aside (busy) and is
  -- tried again while the rest of the batch goes on: locked rows add up to one wait, never to
  -- the statement timeout. The order numbers have a wait of their own, a sixth of the statement
  -- timeout (2 s without one)\073 past it, the batch''s new orders are undone and answered busy.
  st := current_setting(''statement_timeout'')::interval\073
  IF st > interval ''0'' AND st / 3 < interval ''5 s'' THEN
    lock_until := clock_timestamp() + st / 3\073
    number_wait := st / 6\073
  ELSE
    lock_until := clock_timestamp() + interval ''5 s''\073
    number_wait := interval ''2 s''\073
  END IF\073
  PERFORM set_config(''lock_timeout'', greatest(1, ceil(extract(epoch FROM lock_until - clock_timestamp()) * 1000))::int::text || ''ms'', true)\073
  -- Generic plans for this function''s statements: their parameters are arrays of the batch, so a
  -- plan made for one batch''s values is no better than the generic one, and planning each
  -- statement anew cost a small batch more than its work (a batch of one 1.43 ms, 0.87 ms generic).
  PERFORM set_config(''plan_cache_mode'', ''force_generic_plan'', true)\073
  -- No sequential scans in this transaction, the foreign-key checks its inserts fire included:
  -- every table it reads is read by key, and a generic plan lives as long as the session. A
  -- session that first ran a batch while orders was empty (a new database, or the bench''s VACUUM
  -- after its warm-up, which truncates the emptied tables) otherwise planned the checks of
  -- order_items and payments against orders, and the answers'' lookups of orders and order_items,
  -- as scans of the whole table, and kept them while the table grew: the bench''s round 1 spent
  -- 2.5-3 times the PostgreSQL CPU per batch of rounds 2 and 3, whose new sessions planned on
  -- tables that had pages. A table with no usable index is still scanned (the only way left),
  -- but its plan then costs over 10^10, past jit_above_cost: JIT compiled the two webhook checks
  -- at every batch (272 + 102 ms a batch). No statement here is big enough for JIT to pay: off.
  PERFORM set_config(''enable_seqscan'', ''off'', true)\073
  PERFORM set_config(''jit'', ''off'', true)\073
  -- No statement joins the batch''s rows to holds or seats: each reads them by key (id = ANY
  -- (...), or a lateral lookup by id) and takes the batch''s values by position in its arrays, so
  -- its plan can only read those tables by their primary key for the batch''s keys, whatever the
  -- table''s statistics say. Planned with statistics taken while the tables were nearly empty
  -- (ANALYZE before a sale\073 the bench''s database, autovacuum off), joins hashed, merged or
  -- scanned the WHOLE table: a batch of 22 among 44,000 holds and seats took 99-156 ms, 8-11 ms
  -- without the joins. The seats'' fence compares the status as text: "status = ''AVAILABLE''"
  -- matched the partial index of available seats, and such a plan read every available seat.
  -- Everything that writes runs in this block: a lock on the order numbers that does not come
  -- in time undoes it (see its handler), and the batch''s confirms are answered as they stand.
  BEGIN
  -- The whole batch first as one set: the holds locked in one statement, then each write of
  -- the confirms (the fence on seats and on ticket types, the customers'' limits, the payments,
  -- the holds, the audit) one statement for the batch, under one savepoint. Any refusal in it (a
  -- fence, a limit, a duplicate, a value that is not valid, a lock past the timeout, a deadlock)
  -- rolls the set back, and the batch goes through the loop below instead, one savepoint per
  -- confirm, which refuses that confirm alone. In a sale almost every batch passes as a set: a
  -- handful of statements for the batch instead of a handful per confirm. Below four confirms
  -- the loop costs no more than the set (measured: docs/benchmarks.md, "Issue 12, sixth pass"),
  -- so a lone confirm goes straight through the loop and waits for nothing it does not need.
  -- A hold the outbox has not written yet (in a sale, most of them: the batch comes within
  -- milliseconds of the hold) is read from its Redis record and its row written once, in its
  -- final state (confirmed with its order, expired, or still active when its claim lapsed),
  -- instead of inserted active and then updated: holds has four indexes and the update of
  -- its status wrote each row a second time with all four.
  IF jsonb_typeof(confirms) = ''array'' AND jsonb_array_length(confirms) >= 4 THEN
  BEGIN
    SELECT COALESCE(array_agg(r.c->>''holdId'' ORDER BY r.ord), ''{}''), COALESCE(array_agg(r.c ORDER BY r.ord), ''{}'')
      INTO hold_ids, c_confs
      FROM jsonb_array_elements(confirms) WITH ORDINALITY AS r(c, ord)\073
    n_conf := cardinality(hold_ids)\073
    -- A hold twice in one batch, or a confirm without a hold id: the loop answers those.
    IF n_conf = 0 OR (SELECT count(DISTINCT u) FROM unnest(hold_ids) AS u) <> n_conf THEN
      RAISE EXCEPTION ''one by one'' USING ERRCODE = ''HF002''\073
    END IF\073
    PERFORM set_config(''lock_timeout'', greatest(1, ceil(extract(epoch FROM lock_until - clock_timestamp()) * 1000))::int::text || ''ms'', true)\073
    -- The holds, locked in id order (two batches lock shared rows in one order).
    PERFORM 1 FROM holds WHERE id = ANY (hold_ids) ORDER BY id FOR UPDATE\073
    -- What each confirm is, in batch order\073 a created one gets its order''s id here. A confirm
    -- whose claim on the hold''s lease ends before it could commit (claimMs, counted from the
    -- statement''s start) is not written: lapsed, the API takes its claim again.
    SELECT array_agg(x.k ORDER BY x.ord),
           array_agg(x.order_id ORDER BY x.ord),
           COALESCE(array_agg(x.hold_id ORDER BY x.ord) FILTER (WHERE x.k = ''expired''), ''{}''),
           COALESCE(array_agg(x.order_id ORDER BY x.ord) FILTER (WHERE x.k = ''created''), ''{}''),
           COALESCE(array_agg((x.c->>''year'')::int ORDER BY x.ord) FILTER (WHERE x.k = ''created''), ''{}''),
           COALESCE(array_agg(x.hold_id ORDER BY x.ord) FILTER (WHERE x.k = ''created''), ''{}''),
           COALESCE(array_agg(x.event_id ORDER BY x.ord) FILTER (WHERE x.k = ''created''), ''{}''),
           COALESCE(array_agg(x.customer_id ORDER BY x.ord) FILTER (WHERE x.k = ''created''), ''{}''),
           COALESCE(array_agg(x.total_cents ORDER BY x.ord) FILTER (WHERE x.k = ''created''), ''{}''),
           COALESCE(array_agg(x.currency ORDER BY x.ord) FILTER (WHERE x.k = ''created''), ''{}''),
           COALESCE(array_agg(x.c->>''reference'' ORDER BY x.ord) FILTER (WHERE x.k = ''created''), ''{}''),
           COALESCE(array_agg(x.items ORDER BY x.ord) FILTER (WHERE x.k = ''created''), ''{}''),
           COALESCE(array_agg(x.c ORDER BY x.ord) FILTER (WHERE x.k = ''created''), ''{}''),
           array_agg(x.is_new ORDER BY x.ord),
           count(*) FILTER (WHERE x.is_new),
           COALESCE(array_agg(x.hold_id ORDER BY x.ord) FILTER (WHERE x.k = ''created'' AND NOT x.is_new), ''{}'')
      INTO kinds, order_ids, expired_ids, survivor_ids, survivor_years, survivor_holds, survivor_events,
           survivor_customers, survivor_totals, survivor_currencies, survivor_refs, survivor_items, survivor_confs,
           new_flags, new_count, old_survivors
      FROM (
        SELECT y.*,
               CASE y.k WHEN ''created'' THEN gen_random_uuid()
                        WHEN ''existing'' THEN COALESCE(y.h_order_id, (SELECT o.id FROM orders o WHERE o.hold_id = y.hold_id))
               END AS order_id
        FROM (
          SELECT r.ord, r.c, hh.id AS hold_id, hh.event_id, hh.customer_id, hh.total_cents, hh.currency,
                 hh.items, hh.order_id AS h_order_id, COALESCE(hh.is_new, false) AS is_new,
                 CASE WHEN hh.id IS NULL THEN ''not_found''
                      WHEN hh.status = ''CONFIRMED'' THEN ''existing''
                      WHEN hh.status = ''RELEASED'' THEN ''released''
                      WHEN NOT COALESCE((r.c->>''held'')::boolean, false) THEN ''expired''
                      WHEN clock_timestamp() >= statement_timestamp() + (r.c->>''claimMs'')::bigint * interval ''1 ms'' THEN ''lapsed''
                      ELSE ''created''
                 END AS k
          FROM unnest(c_confs) WITH ORDINALITY AS r(c, ord)
          -- The hold''s row, or else its record, as the row it will be (the currency as its char(3) column keeps it).
          LEFT JOIN LATERAL (
            SELECT holds.id, holds.event_id, holds.customer_id, holds.total_cents, holds.currency::text AS currency, holds.items,
                   holds.order_id, holds.status::text AS status, false AS is_new
            FROM holds WHERE holds.id = r.c->>''holdId''
            UNION ALL
            SELECT r.c->>''holdId'', (r.c->''record''->>''eventId'')::uuid, r.c->''record''->>''customerId'',
                   (r.c->''record''->>''totalCents'')::bigint, (r.c->''record''->>''currency'')::char(3)::text, r.c->''record''->''items'',
                   NULL::uuid, ''ACTIVE'', true
            WHERE jsonb_typeof(r.c->''record'') = ''object''
            LIMIT 1) hh ON true
        ) y
      ) x\073
    -- A confirmed hold without an order: the loop.
    IF EXISTS (SELECT 1 FROM unnest(kinds, order_ids) AS t(k, o) WHERE t.k = ''existing'' AND t.o IS NULL) THEN
      RAISE EXCEPTION ''one by one'' USING ERRCODE = ''HF002''\073
    END IF\073
    IF cardinality(expired_ids) > 0 THEN
      -- Their leases lapsed and their items are someone else''s now (Redis''s clock decided): expired.
      WITH u AS (UPDATE holds SET status = ''EXPIRED'', ended_at = now() WHERE id = ANY (expired_ids) AND status = ''ACTIVE'' RETURNING id)
      SELECT COALESCE(array_agg(u.id), ''{}'') INTO newly_expired FROM u\073
    END IF\073
    IF cardinality(survivor_ids) > 0 THEN
      -- Every value the order and its items will be written with, checked now.
      PERFORM (e->>''seatId'')::uuid, (e->>''ticketTypeId'')::uuid, (e->>''priceCents'')::bigint, (e->>''quantity'')::int
      FROM unnest(survivor_items) AS s(items), jsonb_array_elements(s.items) e\073
      -- The fence on seats: every seat of every created confirm, AVAILABLE until now.
      -- (A seat twice in the batch is sold once: fewer rows than seats, and the loop answers it.)
      SELECT COALESCE(array_agg((e->>''seatId'')::uuid), ''{}''), COALESCE(array_agg(s.order_id), ''{}''),
             COALESCE(array_agg(s.event_id), ''{}'')
        INTO seat_ids, seat_orders, seat_events
        FROM unnest(survivor_ids, survivor_events, survivor_items) AS s(order_id, event_id, items),
             jsonb_array_elements(s.items) e
        WHERE e ? ''seatId''\073
      cnt := cardinality(seat_ids)\073
      IF cnt > 0 THEN
        UPDATE seats SET status = ''SOLD'', order_id = seat_orders[array_position(seat_ids, seats.id)]
        WHERE seats.id = ANY (seat_ids) AND seats.status::text = ''AVAILABLE''
          AND seats.event_id = seat_events[array_position(seat_ids, seats.id)]\073
        GET DIAGNOSTICS n = ROW_COUNT\073
        IF n <> cnt THEN RAISE EXCEPTION ''fence'' USING ERRCODE = ''HF002''\073 END IF\073
      END IF\073
      -- The fence on each customer''s limit: what the batch sells each customer of each event
      -- (a seat counts one, a ticket line its quantity), added to what they bought before only
      -- while it stays within the event''s maxTicketsPerCustomer. One upsert for the batch, rows in
      -- key order (two batches lock shared rows in one order).
      WITH want AS (
        SELECT s.event_id, s.customer_id, sum(CASE WHEN e ? ''seatId'' THEN 1 ELSE (e->>''quantity'')::int END)::int AS qty
        FROM unnest(survivor_events, survivor_customers, survivor_items) AS s(event_id, customer_id, items),
             jsonb_array_elements(s.items) e
        GROUP BY 1, 2
      ), sold AS (
        INSERT INTO customer_sales AS cs (event_id, customer_id, sold)
        SELECT w.event_id, w.customer_id, w.qty FROM want w JOIN events ev ON ev.id = w.event_id
        WHERE w.qty <= ev.max_tickets_per_customer
        ORDER BY 1, 2
        ON CONFLICT (event_id, customer_id) DO UPDATE SET sold = cs.sold + EXCLUDED.sold
        WHERE cs.sold + EXCLUDED.sold <= (SELECT ev.max_tickets_per_customer FROM events ev WHERE ev.id = cs.event_id)
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM want), (SELECT count(*) FROM sold) INTO cnt, n\073
      IF n <> cnt THEN RAISE EXCEPTION ''limit'' USING ERRCODE = ''HF002''\073 END IF\073
      INSERT INTO payments (id, provider, provider_event_id, reference, hold_id, amount_cents, currency, status, order_id, event_id)
      SELECT gen_random_uuid(), s.c->>''provider'', s.c->>''providerEventId'', s.c->>''reference'', s.hold_id,
             COALESCE((s.c->>''amountCents'')::bigint, s.total_cents), upper(COALESCE(s.c->>''currency'', s.currency)),
             ''APPLIED'', s.order_id, s.event_id
      FROM unnest(survivor_confs, survivor_holds, survivor_totals, survivor_currencies, survivor_ids, survivor_events)
        AS s(c, hold_id, total_cents, currency, order_id, event_id)\073
    END IF\073
    -- The new holds'' rows, each once and in its final state, in id order (as the outbox drain
    -- inserts them). A row that appeared meanwhile (the drain wrote it) is not overwritten: the
    -- batch goes one by one.
    IF new_count > 0 THEN
      INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency, order_id, ended_at)
      SELECT t.c->>''holdId'', (t.c->''record''->>''eventId'')::uuid, t.c->''record''->>''customerId'',
             (CASE t.k WHEN ''created'' THEN ''CONFIRMED'' WHEN ''expired'' THEN ''EXPIRED'' ELSE ''ACTIVE'' END)::"HoldStatus",
             (t.c->''record''->>''createdAt'')::timestamptz, (t.c->''record''->>''expiresAt'')::timestamptz, t.c->''record''->''items'',
             (t.c->''record''->>''totalCents'')::bigint, t.c->''record''->>''currency'',
             CASE WHEN t.k = ''created'' THEN t.o END, CASE WHEN t.k IN (''created'', ''expired'') THEN now() END
      FROM unnest(c_confs, kinds, order_ids, new_flags) AS t(c, k, o, nw)
      WHERE t.nw
      ORDER BY t.c->>''holdId''
      ON CONFLICT (id) DO NOTHING\073
      GET DIAGNOSTICS n = ROW_COUNT\073
      IF n <> new_count THEN RAISE EXCEPTION ''one by one'' USING ERRCODE = ''HF002''\073 END IF\073
      newly_expired := newly_expired
        || ARRAY(SELECT t.c->>''holdId'' FROM unnest(c_confs, kinds, new_flags) WITH ORDINALITY AS t(c, k, nw, ord)
                 WHERE t.nw AND t.k = ''expired'' ORDER BY t.ord)\073
    END IF\073
    IF cardinality(survivor_ids) > 0 THEN
      -- The rows that were there, still active (a row the outbox wrote after the holds were
      -- locked was not locked: it must still be active, or the batch goes one by one).
      IF cardinality(old_survivors) > 0 THEN
        UPDATE holds SET status = ''CONFIRMED'', order_id = survivor_ids[array_position(survivor_holds, holds.id)], ended_at = now()
        WHERE holds.id = ANY (old_survivors) AND holds.status::text = ''ACTIVE''\073
        GET DIAGNOSTICS n = ROW_COUNT\073
        IF n <> cardinality(old_survivors) THEN RAISE EXCEPTION ''one by one'' USING ERRCODE = ''HF002''\073 END IF\073
      END IF\073
      INSERT INTO audit_entries (id, actor, action, event_id, hold_id, order_id, reason)
      SELECT gen_random_uuid(), s.c->>''auditActor'', ''order.confirmed'', s.event_id, s.hold_id, s.order_id,
             ''payment reference '' || (s.c->>''reference'')
      FROM unnest(survivor_confs, survivor_events, survivor_holds, survivor_ids) AS s(c, event_id, hold_id, order_id)
      WHERE s.c->>''auditActor'' IS NOT NULL\073
      -- The fence on ticket types, last of the set: each confirm''s quantity of its type, summed
      -- per type, types in id order. A general-admission type''s row is every batch''s row and
      -- stays locked until COMMIT, so it is taken after the batch''s own rows (holds, seats,
      -- limits, payments, audit): a second batch in flight does all of that while the first
      -- holds the row, and waits only for its hot tail (this row, the order numbers, the orders).
      SELECT COALESCE(array_agg(a.tt ORDER BY a.tt), ''{}''), COALESCE(array_agg(a.event_id ORDER BY a.tt), ''{}''),
             COALESCE(array_agg(a.qty ORDER BY a.tt), ''{}'')
        INTO tt_ids, tt_events, tt_qtys
        FROM (SELECT p.tt, p.event_id, sum(p.qty)::bigint AS qty FROM (
                SELECT s.event_id, max((e->>''ticketTypeId'')::uuid::text)::uuid AS tt, sum((e->>''quantity'')::int) AS qty
                FROM unnest(survivor_events, survivor_items) WITH ORDINALITY AS s(event_id, items, ord), jsonb_array_elements(s.items) e
                WHERE e ? ''ticketTypeId'' GROUP BY s.ord, s.event_id) p
              GROUP BY p.tt, p.event_id) a\073
      IF cardinality(tt_ids) > 0 THEN
        UPDATE ticket_types SET sold = sold + a.qty
        FROM unnest(tt_ids, tt_events, tt_qtys) AS a(tt, event_id, qty)
        WHERE ticket_types.id = a.tt AND ticket_types.event_id = a.event_id AND ticket_types.sold + a.qty <= ticket_types.capacity\073
        GET DIAGNOSTICS n = ROW_COUNT\073
        IF n <> cardinality(tt_ids) THEN RAISE EXCEPTION ''fence'' USING ERRCODE = ''HF002''\073 END IF\073
      END IF\073
    END IF\073
    details := array_fill(NULL::jsonb, ARRAY[n_conf])\073
    i := n_conf\073
    fast := true\073
  EXCEPTION
    WHEN SQLSTATE ''HF002'' OR data_exception OR integrity_constraint_violation OR lock_not_available
         OR deadlock_detected THEN
      kinds := ''{}''\073 order_ids := ''{}''\073 survivor_ids := ''{}''\073 survivor_years := ''{}''\073 survivor_holds := ''{}''\073
      survivor_events := ''{}''\073 survivor_customers := ''{}''\073 survivor_totals := ''{}''\073 survivor_currencies := ''{}''\073
      survivor_refs := ''{}''\073 survivor_items := ''{}''\073
      newly_expired := ''{}''\073
      i := 0\073
  END\073
  END IF\073
  IF NOT fast THEN
  -- One by one, holds the outbox has not written yet are inserted from their Redis records first,
  -- in one statement and in id order, as the outbox drain inserts them (hold.repository.ts): two
  -- inserters of the same new holds wait for each other''s uncommitted rows, and in two orders
  -- that was a deadlock. A record that is not valid, or a row locked past the lock timeout,
  -- leaves the inserts to each confirm below, under its own savepoint.
  BEGIN
    INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
    SELECT r.c->>''holdId'', (r.c->''record''->>''eventId'')::uuid, r.c->''record''->>''customerId'', ''ACTIVE'',
           (r.c->''record''->>''createdAt'')::timestamptz, (r.c->''record''->>''expiresAt'')::timestamptz, r.c->''record''->''items'',
           (r.c->''record''->>''totalCents'')::bigint, r.c->''record''->>''currency''
    FROM jsonb_array_elements(confirms) AS r(c)
    WHERE jsonb_typeof(r.c->''record'') = ''object''
    ORDER BY r.c->>''holdId''
    ON CONFLICT (id) DO NOTHING\073
  EXCEPTION
    WHEN data_exception OR integrity_constraint_violation OR lock_not_available THEN
      NULL\073
  END\073
  FOR c IN SELECT value FROM jsonb_array_elements(confirms) LOOP
    i := i + 1\073
    kinds := kinds || NULL::text\073
    order_ids := order_ids || NULL::uuid\073
    details := details || NULL::jsonb\073
    -- What is left of the batch''s lock budget (at least 1 ms: a row nobody holds is still taken).
    PERFORM set_config(''lock_timeout'', greatest(1, ceil(extract(epoch FROM lock_until - clock_timestamp()) * 1000))::int::text || ''ms'', true)\073
    BEGIN
      SELECT * INTO h FROM holds WHERE id = c->>''holdId'' FOR UPDATE\073
      IF NOT FOUND THEN
        rec := c->''record''\073
        IF rec IS NOT NULL AND jsonb_typeof(rec) = ''object'' THEN
          INSERT INTO holds (id, event_id, customer_id, status, created_at, expires_at, items, total_cents, currency)
          VALUES (c->>''holdId'', (rec->>''eventId'')::uuid, rec->>''customerId'', ''ACTIVE'', (rec->>''createdAt'')::timestamptz,
                  (rec->>''expiresAt'')::timestamptz, rec->''items'', (rec->>''totalCents'')::bigint, rec->>''currency'')
          ON CONFLICT (id) DO NOTHING\073
          SELECT * INTO h FROM holds WHERE id = c->>''holdId'' FOR UPDATE\073
        END IF\073
      END IF\073
      IF h.id IS NULL OR h.id <> c->>''holdId'' THEN
        kinds[i] := ''not_found''\073
      ELSIF h.status = ''CONFIRMED'' THEN
        kinds[i] := ''existing''\073
        -- A hold confirmed earlier in this batch has no order row yet: its order''s id is on the hold.
        order_ids[i] := COALESCE(h.order_id, (SELECT o.id FROM orders o WHERE o.hold_id = h.id))\073
        IF order_ids[i] IS NULL THEN RAISE EXCEPTION ''hold % is CONFIRMED without an order'', h.id\073 END IF\073
      ELSIF h.status = ''RELEASED'' THEN
        kinds[i] := ''released''\073
      ELSIF NOT COALESCE((c->>''held'')::boolean, false) THEN
        -- Its lease lapsed and its items are someone else''s now (Redis''s clock decided): expired.
        UPDATE holds SET status = ''EXPIRED'', ended_at = now() WHERE id = h.id AND status = ''ACTIVE''\073
        IF FOUND THEN newly_expired := newly_expired || h.id\073 END IF\073
        kinds[i] := ''expired''\073
      ELSIF clock_timestamp() >= statement_timestamp() + (c->>''claimMs'')::bigint * interval ''1 ms'' THEN
        -- Its claim on the lease ends before this batch could commit: not written, claimed again.
        kinds[i] := ''lapsed''\073
      ELSE
        new_order := gen_random_uuid()\073
        -- The fence. Seat ids sorted, so two transactions lock shared rows in one order.
        seat_ids := ARRAY(SELECT (e->>''seatId'')::uuid FROM jsonb_array_elements(h.items) e WHERE e ? ''seatId'' ORDER BY 1)\073
        IF cardinality(seat_ids) > 0 THEN
          -- (By their ids only: event and status are checked on those rows, see the set''s fence.)
          UPDATE seats SET status = ''SOLD'', order_id = new_order
          WHERE id = ANY (seat_ids) AND (event_id = h.event_id) IS TRUE AND status::text = ''AVAILABLE''\073
          GET DIAGNOSTICS n = ROW_COUNT\073
          IF n <> cardinality(seat_ids) THEN RAISE EXCEPTION ''fence'' USING ERRCODE = ''HF001''\073 END IF\073
        END IF\073
        -- The customer''s limit: what they bought of this event before, plus this hold.
        SELECT COALESCE(sum(CASE WHEN e ? ''seatId'' THEN 1 ELSE (e->>''quantity'')::int END), 0)::int INTO qty
          FROM jsonb_array_elements(h.items) e\073
        IF qty > 0 THEN
          INSERT INTO customer_sales AS cs (event_id, customer_id, sold)
          SELECT h.event_id, h.customer_id, qty FROM events ev WHERE ev.id = h.event_id AND qty <= ev.max_tickets_per_customer
          ON CONFLICT (event_id, customer_id) DO UPDATE SET sold = cs.sold + EXCLUDED.sold
          WHERE cs.sold + EXCLUDED.sold <= (SELECT ev.max_tickets_per_customer FROM events ev WHERE ev.id = cs.event_id)\073
          IF NOT FOUND THEN RAISE EXCEPTION ''limit'' USING ERRCODE = ''HF004''\073 END IF\073
        END IF\073
        -- The ticket type''s row after the customer''s row, as the set takes them (one lock order
        -- for every batch: holds, seats, customers, ticket types, then the order numbers).
        SELECT max((e->>''ticketTypeId'')::uuid::text)::uuid, sum((e->>''quantity'')::int)
          INTO tt_id, tt_qty
          FROM jsonb_array_elements(h.items) e WHERE e ? ''ticketTypeId''\073
        IF tt_id IS NOT NULL THEN
          UPDATE ticket_types SET sold = sold + tt_qty
          WHERE id = tt_id AND event_id = h.event_id AND sold + tt_qty <= capacity\073
          IF NOT FOUND THEN RAISE EXCEPTION ''fence'' USING ERRCODE = ''HF001''\073 END IF\073
        END IF\073
        -- The order and its items are written after the numbering, once, with their number
        -- (written here with a placeholder and numbered later, the order row was written twice,
        -- every index of orders with it). Their values are checked here, so a value that is not
        -- valid refuses this confirm alone.
        PERFORM (e->>''seatId'')::uuid, (e->>''ticketTypeId'')::uuid, (e->>''priceCents'')::bigint, (e->>''quantity'')::int
        FROM jsonb_array_elements(h.items) e\073
        INSERT INTO payments (id, provider, provider_event_id, reference, hold_id, amount_cents, currency, status, order_id, event_id)
        VALUES (gen_random_uuid(), c->>''provider'', c->>''providerEventId'', c->>''reference'', h.id,
                COALESCE((c->>''amountCents'')::bigint, h.total_cents), upper(COALESCE(c->>''currency'', h.currency)),
                ''APPLIED'', new_order, h.event_id)\073
        UPDATE holds SET status = ''CONFIRMED'', order_id = new_order, ended_at = now() WHERE id = h.id\073
        IF c->>''auditActor'' IS NOT NULL THEN
          INSERT INTO audit_entries (id, actor, action, event_id, hold_id, order_id, reason)
          VALUES (gen_random_uuid(), c->>''auditActor'', ''order.confirmed'', h.event_id, h.id, new_order,
                  ''payment reference '' || (c->>''reference''))\073
        END IF\073
        kinds[i] := ''created''\073
        order_ids[i] := new_order\073
        survivor_ids := survivor_ids || new_order\073
        survivor_years := survivor_years || (c->>''year'')::int\073
        survivor_holds := survivor_holds || h.id\073
        survivor_events := survivor_events || h.event_id\073
        survivor_customers := survivor_customers || h.customer_id\073
        survivor_totals := survivor_totals || h.total_cents\073
        survivor_currencies := survivor_currencies || h.currency::text\073
        survivor_refs := survivor_refs || (c->>''reference'')\073
        survivor_items := survivor_items || h.items\073
      END IF\073
    EXCEPTION
      WHEN SQLSTATE ''HF001'' THEN
        -- The fence refused: this confirm''s writes are gone with its savepoint, the hold is over.
        UPDATE holds SET status = ''EXPIRED'', ended_at = now() WHERE id = h.id AND status = ''ACTIVE''\073
        IF FOUND THEN newly_expired := newly_expired || h.id\073 END IF\073
        kinds[i] := ''fence''\073
      WHEN SQLSTATE ''HF004'' THEN
        -- The customer would own more than the event allows: nothing of it is sold, the hold is over.
        UPDATE holds SET status = ''EXPIRED'', ended_at = now() WHERE id = h.id AND status = ''ACTIVE''\073
        IF FOUND THEN newly_expired := newly_expired || h.id\073 END IF\073
        SELECT jsonb_build_object(''limit'', ev.max_tickets_per_customer, ''owned'', COALESCE(cs.sold, 0), ''requested'', qty)
          INTO rec
          FROM events ev LEFT JOIN customer_sales cs ON cs.event_id = ev.id AND cs.customer_id = h.customer_id
          WHERE ev.id = h.event_id\073
        details[i] := rec\073
        kinds[i] := ''limit''\073
      WHEN unique_violation THEN
        kinds[i] := ''unique''\073
      WHEN lock_not_available THEN
        kinds[i] := ''busy''\073
      WHEN data_exception THEN
        kinds[i] := ''invalid''\073
    END\073
    h := NULL\073
  END LOOP\073
  END IF\073

  -- The order numbers, last: one upsert of each year''s row for all the survivors, in batch order.
  -- Numbering is serialized by one transaction-level lock held until COMMIT, and the year is
  -- read from PostgreSQL''s clock once that lock is held, so numbers follow commit order, across
  -- New Year too, and a number''s year is its order''s created_at year. (The confirm''s "year" is a
  -- test seam: the API never sends it. The setting holdfast.now, when set, stands in for the
  -- clock: test only, see docs/http-api.md.)
  survivor_numbers := array_fill(NULL::text, ARRAY[cardinality(survivor_ids)])\073
  IF cardinality(survivor_ids) > 0 THEN
    PERFORM set_config(''lock_timeout'', greatest(1, ceil(extract(epoch FROM number_wait) * 1000))::int::text || ''ms'', true)\073
    PERFORM pg_advisory_xact_lock(7263548102937461)\073
    num_ts := COALESCE(NULLIF(current_setting(''holdfast.now'', true), '''')::timestamptz, clock_timestamp())\073
    db_year := extract(year FROM num_ts AT TIME ZONE ''UTC'')::int\073
    survivor_years := ARRAY(SELECT COALESCE(u.y, db_year) FROM unnest(survivor_years) WITH ORDINALITY AS u(y, ord) ORDER BY u.ord)\073
  END IF\073
  FOR y IN SELECT DISTINCT u FROM unnest(survivor_years) AS u ORDER BY 1 LOOP
    SELECT count(*) INTO cnt FROM unnest(survivor_years) AS u WHERE u = y\073
    INSERT INTO order_sequences AS s (year, last_value) VALUES (y, cnt)
    ON CONFLICT (year) DO UPDATE SET last_value = s.last_value + cnt
    RETURNING s.last_value INTO last_n\073
    last_n := last_n - cnt\073
    FOR j IN 1 .. cardinality(survivor_ids) LOOP
      IF survivor_years[j] = y THEN
        last_n := last_n + 1\073
        survivor_numbers[j] := ''HF-'' || y || ''-'' || lpad(last_n::text, greatest(6, length(last_n::text)), ''0'')\073
      END IF\073
    END LOOP\073
  END LOOP\073

  -- The orders and their items, each row written once (two statements for the whole batch).
  IF cardinality(survivor_ids) > 0 THEN
    INSERT INTO orders (id, number, event_id, customer_id, hold_id, total_cents, currency, payment_reference, created_at)
    SELECT o.id, o.number, o.event_id, o.customer_id, o.hold_id, o.total_cents, o.currency, o.reference, num_ts
    FROM unnest(survivor_ids, survivor_numbers, survivor_events, survivor_customers, survivor_holds, survivor_totals,
                survivor_currencies, survivor_refs)
      AS o(id, number, event_id, customer_id, hold_id, total_cents, currency, reference)\073
    INSERT INTO order_items (id, order_id, seat_id, ticket_type_id, label, tier, price_cents, quantity, position)
    SELECT gen_random_uuid(), s.order_id, (e->>''seatId'')::uuid, (e->>''ticketTypeId'')::uuid,
           COALESCE(e->>''label'', e->>''name''), CASE WHEN e ? ''seatId'' THEN e->>''tier'' END,
           (e->>''priceCents'')::bigint, CASE WHEN e ? ''seatId'' THEN 1 ELSE (e->>''quantity'')::int END, (t.ord - 1)::int
    FROM unnest(survivor_ids, survivor_items) AS s(order_id, items), jsonb_array_elements(s.items) WITH ORDINALITY AS t(e, ord)\073
    -- Outbound webhooks: each new order''s order.confirmed event, with one delivery per enabled
    -- endpoint subscribed to it, in this same transaction (no order without its event, no event
    -- for a confirm undone). The event''s data is the order as the API answers it. While no
    -- endpoint subscribes, this is one look at a small table and nothing is written.
    IF EXISTS (SELECT 1 FROM webhook_endpoints wep WHERE wep.enabled AND ''order.confirmed'' = ANY (wep.events)) THEN
      WITH wev AS (
        INSERT INTO webhook_events (id, type, data, ordering_key, created_at)
        SELECT gen_random_uuid(), ''order.confirmed'',
               jsonb_build_object(''order'', jsonb_build_object(
                 ''id'', o.id, ''number'', o.number, ''eventId'', o.event_id, ''customerId'', o.customer_id, ''holdId'', o.hold_id,
                 ''status'', ''confirmed'',
                 ''items'', (SELECT COALESCE(jsonb_agg(CASE WHEN t.e ? ''seatId''
                              THEN jsonb_build_object(''seatId'', t.e->''seatId'', ''label'', t.e->''label'', ''tier'', COALESCE(t.e->''tier'', ''""''::jsonb),
                                                      ''priceCents'', (t.e->>''priceCents'')::bigint, ''quantity'', 1)
                              ELSE jsonb_build_object(''ticketTypeId'', t.e->''ticketTypeId'', ''name'', COALESCE(t.e->''name'', t.e->''label''),
                                                      ''priceCents'', (t.e->>''priceCents'')::bigint, ''quantity'', (t.e->>''quantity'')::int)
                            END ORDER BY t.ord), ''[]''::jsonb)
                           FROM jsonb_array_elements(o.items) WITH ORDINALITY AS t(e, ord)),
                 ''totalCents'', o.total_cents, ''currency'', o.currency, ''paymentReference'', o.reference,
                 ''createdAt'', to_char(num_ts::timestamptz(3) AT TIME ZONE ''UTC'', ''YYYY-MM-DD"T"HH24:MI:SS.MS"Z"''))),
               o.hold_id, num_ts
        FROM unnest(survivor_ids, survivor_numbers, survivor_events, survivor_customers, survivor_holds, survivor_totals,
                    survivor_currencies, survivor_refs, survivor_items) WITH ORDINALITY
          AS o(id, number, event_id, customer_id, hold_id, total_cents, currency, reference, items, ord)
        ORDER BY o.ord
        RETURNING webhook_events.id, webhook_events.ordering_key
      )
      INSERT INTO webhook_deliveries (id, event_id, endpoint_id, ordering_key)
      SELECT gen_random_uuid(), wev.id, wep.id, wev.ordering_key
      FROM wev CROSS JOIN webhook_endpoints wep
      WHERE wep.enabled AND ''order.confirmed'' = ANY (wep.events)\073
    END IF\073
  END IF\073
  EXCEPTION
    WHEN lock_not_available THEN
      -- The order numbers stayed locked past their wait: every write of the batch is undone.
      -- The confirms that were to make an order (or answered with one made in this batch) step
      -- aside (busy) and are tried again\073 the others keep their answers, and the holds found
      -- over are marked so again.
      FOR j IN 1 .. i LOOP
        IF kinds[j] = ''created'' OR (kinds[j] = ''existing'' AND order_ids[j] = ANY (survivor_ids)) THEN
          kinds[j] := ''busy''\073
          order_ids[j] := NULL\073
        END IF\073
      END LOOP\073
      survivor_ids := ''{}''\073
      SELECT COALESCE(array_agg(r.c->>''holdId'' ORDER BY r.ord), ''{}'') INTO all_holds
        FROM jsonb_array_elements(confirms) WITH ORDINALITY AS r(c, ord)\073
      -- Every write above was undone (the expiries with it): only the ones made again here stand.
      newly_expired := ''{}''\073
      BEGIN
        PERFORM set_config(''lock_timeout'', ''1ms'', true)\073
        WITH u AS (
          UPDATE holds SET status = ''EXPIRED'', ended_at = now()
          WHERE id = ANY (ARRAY(SELECT t.h FROM unnest(all_holds[1:i], kinds[1:i]) AS t(h, k) WHERE t.k IN (''expired'', ''fence'', ''limit'')))
            AND status = ''ACTIVE''
          RETURNING id)
        SELECT COALESCE(array_agg(u.id), ''{}'') INTO newly_expired FROM u\073
      EXCEPTION
        WHEN lock_not_available THEN
          NULL\073
      END\073
  END\073

  -- Outbound webhooks: each hold this batch ended as expired (its lease had lapsed, the fence or
  -- the customer''s limit refused it) gets its hold.expired event, the hold as the API answers it,
  -- with one delivery per enabled endpoint subscribed, in this transaction: its expiry job will
  -- find it over already and write none. Nothing is written while no endpoint subscribes.
  IF cardinality(newly_expired) > 0
     AND EXISTS (SELECT 1 FROM webhook_endpoints wep WHERE wep.enabled AND ''hold.expired'' = ANY (wep.events)) THEN
    WITH wev AS (
      INSERT INTO webhook_events (id, type, data, ordering_key)
      SELECT gen_random_uuid(), ''hold.expired'',
             jsonb_build_object(''hold'', jsonb_build_object(
               ''id'', hh.id, ''eventId'', hh.event_id, ''customerId'', hh.customer_id, ''status'', ''expired'',
               ''createdAt'', to_char(hh.created_at AT TIME ZONE ''UTC'', ''YYYY-MM-DD"T"HH24:MI:SS.MS"Z"''),
               ''expiresAt'', to_char(hh.expires_at AT TIME ZONE ''UTC'', ''YYYY-MM-DD"T"HH24:MI:SS.MS"Z"''),
               ''items'', hh.items, ''totalCents'', hh.total_cents, ''currency'', hh.currency::text, ''orderId'', hh.order_id,
               ''releasedBy'', hh.released_by, ''extensions'', hh.extensions)),
             hh.id
      FROM holds hh WHERE hh.id = ANY (newly_expired) AND hh.status = ''EXPIRED''
      ORDER BY hh.id
      RETURNING webhook_events.id, webhook_events.ordering_key
    )
    INSERT INTO webhook_deliveries (id, event_id, endpoint_id, ordering_key)
    SELECT gen_random_uuid(), wev.id, wep.id, wev.ordering_key
    FROM wev CROSS JOIN webhook_endpoints wep
    WHERE wep.enabled AND ''hold.expired'' = ANY (wep.events)\073
  END IF\073

  -- Which way the batch went, readable on this session until its next batch: ''set'' or ''one_by_one''.
  PERFORM set_config(''holdfast.confirm_batch_path'', CASE WHEN fast THEN ''set'' ELSE ''one_by_one'' END, false)\073
  -- The answers, in batch order, each with its order as the API returns it (one statement).
  RETURN QUERY
  SELECT t.pos::int, t.knd,
         (SELECT jsonb_build_object(
                   ''id'', o.id, ''number'', o.number, ''eventId'', o.event_id, ''customerId'', o.customer_id, ''holdId'', o.hold_id,
                   ''status'', o.status, ''totalCents'', o.total_cents, ''currency'', o.currency, ''paymentReference'', o.payment_reference,
                   ''createdAt'', o.created_at,
                   ''items'', (SELECT COALESCE(jsonb_agg(jsonb_build_object(
                               ''seatId'', it.seat_id, ''ticketTypeId'', it.ticket_type_id, ''label'', it.label, ''tier'', it.tier,
                               ''priceCents'', it.price_cents, ''quantity'', it.quantity) ORDER BY it.position), ''[]''::jsonb)
                             FROM order_items it WHERE it.order_id = o.id))
            FROM orders o WHERE o.id = t.oid),
         t.det
  FROM unnest(kinds[1:i], order_ids[1:i], details[1:i]) WITH ORDINALITY AS t(knd, oid, det, pos)
  ORDER BY t.pos\073
END\073
';
