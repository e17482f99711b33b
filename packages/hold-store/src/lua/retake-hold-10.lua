--[[
  Take a lost hold's seats or tickets again (reconciliation restores a hold
  PostgreSQL has ACTIVE whose leases Redis lost): all of them, only where
  nobody else holds or bought them and within the customer's limit (as a new
  hold would be), or nothing. The hold counts against its customer again.

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] held seats (zset)
    KEYS[4] ticket type (hash cap, sold, held; any key of the slot when none)
    KEYS[5] ticket-type holds by expiry (zset)   KEYS[6] ticket-type quantities (hash)
    KEYS[7] hold record (hash)
    KEYS[8] the customer's holds (hash hold id -> "quantity:expiresAtMs", see includes/customer-holds)
    KEYS[9] free seats (zset, see includes/free-seats): seats taken again leave it
    KEYS[10] tickets bought per customer (hash customer id -> quantity)
    KEYS[11..] seat keys
    ARGV[1] hold id   ARGV[2] lease ms   ARGV[3] ticket type id ("" for seats)
    ARGV[4] quantity  ARGV[5] change channel   ARGV[6] customer id
    ARGV[7] max tickets per customer   ARGV[8..] seat ids in KEYS order

  Output:
    {"OK"} | {"NOT_READY"} | {"UNAVAILABLE", seat id, ...} | {"SOLD_OUT", available}
    {"LIMIT_EXCEEDED", tickets in use}   the customer's other holds and purchases leave no room

  On OK the hold record (when Redis still has it) reads "active" again, so a
  later end-hold (confirmed, or expired when the sale fails) is not taken for
  one already applied and frees the re-taken keys.
]]
--- @include "now-ms"
--- @include "customer-holds"
--- @include "ticket-availability"

local now = nowMs()
if redis.call('EXISTS', KEYS[1]) == 0 then return {'NOT_READY'} end
local holdId, lease = ARGV[1], tonumber(ARGV[2])
local expiresAt = now + lease

local taken = {}
for i = 11, #KEYS do
  local seatId = ARGV[i - 3]
  local owner = redis.call('GET', KEYS[i])
  if redis.call('SISMEMBER', KEYS[2], seatId) == 1 or (owner and owner ~= holdId) then
    taken[#taken + 1] = seatId
  end
end
if #taken > 0 then
  table.insert(taken, 1, 'UNAVAILABLE')
  return taken
end

local ttId = ARGV[3]
local quantity = tonumber(ARGV[4])
if ttId ~= '' and redis.call('EXISTS', KEYS[4]) == 0 then return {'NOT_READY'} end
local count = #KEYS - 10
if ttId ~= '' then count = quantity end

-- The customer's limit, as a hold applies it.
local inUse = retakeOverLimit(KEYS[8], KEYS[10], ARGV[6], holdId, count, tonumber(ARGV[7]), now)
if inUse then return {'LIMIT_EXCEEDED', inUse} end
local own = redis.call('HGET', KEYS[8], holdId)

if ttId ~= '' then
  -- Lazy expiry first; then the hold's own entry, when still live, is replaced,
  -- never added to: its tickets are counted once.
  local available = ticketAvailability(KEYS[4], KEYS[5], KEYS[6], now)
  local ownTickets = tonumber(redis.call('HGET', KEYS[6], holdId) or '0')
  if available + ownTickets < quantity then return {'SOLD_OUT', available + ownTickets} end
  redis.call('HINCRBY', KEYS[4], 'held', quantity - ownTickets)
  local score = tonumber(redis.call('ZSCORE', KEYS[5], holdId) or '0')
  redis.call('ZADD', KEYS[5], math.max(score, expiresAt), holdId)
  redis.call('HSET', KEYS[6], holdId, quantity)
end

local seatIds = {}
for i = 11, #KEYS do
  local seatId = ARGV[i - 3]
  redis.call('SET', KEYS[i], holdId, 'PX', lease)
  redis.call('ZADD', KEYS[3], expiresAt, seatId)
  redis.call('ZREM', KEYS[9], seatId)
  seatIds[#seatIds + 1] = seatId
end

-- The hold counts against its customer again (never for less time than it already does).
local ownUntil = own and tonumber(string.match(own, ':(%d+)$')) or 0
if ownUntil < expiresAt then setCustomerHold(KEYS[8], holdId, count .. ':' .. expiresAt) end

if #seatIds > 0 then
  redis.call('PUBLISH', ARGV[5], cjson.encode({ seatIds = seatIds, status = 'held' }))
end
if redis.call('EXISTS', KEYS[7]) == 1 then redis.call('HSET', KEYS[7], 'status', 'active') end
return {'OK'}
