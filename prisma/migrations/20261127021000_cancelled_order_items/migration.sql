-- Issue 30, cancelling an order: its lines stay (the order's history) but no longer hold
-- their seats, so a seat is unique among the lines of orders not cancelled.
ALTER TABLE "order_items" ADD COLUMN "cancelled" BOOLEAN NOT NULL DEFAULT false;

DROP INDEX "order_items_seat_id_key";
CREATE UNIQUE INDEX "order_items_seat_id_key" ON "order_items"("seat_id") WHERE NOT "cancelled";
