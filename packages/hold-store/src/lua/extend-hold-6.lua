--[[
  Extend a live hold: every seat key and the ticket lease of the hold move to
  the new expiry together (never shortened), or nothing moves. Decided on Redis's clock: a hold
  whose lease has lapsed (any seat key gone or owned by another hold, or the
  ticket lease past its time) is not extended.

  Input:
    KEYS[1] held seats (zset seat id -> expiresAt ms)
    KEYS[2] the customer's holds (hash hold id -> "quantity:expiresAtMs", see includes/customer-holds)
    KEYS[3] ticket-type holds by expiry (zset hold id -> expiresAt ms; any key of the slot when none)
    KEYS[4] hold record (hash)
    KEYS[5..] seat keys
    ARGV[1] hold id   ARGV[2] hold time ms (the new expiry is now + this)
    ARGV[3] latest allowed expiry, ms since the epoch (createdAt + the event's maximum hold time)
    ARGV[4] ticket type id ("" for seats)   ARGV[5] quantity
    ARGV[6] record ttl ms (how long the hold record outlives the hold)   ARGV[7..] seat ids in KEYS order

  Output:
    {"OK", new expiresAt ms}
    {"MISSING"}                 Redis has no record of the hold
    {"NOT_ACTIVE", status}      the record says released, expired or confirmed
    {"EXPIRED"}                 the lease has lapsed
    {"CAP", current expiresAt ms} the new expiry would not be later than the current one
]]
--- @include "now-ms"
--- @include "customer-holds"

local now = nowMs()
local holdId = ARGV[1]
local rec = redis.call('HMGET', KEYS[4], 'status', 'expiresAt')
if not rec[1] then return {'MISSING'} end
if rec[1] ~= 'active' then return {'NOT_ACTIVE', rec[1]} end
local current = tonumber(rec[2])
-- A tombstone a late claim made active again has no expiry of its own: over.
if not current or current <= now then return {'EXPIRED'} end

-- Check every lease before writing any.
for i = 5, #KEYS do
  if redis.call('GET', KEYS[i]) ~= holdId then return {'EXPIRED'} end
end
local ttId = ARGV[4]
if ttId ~= '' then
  local score = redis.call('ZSCORE', KEYS[3], holdId)
  if not score or tonumber(score) <= now then return {'EXPIRED'} end
end

local expiresAt = math.min(now + tonumber(ARGV[2]), tonumber(ARGV[3]))
if expiresAt <= current then return {'CAP', current} end

-- Leases only grow: a confirm in flight may have claimed them for longer already.
for i = 5, #KEYS do
  if redis.call('PEXPIRETIME', KEYS[i]) < expiresAt then redis.call('PEXPIREAT', KEYS[i], expiresAt) end
  redis.call('ZADD', KEYS[1], 'GT', expiresAt, ARGV[i + 2])
end
if ttId ~= '' then redis.call('ZADD', KEYS[3], 'GT', expiresAt, holdId) end
-- The customer's entry only grows too: a live claim may count this hold until later than the new expiry.
local mine = redis.call('HGET', KEYS[2], holdId)
local mineUntil = mine and tonumber(string.match(mine, ':(%d+)$')) or 0
if mineUntil < expiresAt then setCustomerHold(KEYS[2], holdId, ARGV[5] .. ':' .. expiresAt) end
redis.call('HSET', KEYS[4], 'expiresAt', expiresAt)
redis.call('HINCRBY', KEYS[4], 'extensions', 1)
redis.call('PEXPIRE', KEYS[4], expiresAt - now + tonumber(ARGV[6]))
return {'OK', expiresAt}
