--[[
  An admin cancelled an order (PostgreSQL put its seats and tickets back first):
  its seats leave the sold set and its tickets the type's sold count, the
  customer's bought count goes down, and what came back goes to the waiting
  lists first, in this same step (includes/waitlist). Applying it twice changes
  nothing: the order's hold record is marked "cancelled".

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] bought per customer (hash)
    KEYS[4] free seats (zset)   KEYS[5] seat index (hash)   KEYS[6] the order's hold record (hash)
    KEYS[7] ticket type (hash cap, sold, held; any key of the slot when none)
    ARGV[1] customer id   ARGV[2] tickets (seats count one)   ARGV[3] ticket type id ("" for seats)
    ARGV[4] how long the cancelled mark stays (ms)   ARGV[5..] seat ids
    (the change channel is the event's, <p>changes, built from KEYS[1]'s prefix as includes/waitlist does)

  Output:
    {"OK", offers made}   {"ALREADY"}   {"NOT_READY"} (the event loads from PostgreSQL, cancellation included)
]]
--- @include "now-ms"
--- @include "customer-holds"
--- @include "free-seats"
--- @include "ticket-availability"
--- @include "waitlist"

if redis.call('EXISTS', KEYS[1]) == 0 then return {'NOT_READY'} end
if redis.call('HGET', KEYS[6], 'status') == 'cancelled' then return {'ALREADY'} end

local seatIds = {}
for i = 5, #ARGV do
  local seatId = ARGV[i]
  redis.call('SREM', KEYS[2], seatId)
  freeSeatBack(KEYS[4], KEYS[5], KEYS[2], seatId)
  seatIds[#seatIds + 1] = seatId
end
local bought = redis.call('HINCRBY', KEYS[3], ARGV[1], -tonumber(ARGV[2]))
if bought <= 0 then redis.call('HDEL', KEYS[3], ARGV[1]) end
local ttId = ARGV[3]
if ttId ~= '' and redis.call('EXISTS', KEYS[7]) == 1 then
  redis.call('HINCRBY', KEYS[7], 'sold', -tonumber(ARGV[2]))
end
redis.call('HSET', KEYS[6], 'status', 'cancelled')
redis.call('PEXPIRE', KEYS[6], ARGV[4])

local p = eventPrefixOf(KEYS[1])
local offers = serveWaitlists(p, nowMs())
if #seatIds > 0 then
  local free = {}
  for _, id in ipairs(seatIds) do
    if redis.call('EXISTS', p .. 'seat:' .. id) == 0 then free[#free + 1] = id end
  end
  if #free > 0 then redis.call('PUBLISH', p .. 'changes', cjson.encode({ seatIds = free, status = 'available' })) end
end
if ttId ~= '' and redis.call('EXISTS', KEYS[7]) == 1 then
  local tt = redis.call('HMGET', KEYS[7], 'cap', 'sold', 'held')
  redis.call('PUBLISH', p .. 'changes', cjson.encode({ ticketTypeId = ttId,
    available = tonumber(tt[1]) - tonumber(tt[2]) - tonumber(tt[3] or '0') }))
end
return {'OK', #offers / 2}
