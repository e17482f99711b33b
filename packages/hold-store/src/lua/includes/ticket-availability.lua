-- Lazy expiry of a ticket type's holds (zset hold id -> expiresAtMs, hash hold id
-- -> quantity): gives back the tickets of holds whose time has passed, then
-- returns capacity - sold - held. now: ms, a number or its text (only passed to Redis).
local function ticketAvailability(typeKey, expiryKey, quantitiesKey, now)
  local expired = redis.call('ZRANGEBYSCORE', expiryKey, '-inf', now)
  local freed = 0
  for _, id in ipairs(expired) do
    freed = freed + tonumber(redis.call('HGET', quantitiesKey, id) or '0')
    redis.call('HDEL', quantitiesKey, id)
  end
  if #expired > 0 then
    redis.call('ZREMRANGEBYSCORE', expiryKey, '-inf', now)
    redis.call('HINCRBY', typeKey, 'held', -freed)
  end
  local tt = redis.call('HMGET', typeKey, 'cap', 'sold', 'held')
  return tonumber(tt[1]) - tonumber(tt[2]) - tonumber(tt[3] or '0')
end
