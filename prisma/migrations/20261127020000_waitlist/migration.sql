-- Issue 30, waiting list: an event's offer time, the waiting-list entries (PostgreSQL is their
-- record, Redis keeps the serving order), and cancelled orders.

-- AlterTable
ALTER TABLE "events" ADD COLUMN "waitlist_offer_seconds" INTEGER NOT NULL DEFAULT 1800;

-- AlterTable: an admin's cancellation of an order (status 'cancelled').
ALTER TABLE "orders" ADD COLUMN "cancelled_at" TIMESTAMPTZ(3),
ADD COLUMN "cancelled_by" TEXT,
ADD COLUMN "cancel_reason" TEXT;

-- CreateTable
CREATE TABLE "waitlist_entries" (
    "id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "customer_id" TEXT NOT NULL,
    "tier" TEXT,
    "ticket_type_id" UUID,
    "quantity" INTEGER NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'waiting',
    "hold_id" TEXT,
    "offered_at" TIMESTAMPTZ(3),
    "offer_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "waitlist_entries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "waitlist_entries_scope" CHECK (("tier" IS NULL) <> ("ticket_type_id" IS NULL)),
    CONSTRAINT "waitlist_entries_quantity" CHECK ("quantity" >= 1)
);

-- One live entry (waiting or offered) per customer per tier or ticket type.
CREATE UNIQUE INDEX "waitlist_entries_live_key" ON "waitlist_entries"
  ("event_id", "customer_id", COALESCE("tier", ''), COALESCE("ticket_type_id"::text, ''))
  WHERE "state" IN ('waiting', 'offered');

CREATE INDEX "waitlist_entries_event_id_state_seq_idx" ON "waitlist_entries"("event_id", "state", "seq");
CREATE INDEX "waitlist_entries_hold_id_idx" ON "waitlist_entries"("hold_id");

-- AddForeignKey
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;
