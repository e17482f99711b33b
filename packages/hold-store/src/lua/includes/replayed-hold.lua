-- A hold script sent again for the same request. The hold scripts are not idempotent by
-- themselves: run twice with one hold id, the second run finds the seats or tickets taken (by
-- that very hold) and answers UNAVAILABLE or SOLD_OUT, leaving the first run's hold to nobody.
-- ioredis sends a command again when its connection closed before the answer came (it resends
-- what was unanswered once it reconnects), so a connection lost just after a hold ran would turn
-- the buyer's hold into a refusal. Every request has a hold id of its own, so a record for this
-- hold id means this request's script ran already: its script answers as the first run did and
-- writes nothing (each script's "replayed" output). The hold scripts learn whether the record
-- exists from the EXISTS they make anyway, with the record counted once (an odd count).
-- Returns the live record's json and createdAt (its time, as the first run answered it), or nil
-- when the hold has ended (given back after its call gave up: nobody waits for this answer).
local function liveHoldRecord(recordKey)
  local rec = redis.call('HMGET', recordKey, 'status', 'json', 'createdAt')
  if rec[1] ~= 'active' or not rec[2] then return nil end
  return rec[2], tonumber(rec[3])
end
