--[[
  Available tickets per ticket type, after lazy expiry of past holds.

  Input:
    KEYS[1] ready marker
    KEYS[2..] per ticket type: its hash (cap, sold, held), its holds by expiry
              (zset), its quantities (hash), three keys each

  Output: {"NOT_READY"} | {"OK", available, available, ...} in KEYS order
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('EXISTS', KEYS[1]) == 0 then return {'NOT_READY'} end
local out = {'OK'}
for i = 2, #KEYS, 3 do
  if redis.call('EXISTS', KEYS[i]) == 0 then return {'NOT_READY'} end
  local expired = redis.call('ZRANGEBYSCORE', KEYS[i + 1], '-inf', now)
  local freed = 0
  for _, id in ipairs(expired) do
    freed = freed + tonumber(redis.call('HGET', KEYS[i + 2], id) or '0')
    redis.call('HDEL', KEYS[i + 2], id)
  end
  if #expired > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[i + 1], '-inf', now)
    redis.call('HINCRBY', KEYS[i], 'held', -freed)
  end
  local tt = redis.call('HMGET', KEYS[i], 'cap', 'sold', 'held')
  out[#out + 1] = tonumber(tt[1]) - tonumber(tt[2]) - tonumber(tt[3] or '0')
end
return out
