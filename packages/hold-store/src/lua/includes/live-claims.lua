-- Whether a confirm still claims the hold (hash token -> until ms, see claim-hold):
-- drops the claims that lapsed, returns true when one is live.
local function liveClaims(claimKey, now)
  local claims = redis.call('HGETALL', claimKey)
  local live = false
  for i = 1, #claims, 2 do
    if tonumber(claims[i + 1]) > now then live = true else redis.call('HDEL', claimKey, claims[i]) end
  end
  return live
end
