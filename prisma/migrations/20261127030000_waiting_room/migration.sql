-- Issue 29: an event's waiting room settings (null: no waiting room).
-- AlterTable
ALTER TABLE "events" ADD COLUMN     "waiting_room" JSONB;
