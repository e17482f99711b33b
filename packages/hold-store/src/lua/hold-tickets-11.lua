--[[
  Hold general-admission tickets: quantity of one ticket type, or nothing.
  Holds past their expiresAt are pruned first (lazy expiry on Redis's clock),
  so tickets come back to the pool without waiting for any worker.

  Input:
    KEYS[1] ready marker     KEYS[2] ticket type (hash cap, sold, held)
    KEYS[3] ticket-type holds by expiry (zset hold id -> expiresAt ms)
    KEYS[4] ticket-type hold quantities (hash hold id -> quantity)
    KEYS[5] the customer's holds (hash hold id -> "quantity:expiresAtMs", see includes/customer-holds)
    KEYS[6] tickets bought per customer (hash)   KEYS[7] rate-limit counter
    KEYS[8] hold record (hash)                   KEYS[9] outbox (stream)
    ARGV[1] hold id   ARGV[2] customer id   ARGV[3] ttl ms   ARGV[4] max per customer
    ARGV[5] rate limit (0: not counted)     ARGV[6] rate window ms
    ARGV[7] hold JSON  ARGV[8] change channel  ARGV[9] ticket type id  ARGV[10] quantity
    ARGV[11] the most outbox entries not yet persisted before holds are refused
    ARGV[12] the hold record's ttl ms (ttl + how long the record outlives the hold)
    ARGV[13] sale window start ms   ARGV[14] sale window end ms ('' for an open bound)
    KEYS[10] the waiting room's passes (hash)   KEYS[11] its active passes (zset), see includes/queue-pass
    ARGV[15] the queue pass ('' when the event has no waiting room)

  Output:
    {"OK", 1, now ms} | {"NOT_READY"} | {"RATE_LIMITED", retry after ms}
    {"SALES_CLOSED", now ms} (outside the sale window on Redis's clock)
    {"QUEUE_PASS", reason} (the queue pass does not let this customer hold, includes/queue-pass)
    {"OUTBOX_FULL", entries pending} (PostgreSQL is that far behind: nothing written)
    {"LIMIT_EXCEEDED", tickets in use} | {"SOLD_OUT", available}
    Replayed (this hold id has a record: includes/replayed-hold), nothing written:
    {"OK", 1, the record's createdAt ms} while the hold is live; {"SOLD_OUT", 0} once it has ended
]]
--- @include "now-ms"
--- @include "rate-limited"
--- @include "customer-holds"
--- @include "ticket-availability"
--- @include "sale-window"
--- @include "free-seats"
--- @include "waitlist"
--- @include "queue-pass"
--- @include "replayed-hold"

local now = nowMs()

-- The ready marker and the ticket type counted four times each, the waiting lists' scopes
-- (includes/waitlist) twice and the hold's record once: one EXISTS answers all four (8 or more:
-- both there; 2 or 3 left over by 4: a waiting list has entries; odd: this hold id has a record,
-- see includes/replayed-hold).
local p = eventPrefixOf(KEYS[1])
local present = redis.call('EXISTS', KEYS[1], KEYS[1], KEYS[1], KEYS[1], KEYS[2], KEYS[2], KEYS[2], KEYS[2], p .. 'wls', p .. 'wls', KEYS[8])
if present < 8 then return {'NOT_READY'} end
if present % 2 == 1 then
  local json, createdAt = liveHoldRecord(KEYS[8])
  if json == ARGV[7] then return {'OK', 1, createdAt} end
  return {'SOLD_OUT', 0}
end
-- Items that came back (leases that lapsed) go to the waiting lists first (includes/waitlist).
if present % 4 >= 2 then serveWaitlists(p, now) end
if outsideSaleWindow(ARGV[13], ARGV[14], now) then return {'SALES_CLOSED', now} end
local passRefused = queuePassRefused(KEYS[10], KEYS[11], ARGV[15], ARGV[2], now)
if passRefused then return {'QUEUE_PASS', passRefused} end

-- The outbox is never trimmed (a hold answered 201 must reach PostgreSQL): past
-- its limit of entries not yet persisted, new holds are refused instead.
local pending = redis.call('XLEN', KEYS[9])
if pending >= tonumber(ARGV[11]) then return {'OUTBOX_FULL', pending} end

local retryAfter = rateLimited(KEYS[7], tonumber(ARGV[5]), ARGV[6])
if retryAfter then return {'RATE_LIMITED', retryAfter} end

local quantity = tonumber(ARGV[10])
local inUse, mineSum, mineEarliest = ticketsInUse(KEYS[5], KEYS[6], ARGV[2], now)
if inUse + quantity > tonumber(ARGV[4]) then return {'LIMIT_EXCEEDED', inUse} end

-- Lazy expiry: the tickets of holds whose time has passed come back first.
local nowText = string.format('%d', now)
local available = ticketAvailability(KEYS[2], KEYS[3], KEYS[4], nowText)
if available < quantity then return {'SOLD_OUT', available} end

-- Times and counts go to Redis as text made once (a number passed to redis.call is formatted each time).
local expiresAt = now + tonumber(ARGV[3])
local expiresText = string.format('%d', expiresAt)
redis.call('HINCRBY', KEYS[2], 'held', ARGV[10])
redis.call('ZADD', KEYS[3], expiresText, ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[10])
addCustomerHold(KEYS[5], ARGV[1], quantity, expiresAt, mineSum, mineEarliest)
queuePassHolding(KEYS[10], KEYS[11], ARGV[15], ARGV[2], expiresText, ARGV[1])
redis.call('HSET', KEYS[8], 'json', ARGV[7], 'createdAt', nowText, 'expiresAt', expiresText, 'status', 'active')
redis.call('PEXPIRE', KEYS[8], ARGV[12])
redis.call('XADD', KEYS[9], '*', 'holdId', ARGV[1], 'createdAt', nowText, 'expiresAt', expiresText, 'json', ARGV[7])
-- What cjson.encode({ ticketTypeId = ..., available = ... }) writes, byte for byte, without its table.
redis.call('PUBLISH', ARGV[8], '{"available":' .. string.format('%d', available - quantity) .. ',"ticketTypeId":' .. cjson.encode(ARGV[9]) .. '}')
return {'OK', 1, now}
