-- AlterTable
ALTER TABLE "seats" ALTER COLUMN "price_cents" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "ticket_types" ALTER COLUMN "price_cents" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "holds" ALTER COLUMN "total_cents" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "orders" ALTER COLUMN "total_cents" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "order_items" ALTER COLUMN "price_cents" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "payments" ALTER COLUMN "amount_cents" SET DATA TYPE BIGINT;

