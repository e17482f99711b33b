-- A customer's tickets for the event: bought, plus those in holds still running
-- (hash hold id -> "quantity:expiresAtMs"); holds whose time has passed are pruned.
local function ticketsInUse(holdsKey, boughtKey, customerId, now)
  local inUse = tonumber(redis.call('HGET', boughtKey, customerId) or '0')
  local mine = redis.call('HGETALL', holdsKey)
  for i = 1, #mine, 2 do
    local q, exp = string.match(mine[i + 1], '^(%d+):(%d+)$')
    if tonumber(exp) <= now then
      redis.call('HDEL', holdsKey, mine[i])
    else
      inUse = inUse + tonumber(q)
    end
  end
  return inUse
end
