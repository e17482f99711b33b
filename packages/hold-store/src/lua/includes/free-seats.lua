-- The free-seat index (built by sync-free-seats): a zset of the seats believed
-- free (seat id -> rank: tier, price, section, row, number) and a hash of seat
-- id -> "rank|row id|number|price cents|label". A seat given back re-enters
-- the zset at its rank, unless it is sold or the event has no index yet.
local function freeSeatBack(freeKey, indexKey, soldKey, seatId)
  local meta = redis.call('HGET', indexKey, seatId)
  if not meta or redis.call('SISMEMBER', soldKey, seatId) == 1 then return end
  redis.call('ZADD', freeKey, tonumber(string.match(meta, '^(%d+)')), seatId)
end
