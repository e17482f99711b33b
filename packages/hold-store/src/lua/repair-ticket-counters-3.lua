--[[
  Reconciliation's repair of a ticket type's counters, in one step on Redis's
  clock, while the caller holds the ticket type's row locked in PostgreSQL (so
  PostgreSQL's sold cannot move meanwhile). Holds whose time has passed are
  pruned first (lazy expiry); held becomes the sum of the live holds'
  quantities, whatever holds or releases ran before this step; sold becomes
  PostgreSQL's sold less the tickets of holds PostgreSQL has confirmed whose
  confirm has not reached Redis yet (their entry is still live here: the
  confirm's end-hold moves them from held to sold later).

  Input:
    KEYS[1] ticket type (hash cap, sold, held)
    KEYS[2] ticket-type holds by expiry (zset hold id -> expiresAt ms)
    KEYS[3] ticket-type hold quantities (hash hold id -> quantity)
    ARGV[1] capacity in PostgreSQL   ARGV[2] sold in PostgreSQL
    ARGV[3..] ids of holds PostgreSQL has CONFIRMED

  Output:
    {0|1 written, cap, sold, held as they were ("" when missing), cap, sold, held now}
    {-1} when the ticket type is not in Redis (not primed: nothing to repair)
]]
--- @include "now-ms"
--- @include "ticket-availability"

if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
local before = redis.call('HMGET', KEYS[1], 'cap', 'sold', 'held')
ticketAvailability(KEYS[1], KEYS[2], KEYS[3], nowMs())

local held = 0
local quantities = redis.call('HGETALL', KEYS[3])
for i = 2, #quantities, 2 do held = held + tonumber(quantities[i]) end
local pending = 0
for i = 3, #ARGV do
  pending = pending + tonumber(redis.call('HGET', KEYS[3], ARGV[i]) or '0')
end
local cap, sold = tonumber(ARGV[1]), tonumber(ARGV[2]) - pending

local b = { before[1] or '', before[2] or '', before[3] or '' }
local changed = 0
if b[1] ~= tostring(cap) or b[2] ~= tostring(sold) or b[3] ~= tostring(held) then
  redis.call('HSET', KEYS[1], 'cap', cap, 'sold', sold, 'held', held)
  changed = 1
end
return {changed, b[1], b[2], b[3], tostring(cap), tostring(sold), tostring(held)}
