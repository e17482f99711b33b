-- AlterTable
ALTER TABLE "events" ADD COLUMN     "max_hold_extensions" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "max_hold_seconds" INTEGER NOT NULL DEFAULT 1800,
ADD COLUMN     "sales_end_at" TIMESTAMPTZ(3),
ADD COLUMN     "sales_start_at" TIMESTAMPTZ(3),
ADD COLUMN     "sales_status" TEXT NOT NULL DEFAULT 'on_sale';

-- AlterTable
ALTER TABLE "holds" ADD COLUMN     "extensions" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "refund_note" TEXT,
ADD COLUMN     "refunded_at" TIMESTAMPTZ(3),
ADD COLUMN     "refunded_by" TEXT;


-- The sale's status is one of three words.
ALTER TABLE "events" ADD CONSTRAINT "events_sales_status_check" CHECK ("sales_status" IN ('draft', 'on_sale', 'closed'));
