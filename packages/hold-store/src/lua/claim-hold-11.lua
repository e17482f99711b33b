--[[
  A confirm takes its hold's lease first, on Redis's clock, before it waits for
  PostgreSQL: every seat key and ticket entry of the hold is extended to at
  least now + lease ms (taken again where the lease lapsed and nobody else
  holds or bought the item, and only within the customer's limit, as a new
  hold would be), all or nothing, and the confirm's token is recorded in the
  hold's claim hash. While a claim is live, no end of the hold
  other than "confirmed" frees its leases (end-hold, fix-seat-key), so a seat
  is never handed to another buyer while this confirm can still commit, and one
  confirm's give-up never frees the leases another confirm of the hold took.

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] held seats (zset)
    KEYS[4] ticket type (hash cap, sold, held; any key of the slot when none)
    KEYS[5] ticket-type holds by expiry (zset)   KEYS[6] ticket-type quantities (hash)
    KEYS[7] hold record (hash)   KEYS[8] the customer's holds (hash)
    KEYS[9] the hold's claims (hash token -> until ms)
    KEYS[10] free seats (zset, see includes/free-seats): seats taken again leave it
    KEYS[11] tickets bought per customer (hash customer id -> quantity)
    KEYS[12..] seat keys
    ARGV[1] hold id   ARGV[2] the confirm's token   ARGV[3] lease ms
    ARGV[4] ticket type id ("" for seats)   ARGV[5] quantity   ARGV[6] change channel
    ARGV[7] customer id   ARGV[8] max tickets per customer
    ARGV[9..] seat ids in KEYS order

  Output:
    {"OK", "live" | "retaken"}   the lease is this confirm's until now + lease ms
    {"NOT_READY"}   {"ENDED", "released" | "confirmed"}
    {"UNAVAILABLE", seat id, ...}   {"SOLD_OUT", available}
    {"LIMIT_EXCEEDED", tickets in use}   taking the lapsed items again would pass the
                                         customer's limit (bought + other live holds)
]]
--- @include "now-ms"
--- @include "customer-holds"
--- @include "ticket-availability"

local now = nowMs()
if redis.call('EXISTS', KEYS[1]) == 0 then return {'NOT_READY'} end
local holdId, token, lease = ARGV[1], ARGV[2], tonumber(ARGV[3])
local status = redis.call('HGET', KEYS[7], 'status')
if status == 'released' or status == 'confirmed' then return {'ENDED', status} end
local untilMs = now + lease

-- Check every seat before writing any.
local taken = {}
local lapsed = {}
for i = 12, #KEYS do
  local seatId = ARGV[i - 3]
  local owner = redis.call('GET', KEYS[i])
  if redis.call('SISMEMBER', KEYS[2], seatId) == 1 or (owner and owner ~= holdId) then
    taken[#taken + 1] = seatId
  elseif not owner then
    lapsed[#lapsed + 1] = seatId
  end
end
if #taken > 0 then
  table.insert(taken, 1, 'UNAVAILABLE')
  return taken
end

local ttId = ARGV[4]
local quantity = tonumber(ARGV[5])
local ticketsLapsed = false
if ttId ~= '' then
  if redis.call('EXISTS', KEYS[4]) == 0 then return {'NOT_READY'} end
  local score = redis.call('ZSCORE', KEYS[5], holdId)
  ticketsLapsed = not score or tonumber(score) <= now
end

-- The customer's tickets in use count this hold while it is claimed.
local count = #KEYS - 11
if ttId ~= '' then count = quantity end

-- Taking lapsed items again is a new hold of them: the customer's limit applies.
if #lapsed > 0 or ticketsLapsed then
  local inUse = retakeOverLimit(KEYS[8], KEYS[11], ARGV[7], holdId, count, tonumber(ARGV[8]), now)
  if inUse then return {'LIMIT_EXCEEDED', inUse} end
end

local ticketsRetaken = false
if ttId ~= '' then
  local score = redis.call('ZSCORE', KEYS[5], holdId)
  if not ticketsLapsed then
    if tonumber(score) < untilMs then redis.call('ZADD', KEYS[5], untilMs, holdId) end
  else
    -- Lapsed: drop this hold's own stale entry first, so its tickets are never counted twice.
    local old = redis.call('HGET', KEYS[6], holdId)
    if old then
      redis.call('HDEL', KEYS[6], holdId)
      redis.call('ZREM', KEYS[5], holdId)
      redis.call('HINCRBY', KEYS[4], 'held', -tonumber(old))
    end
    local available = ticketAvailability(KEYS[4], KEYS[5], KEYS[6], now)
    if available < quantity then return {'SOLD_OUT', available} end
    redis.call('HINCRBY', KEYS[4], 'held', quantity)
    redis.call('ZADD', KEYS[5], untilMs, holdId)
    redis.call('HSET', KEYS[6], holdId, quantity)
    ticketsRetaken = true
  end
end

for i = 12, #KEYS do
  local seatId = ARGV[i - 3]
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl < lease then
    redis.call('SET', KEYS[i], holdId, 'PX', lease)
    redis.call('ZADD', KEYS[3], untilMs, seatId)
  end
  redis.call('ZREM', KEYS[10], seatId)
end

local mine = redis.call('HGET', KEYS[8], holdId)
local mineUntil = mine and tonumber(string.match(mine, ':(%d+)$')) or 0
if mineUntil < untilMs then setCustomerHold(KEYS[8], holdId, count .. ':' .. untilMs) end

redis.call('HSET', KEYS[9], token, untilMs)
if redis.call('PTTL', KEYS[9]) < lease then redis.call('PEXPIRE', KEYS[9], lease) end
if status and status ~= 'active' then redis.call('HSET', KEYS[7], 'status', 'active') end

if #lapsed > 0 then
  redis.call('PUBLISH', ARGV[6], cjson.encode({ seatIds = lapsed, status = 'held' }))
end
if ticketsRetaken then
  local tt = redis.call('HMGET', KEYS[4], 'cap', 'sold', 'held')
  redis.call('PUBLISH', ARGV[6], cjson.encode({ ticketTypeId = ttId,
    available = tonumber(tt[1]) - tonumber(tt[2]) - tonumber(tt[3] or '0') }))
end
if #lapsed > 0 or ticketsRetaken then return {'OK', 'retaken'} end
return {'OK', 'live'}
