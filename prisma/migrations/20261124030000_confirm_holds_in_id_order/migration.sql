-- The confirm batch inserts the holds the outbox has not written yet first, in one
-- statement and in id order, as the outbox drain now inserts them too
-- (hold.repository.ts): a drain and a batch inserting the same new holds in two
-- different orders deadlocked (PostgreSQL waited deadlock_timeout, a second, then
-- refused one of them). A record that is not valid, or a row locked past the lock
-- timeout, leaves the inserts to each confirm, under its own savepoint, as before.
-- The body below is the E'' encoding of prisma/functions/holdfast_confirm_batch.plpgsql,
-- made by `npx tsx scripts/function-migration.ts holdfast_confirm_batch`.
CREATE OR REPLACE FUNCTION holdfast_confirm_batch(confirms jsonb)
RETURNS TABLE (idx int, kind text, order_json jsonb)
LANGUAGE plpgsql
AS E'DECLARE
  c jsonb\073
  i int := 0\073
  h holds%ROWTYPE\073
  rec jsonb\073
  seat_ids uuid[]\073
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
BEGIN
  -- No confirm waits long for a row another transaction holds: past this, that confirm alone
  -- steps aside (busy) and is tried again, and the rest of the batch goes on. The wait is
  -- 5 s, or a third of the session''s statement timeout when that is shorter, so a locked row
  -- costs one confirm a retry instead of costing the whole batch its statement.
  st := current_setting(''statement_timeout'')::interval\073
  IF st > interval ''0'' AND st / 3 < interval ''5 s'' THEN
    PERFORM set_config(''lock_timeout'', greatest(1, (extract(epoch FROM st / 3) * 1000)::int)::text || ''ms'', true)\073
  ELSE
    PERFORM set_config(''lock_timeout'', ''5s'', true)\073
  END IF\073
  -- Holds the outbox has not written yet are inserted from their Redis records first, in one
  -- statement and in id order, as the outbox drain inserts them (hold.repository.ts): two
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
        kinds[i] := ''expired''\073
      ELSE
        new_order := gen_random_uuid()\073
        -- The fence. Seat ids sorted, so two transactions lock shared rows in one order.
        seat_ids := ARRAY(SELECT (e->>''seatId'')::uuid FROM jsonb_array_elements(h.items) e WHERE e ? ''seatId'' ORDER BY 1)\073
        IF cardinality(seat_ids) > 0 THEN
          UPDATE seats SET status = ''SOLD'', order_id = new_order
          WHERE event_id = h.event_id AND id = ANY (seat_ids) AND status = ''AVAILABLE''\073
          GET DIAGNOSTICS n = ROW_COUNT\073
          IF n <> cardinality(seat_ids) THEN RAISE EXCEPTION ''fence'' USING ERRCODE = ''HF001''\073 END IF\073
        END IF\073
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
        kinds[i] := ''fence''\073
      WHEN unique_violation THEN
        kinds[i] := ''unique''\073
      WHEN lock_not_available THEN
        kinds[i] := ''busy''\073
      WHEN data_exception THEN
        kinds[i] := ''invalid''\073
    END\073
    h := NULL\073
  END LOOP\073

  -- The order numbers, last: one upsert of each year''s row for all the survivors, in batch order.
  survivor_numbers := array_fill(NULL::text, ARRAY[cardinality(survivor_ids)])\073
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
    SELECT o.id, o.number, o.event_id, o.customer_id, o.hold_id, o.total_cents, o.currency, o.reference, now()
    FROM unnest(survivor_ids, survivor_numbers, survivor_events, survivor_customers, survivor_holds, survivor_totals,
                survivor_currencies, survivor_refs)
      AS o(id, number, event_id, customer_id, hold_id, total_cents, currency, reference)\073
    INSERT INTO order_items (id, order_id, seat_id, ticket_type_id, label, tier, price_cents, quantity, position)
    SELECT gen_random_uuid(), s.order_id, (e->>''seatId'')::uuid, (e->>''ticketTypeId'')::uuid,
           COALESCE(e->>''label'', e->>''name''), CASE WHEN e ? ''seatId'' THEN e->>''tier'' END,
           (e->>''priceCents'')::bigint, CASE WHEN e ? ''seatId'' THEN 1 ELSE (e->>''quantity'')::int END, (t.ord - 1)::int
    FROM unnest(survivor_ids, survivor_items) AS s(order_id, items), jsonb_array_elements(s.items) WITH ORDINALITY AS t(e, ord)\073
  END IF\073

  FOR j IN 1 .. i LOOP
    idx := j\073
    kind := kinds[j]\073
    order_json := NULL\073
    IF order_ids[j] IS NOT NULL THEN
      SELECT jsonb_build_object(
               ''id'', o.id, ''number'', o.number, ''eventId'', o.event_id, ''customerId'', o.customer_id, ''holdId'', o.hold_id,
               ''status'', o.status, ''totalCents'', o.total_cents, ''currency'', o.currency, ''paymentReference'', o.payment_reference,
               ''createdAt'', o.created_at,
               ''items'', (SELECT COALESCE(jsonb_agg(jsonb_build_object(
                           ''seatId'', it.seat_id, ''ticketTypeId'', it.ticket_type_id, ''label'', it.label, ''tier'', it.tier,
                           ''priceCents'', it.price_cents, ''quantity'', it.quantity) ORDER BY it.position), ''[]''::jsonb)
                         FROM order_items it WHERE it.order_id = o.id))
        INTO order_json
        FROM orders o WHERE o.id = order_ids[j]\073
    END IF\073
    RETURN NEXT\073
  END LOOP\073
END\073
';
