--[[
  Hold seats for one customer: the first candidate selection whose seats are
  all free is held, every seat with SET NX PX; otherwise nothing is written.

  Input:
    KEYS[1] ready marker (the event was primed from PostgreSQL)
    KEYS[2] sold seats (set of seat ids)
    KEYS[3] held seats (zset seat id -> expiresAt ms)
    KEYS[4] the customer's holds (hash hold id -> "quantity:expiresAtMs", see includes/customer-holds)
    KEYS[5] tickets bought per customer (hash customer id -> quantity)
    KEYS[6] the customer's rate-limit window counter
    KEYS[7] hold record (hash)
    KEYS[8] outbox (stream of holds to persist in PostgreSQL)
    KEYS[9] free seats (zset, see includes/free-seats): the held seats leave it
    KEYS[10..] seat keys, candidate after candidate
    KEYS[#KEYS-1] the waiting room's passes (hash)   KEYS[#KEYS] its active passes (zset), see includes/queue-pass
    ARGV[1] hold id             ARGV[2] customer id      ARGV[3] ttl ms
    ARGV[4] max tickets per customer                     ARGV[5] rate limit (0: not counted)
    ARGV[6] rate window ms      ARGV[7] change channel     ARGV[8] number of candidates (n)
    ARGV[9] the hold record's ttl ms (ttl + how long the record outlives the hold)
    ARGV[10 .. 9+n] candidate sizes; ARGV[10+n .. 9+2n] each candidate's hold JSON
    (items, totals); then the seat ids in KEYS order; then the sale window's
    start and end ms (ARGV[#ARGV-3], ARGV[#ARGV-2]; '' for an open bound); then
    the most outbox entries not yet persisted (ARGV[#ARGV-1]) before holds are refused;
    last: the queue pass (ARGV[#ARGV]; '' when the event has no waiting room)

  Output:
    {"OK", candidate index (1-based), now ms}
    {"NOT_READY"}                     the event must be primed first
    {"SALES_CLOSED", now ms}          outside the sale window on Redis's clock
    {"QUEUE_PASS", reason}            the queue pass does not let this customer hold (includes/queue-pass)
    {"OUTBOX_FULL", entries pending}  PostgreSQL is that far behind: nothing written
    {"RATE_LIMITED", retry after ms}
    {"LIMIT_EXCEEDED", tickets in use}
    {"UNAVAILABLE", seat id, ...}     held or sold seats of the candidates
    Replayed (this hold id has a record: includes/replayed-hold), nothing written:
    {"OK", candidate whose JSON the record has, the record's createdAt ms} while the hold is live;
    {"UNAVAILABLE", every candidate's seat ids} once it has ended
]]
--- @include "now-ms"
--- @include "rate-limited"
--- @include "customer-holds"
--- @include "sale-window"
--- @include "free-seats"
--- @include "ticket-availability"
--- @include "waitlist"
--- @include "queue-pass"
--- @include "replayed-hold"

local now = nowMs()

-- The ready marker counted four times, the waiting lists' scopes (includes/waitlist) twice and
-- the hold's record once: one EXISTS answers all three (4 or more: ready; 2 or 3 left over: a
-- waiting list has entries; odd: this hold id has a record, see includes/replayed-hold).
local p = eventPrefixOf(KEYS[1])
local present = redis.call('EXISTS', KEYS[1], KEYS[1], KEYS[1], KEYS[1], p .. 'wls', p .. 'wls', KEYS[7])
if present < 4 then return {'NOT_READY'} end
if present % 2 == 1 then
  local ncand = tonumber(ARGV[8])
  local json, createdAt = liveHoldRecord(KEYS[7])
  if json then
    for c = 1, ncand do
      if ARGV[9 + ncand + c] == json then return {'OK', c, createdAt} end
    end
  end
  local seatIds = {'UNAVAILABLE'}
  for i = 10 + 2 * ncand, #ARGV - 4 do seatIds[#seatIds + 1] = ARGV[i] end
  return seatIds
end
-- Items that came back (leases that lapsed) go to the waiting lists first (includes/waitlist),
-- the requested seats among them wherever their leases stand in the held set (serveWaitlists
-- hands back only the earliest 256): a buyer never takes a lapsed seat ahead of the line.
if present % 4 >= 2 then
  local firstSeat = 10 + 2 * tonumber(ARGV[8])
  for i = firstSeat, #ARGV - 4 do
    if redis.call('EXISTS', KEYS[10 + i - firstSeat]) == 0 and redis.call('ZSCORE', KEYS[3], ARGV[i]) then
      redis.call('ZREM', KEYS[3], ARGV[i])
      freeSeatBack(KEYS[9], p .. 'seatix', KEYS[2], ARGV[i])
    end
  end
  serveWaitlists(p, now)
end
if outsideSaleWindow(ARGV[#ARGV - 3], ARGV[#ARGV - 2], now) then return {'SALES_CLOSED', now} end
local passRefused = queuePassRefused(KEYS[#KEYS - 1], KEYS[#KEYS], ARGV[#ARGV], ARGV[2], now)
if passRefused then return {'QUEUE_PASS', passRefused} end

-- The outbox is never trimmed (a hold answered 201 must reach PostgreSQL): past
-- its limit of entries not yet persisted, new holds are refused instead.
local pending = redis.call('XLEN', KEYS[8])
if pending >= tonumber(ARGV[#ARGV - 1]) then return {'OUTBOX_FULL', pending} end

local retryAfter = rateLimited(KEYS[6], tonumber(ARGV[5]), ARGV[6])
if retryAfter then return {'RATE_LIMITED', retryAfter} end

local ncand = tonumber(ARGV[8])
local sizeAt = 10
local jsonAt = 10 + ncand
local seatAt = 10 + 2 * ncand
local quantity = tonumber(ARGV[sizeAt])

local inUse, mineSum, mineEarliest = ticketsInUse(KEYS[4], KEYS[5], ARGV[2], now)
if inUse + quantity > tonumber(ARGV[4]) then return {'LIMIT_EXCEEDED', inUse} end

-- Check every seat of a candidate before writing any.
local unavailable = {}
local seen = {}
local chosen, size = nil, nil
local offset = 0
for c = 1, ncand do
  size = c == 1 and quantity or tonumber(ARGV[sizeAt + c - 1])
  local free = true
  for i = 1, size do
    local k = offset + i
    local seatId = ARGV[seatAt + k - 1]
    if redis.call('SISMEMBER', KEYS[2], seatId) == 1 or redis.call('EXISTS', KEYS[9 + k]) == 1 then
      free = false
      if not seen[seatId] then seen[seatId] = true; unavailable[#unavailable + 1] = seatId end
    end
  end
  if free then chosen = c; break end
  offset = offset + size
end
if not chosen then
  table.insert(unavailable, 1, 'UNAVAILABLE')
  return unavailable
end

-- Times go to Redis as text made once (a number passed to redis.call is formatted each time).
local expiresAt = now + tonumber(ARGV[3])
local nowText, expiresText = string.format('%d', now), string.format('%d', expiresAt)
local quoted = {}
for i = 1, size do
  local k = offset + i
  local seatId = ARGV[seatAt + k - 1]
  redis.call('SET', KEYS[9 + k], ARGV[1], 'NX', 'PX', ARGV[3])
  redis.call('ZADD', KEYS[3], expiresText, seatId)
  redis.call('ZREM', KEYS[9], seatId)
  quoted[i] = cjson.encode(seatId)
end
addCustomerHold(KEYS[4], ARGV[1], size, expiresAt, mineSum, mineEarliest)
queuePassHolding(KEYS[#KEYS - 1], KEYS[#KEYS], ARGV[#ARGV], ARGV[2], expiresText, ARGV[1])
local json = ARGV[jsonAt + chosen - 1]
redis.call('HSET', KEYS[7], 'json', json, 'createdAt', nowText, 'expiresAt', expiresText, 'status', 'active')
redis.call('PEXPIRE', KEYS[7], ARGV[9])
redis.call('XADD', KEYS[8], '*', 'holdId', ARGV[1], 'createdAt', nowText, 'expiresAt', expiresText, 'json', json)
-- What cjson.encode({ seatIds = ..., status = 'held' }) writes, byte for byte, without its table.
redis.call('PUBLISH', ARGV[7], '{"status":"held","seatIds":[' .. table.concat(quoted, ',') .. ']}')
return {'OK', chosen, now}
