--[[
  Available tickets per ticket type, after lazy expiry of past holds.

  Input:
    KEYS[1] ready marker
    KEYS[2..] per ticket type: its hash (cap, sold, held), its holds by expiry
              (zset), its quantities (hash), three keys each

  Output: {"NOT_READY"} | {"OK", available, available, ...} in KEYS order
]]
--- @include "now-ms"
--- @include "ticket-availability"

local now = nowMs()
if redis.call('EXISTS', KEYS[1]) == 0 then return {'NOT_READY'} end
local out = {'OK'}
for i = 2, #KEYS, 3 do
  if redis.call('EXISTS', KEYS[i]) == 0 then return {'NOT_READY'} end
  out[#out + 1] = ticketAvailability(KEYS[i], KEYS[i + 1], KEYS[i + 2], now)
end
return out
