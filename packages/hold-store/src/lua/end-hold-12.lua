--[[
  End a hold in Redis after PostgreSQL has recorded it: released, expired or
  confirmed. Compare-and-delete: a seat key is removed only while this hold
  owns it. Applying the same end twice changes nothing. A release or expiry
  changes nothing while a confirm claims the hold (claim-hold): that confirm
  ends it, confirmed, or gives up and ends it with its own token. An expiry
  changes nothing before the hold's time on Redis's clock (its record's
  expiresAt, moved by every extension): a lease is ended as expired only once
  it has run out, whatever the clock of the process that asks.

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] held seats (zset)
    KEYS[4] the customer's holds (hash)   KEYS[5] bought per customer (hash)
    KEYS[6] ticket type (hash cap, sold, held; any key of the slot when none)
    KEYS[7] ticket-type holds by expiry (zset)   KEYS[8] ticket-type quantities (hash)
    KEYS[9] hold record (hash)   KEYS[10] the hold's claims (hash token -> until ms)
    KEYS[11] free seats (zset)   KEYS[12] seat index (hash), see includes/free-seats
    KEYS[13..] seat keys
    ARGV[1] hold id   ARGV[2] customer id   ARGV[3] "released" | "expired" | "confirmed"
    ARGV[4] change channel   ARGV[5] ticket type id ("" for seats)   ARGV[6] quantity
    ARGV[7] tombstone ttl ms (how long the ended hold's status stays, ttls.ts)    ARGV[8] the ending confirm's claim token ("" for none)
    ARGV[9..] seat ids in KEYS order

  Output:
    {"OK", seats freed (including seats whose lease had lapsed), offers made to waiting lists}   {"ALREADY"} when this end was applied before
    {"CLAIMED"} a confirm (other than ARGV[8]'s) claims the hold: nothing done
    {"NOT_DUE", ms left}  an expiry of a hold whose time has not come on Redis's clock: nothing done
]]
--- @include "now-ms"
--- @include "customer-holds"
--- @include "live-claims"
--- @include "free-seats"
--- @include "ticket-availability"
--- @include "waitlist"

local holdId, mode = ARGV[1], ARGV[3]
if mode == 'confirmed' then
  redis.call('DEL', KEYS[10])
else
  if ARGV[8] ~= '' then redis.call('HDEL', KEYS[10], ARGV[8]) end
  if liveClaims(KEYS[10], nowMs()) then return {'CLAIMED'} end
end
local record = redis.call('HMGET', KEYS[9], 'status', 'expiresAt')
if record[1] == mode then return {'ALREADY'} end
if mode == 'expired' and record[1] == 'active' and record[2] then
  local left = tonumber(record[2]) - nowMs()
  if left > 0 then return {'NOT_DUE', left} end
end
local ready = redis.call('EXISTS', KEYS[1]) == 1
local confirmed = mode == 'confirmed'
local quantity = tonumber(ARGV[6])

local freed = {}
for i = 13, #KEYS do
  local seatId = ARGV[i - 4]
  local owner = redis.call('GET', KEYS[i])
  if owner == holdId then
    redis.call('DEL', KEYS[i])
    redis.call('ZREM', KEYS[3], seatId)
    freed[#freed + 1] = seatId
  elseif not owner and redis.call('SISMEMBER', KEYS[2], seatId) == 0 then
    -- The lease lapsed already (key expired): the seat is free; drop its stale entry.
    redis.call('ZREM', KEYS[3], seatId)
    if not confirmed then freed[#freed + 1] = seatId end
  end
  if confirmed and ready then redis.call('SADD', KEYS[2], seatId) end
  if confirmed then
    redis.call('ZREM', KEYS[11], seatId)
  elseif not owner or owner == holdId then
    freeSeatBack(KEYS[11], KEYS[12], KEYS[2], seatId)
  end
end

dropCustomerHold(KEYS[4], holdId)
if confirmed and ready then redis.call('HINCRBY', KEYS[5], ARGV[2], quantity) end

local ttId = ARGV[5]
if ttId ~= '' and redis.call('EXISTS', KEYS[6]) == 1 then
  local held = redis.call('HGET', KEYS[8], holdId)
  if held then
    redis.call('HDEL', KEYS[8], holdId)
    redis.call('ZREM', KEYS[7], holdId)
    redis.call('HINCRBY', KEYS[6], 'held', -tonumber(held))
  end
  if confirmed then redis.call('HINCRBY', KEYS[6], 'sold', quantity) end
  local tt = redis.call('HMGET', KEYS[6], 'cap', 'sold', 'held')
  redis.call('PUBLISH', ARGV[4], cjson.encode({ ticketTypeId = ttId,
    available = tonumber(tt[1]) - tonumber(tt[2]) - tonumber(tt[3] or '0') }))
end

-- What came back goes to the waiting lists first, in this same step (includes/waitlist).
local offers = (ready and not confirmed) and serveWaitlists(eventPrefixOf(KEYS[1]), nowMs()) or {}

-- The record shrinks to a tombstone, its status: PostgreSQL has the hold's row.
redis.call('HDEL', KEYS[9], 'json', 'createdAt', 'expiresAt', 'extensions')
redis.call('HSET', KEYS[9], 'status', mode)
redis.call('PEXPIRE', KEYS[9], ARGV[7])
if #KEYS >= 13 then
  local seatIds = {}
  for i = 13, #KEYS do seatIds[#seatIds + 1] = ARGV[i - 4] end
  if confirmed then
    redis.call('PUBLISH', ARGV[4], cjson.encode({ seatIds = seatIds, status = 'sold' }))
  elseif #freed > 0 then
    redis.call('PUBLISH', ARGV[4], cjson.encode({ seatIds = freed, status = 'available' }))
  end
end
return {'OK', #freed, #offers / 2}
