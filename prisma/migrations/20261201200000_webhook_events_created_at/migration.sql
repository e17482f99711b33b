-- Webhook retention (WEBHOOK_RETENTION_DAYS): the worker deletes events older than the retention
-- period, oldest first, a batch at a time (keyset on created_at, id). Without this index each batch
-- read the whole of webhook_events. Built CONCURRENTLY: a plain build holds a lock that stops every
-- insert of an event (every confirm, expiry and release with a subscribed endpoint) until it ends.

-- CreateIndex
CREATE INDEX CONCURRENTLY IF NOT EXISTS "webhook_events_created_at_id_idx" ON "webhook_events"("created_at", "id");
