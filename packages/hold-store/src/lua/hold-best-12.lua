--[[
  Best available, decided where the state is: hold the best free selection of
  `quantity` seats in one tier at this instant, or answer SOLD_OUT. No retry
  loop: the free seats are read from the event's free-seat index (see
  includes/free-seats and sync-free-seats), checked one by one against the
  sold set and their seat keys, and taken all or nothing.

  Rules (the same as holds chosen in Node before): the lowest total price;
  among selections of that total, q seats side by side in one row (front rows,
  then low numbers first); else the q cheapest seats in catalog order. The
  customer's limit and rate limit apply; the seat keys, the hold record and the
  outbox entry are written as hold-seats writes them.

  Cost is bounded: the free set is walked from the tier's lowest rank (batches
  of members and their metadata, two calls each, and the last member's score
  when the batch is full), and the search for seats
  side by side stops after ARGV[13] usable seats (or at the first seat dearer
  than the q-th cheapest). Every script keeps the free set in step, so members
  are trusted during the walk and the selection's seats are checked (sold set,
  seat key) before anything is written; when one is taken (drift), the walk is
  made again checking each member, dropping the taken ones from the free set:
  they are never handed out.

  Leases whose time has passed (the held zset, earliest first) give their
  seats back, so a lease that lapsed by TTL is free for this call without
  waiting for the expiry job: 64 first; when the tier then has fewer than q
  free seats and more leases have lapsed, up to 2,048 more (other tiers' may
  come first), the walk being made again after each batch of 256. If leases
  that lapsed are still left then, the answer is AGAIN, not SOLD_OUT: the
  caller calls again (not counting the rate limit twice), and each call gives
  back at least 2,048 of them, so SOLD_OUT always means fewer than q free
  seats in the tier once every lapsed lease has been given back. Each lapsed
  lease is given back once, so the cost is bounded per call and spread over
  the calls that meet it.

  Keys: the chosen seats' keys cannot be known before the call; they are built
  from ARGV[10], a prefix carrying the same {ev:<id>} hash tag as every key
  below, so they live in the same Redis Cluster slot.

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] held seats (zset seat id -> expiresAt ms)
    KEYS[4] the customer's holds (hash)   KEYS[5] tickets bought per customer (hash)
    KEYS[6] the customer's rate-limit window counter   KEYS[7] hold record (hash)
    KEYS[8] outbox (stream)   KEYS[9] free seats (zset seat id -> rank)
    KEYS[10] seat index (hash seat id -> "rank|row id|number|price|label", "t:<tier>" -> "lo:hi", "_n" -> seats)
    ARGV[1] hold id   ARGV[2] customer id   ARGV[3] ttl ms   ARGV[4] max tickets per customer
    ARGV[5] rate limit (0: not counted)   ARGV[6] rate window ms   ARGV[7] change channel
    ARGV[8] tier   ARGV[9] quantity   ARGV[10] seat key prefix ("{ev:<id>}:seat:")
    ARGV[11] event id   ARGV[12] currency   ARGV[13] seats to look at for side by side (>= quantity)
    ARGV[14] the most outbox entries not yet persisted before holds are refused
    ARGV[15] the hold record's ttl ms (ttl + how long the record outlives the hold)
    ARGV[16] sale window start ms   ARGV[17] sale window end ms ('' for an open bound)
    KEYS[11] the waiting room's passes (hash)   KEYS[12] its active passes (zset), see includes/queue-pass
    ARGV[18] the queue pass ('' when the event has no waiting room)

  Output:
    {"OK", now ms, 1 when side by side else 0, seat id, ...}
    {"NOT_READY"}   the event must be primed first
    {"SALES_CLOSED", now ms}   outside the sale window on Redis's clock
    {"QUEUE_PASS", reason}     the queue pass does not let this customer hold (includes/queue-pass)
    {"NOT_INDEXED"} the event's seat index must be built first (sync-free-seats)
    {"OUTBOX_FULL", entries pending}  PostgreSQL is that far behind: nothing written
    {"RATE_LIMITED", retry after ms}   {"LIMIT_EXCEEDED", tickets in use}
    {"SOLD_OUT", free seats in the tier}   fewer than quantity seats are free
    {"AGAIN"}   more lapsed leases than one call gives back: nothing held, call again
    Replayed (this hold id has a record: includes/replayed-hold), nothing written:
    {"OK", the record's createdAt ms, 0 (side by side not known), seat id, ...} (the record's seats)
    while the hold is live; {"SOLD_OUT", 0} once it has ended
]]
--- @include "now-ms"
--- @include "rate-limited"
--- @include "customer-holds"
--- @include "free-seats"
--- @include "sale-window"
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
  local json, createdAt = liveHoldRecord(KEYS[7])
  if not json then return {'SOLD_OUT', 0} end
  local out = {'OK', createdAt, 0}
  for _, item in ipairs(cjson.decode(json).items) do out[#out + 1] = item.seatId end
  return out
end
-- Items that came back (leases that lapsed) go to the waiting lists first (includes/waitlist).
if present % 4 >= 2 then serveWaitlists(p, now) end
if outsideSaleWindow(ARGV[16], ARGV[17], now) then return {'SALES_CLOSED', now} end
local passRefused = queuePassRefused(KEYS[11], KEYS[12], ARGV[18], ARGV[2], now)
if passRefused then return {'QUEUE_PASS', passRefused} end
local index = redis.call('HMGET', KEYS[10], '_n', 't:' .. ARGV[8])
if not index[1] then return {'NOT_INDEXED'} end

-- The outbox is never trimmed (a hold answered 201 must reach PostgreSQL): past
-- its limit of entries not yet persisted, new holds are refused instead.
local pending = redis.call('XLEN', KEYS[8])
if pending >= tonumber(ARGV[14]) then return {'OUTBOX_FULL', pending} end

local retryAfter = rateLimited(KEYS[6], tonumber(ARGV[5]), ARGV[6])
if retryAfter then return {'RATE_LIMITED', retryAfter} end

local q = tonumber(ARGV[9])
local inUse, mineSum, mineEarliest = ticketsInUse(KEYS[4], KEYS[5], ARGV[2], now)
if inUse + q > tonumber(ARGV[4]) then return {'LIMIT_EXCEEDED', inUse} end
if not index[2] then return {'SOLD_OUT', 0} end
local lo, hi = string.match(index[2], '^(%d+):(%d+)$')

local prefix = ARGV[10]
-- Times go to Redis as text made once (a number passed to redis.call is formatted each time).
local nowText = string.format('%d', now)
-- Up to `count` leases whose time has passed give their seats back, earliest first; a lease
-- moved on keeps its entry, re-dated. Answers whether `count` were found (more may be left).
-- Seats given back go to the waiting lists first (serveWaitlists, which hands back only the
-- earliest 256 itself): this caller picks from what the lines leave.
local function giveBackLapsed(count)
  local freed = 0
  local lapsed = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', nowText, 'LIMIT', '0', count)
  for _, seatId in ipairs(lapsed) do
    local ttl = redis.call('PTTL', prefix .. seatId)
    if ttl >= 0 then
      redis.call('ZADD', KEYS[3], now + ttl, seatId)
    elseif ttl == -1 then
      redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), seatId) -- no TTL: reconciliation gives it one
    else
      redis.call('ZREM', KEYS[3], seatId)
      freeSeatBack(KEYS[9], KEYS[10], KEYS[2], seatId)
      freed = freed + 1
    end
  end
  if freed > 0 then serveWaitlists(p, now) end
  return #lapsed == count
end
local moreLapsed = giveBackLapsed(64)

local window = math.max(q, tonumber(ARGV[13]))
local budget = 4 * window + 64 -- members looked at before giving up on side by side

local function taken(id)
  return redis.call('SISMEMBER', KEYS[2], id) == 1 or redis.call('EXISTS', prefix .. id) == 1
end

-- One walk of the tier's free set. With checkEach, every member is checked (and
-- dropped when taken); without, members are trusted and only the selection is
-- checked afterwards. Returns the selection (nil when fewer than q seats were
-- found, the range exhausted), whether it is side by side, and the seats found.
local function select(checkEach)
  local seats = {}                -- usable seats in walk order: {id, row id (text), number, price, meta, label's place in meta}
  local rows = {}                 -- row id -> number -> seat
  local total, ceiling = nil, nil -- lowest total (sum of the q cheapest), q-th cheapest price
  local looked = 0

  -- The window of q seats side by side in one row around `s`, at the lowest total.
  local function place(s)
    local row = rows[s[2]]
    if not row then row = {}; rows[s[2]] = row end
    local n = s[3]
    row[n] = s
    if not total then return nil end
    local first, last = n, n
    while first > n - q + 1 and row[first - 1] do first = first - 1 end
    while last < n + q - 1 and row[last + 1] do last = last + 1 end
    for start = first, last - q + 1 do
      local sum = 0
      for m = start, start + q - 1 do sum = sum + row[m][4] end
      if sum == total then
        local run = {}
        for m = start, start + q - 1 do run[#run + 1] = row[m] end
        return run
      end
    end
    return nil
  end

  local from = lo
  local limit = q + 8
  local exhausted = false
  while not exhausted do
    if #seats >= q and (looked >= budget or #seats >= window) then break end
    local ids = redis.call('ZRANGEBYSCORE', KEYS[9], from, hi, 'LIMIT', '0', limit)
    if #ids == 0 then break end
    -- A full batch: the next one starts after its last member's score (read now, before the
    -- walk may drop that member; one ZSCORE instead of every member's score formatted and
    -- sent). A short batch was the rest of the range.
    if #ids < limit then exhausted = true else from = '(' .. redis.call('ZSCORE', KEYS[9], ids[#ids]) end
    limit = 64
    local metas = redis.call('HMGET', KEYS[10], unpack(ids))
    local stop = false
    for i, id in ipairs(ids) do
      looked = looked + 1
      local meta = metas[i]
      if not meta or (checkEach and taken(id)) then
        redis.call('ZREM', KEYS[9], id) -- drift: a taken seat left in the free set
      else
        -- The label is cut from meta only for the seats held (a capture of it cost every member
        -- walked); the row id stays text: it only groups seats.
        local row, number, price, labelAt = string.match(meta, '^%d+|(%d+)|(-?%d+)|(%d+)|()')
        local s = {id, row, tonumber(number), tonumber(price), meta, labelAt}
        if ceiling and s[4] > ceiling then stop = true; break end -- no selection at the lowest total goes further
        seats[#seats + 1] = s
        local found = nil
        if #seats == q then
          total = 0
          for j = 1, q do total = total + seats[j][4] end
          ceiling = s[4]
          rows = {}
          for j = 1, q do
            found = place(seats[j])
            if found then break end
          end
        else
          found = place(s)
        end
        if found then return found, 1, seats end
        if #seats >= q and (looked >= budget or #seats >= window) then stop = true; break end
      end
    end
    if stop then break end
  end
  if #seats < q then return nil, 0, seats end
  local cheapest = {}
  for j = 1, q do cheapest[j] = seats[j] end
  return cheapest, 0, seats
end

local function pick()
  local chosen, side, seats = select(false)
  local stale = false
  for _, s in ipairs(chosen or seats) do
    if taken(s[1]) then stale = true; redis.call('ZREM', KEYS[9], s[1]) end
  end
  -- A selection with a taken seat (drift), or too few seats trusted: walk again, checking each member.
  if stale or not chosen then chosen, side, seats = select(true) end
  return chosen, side, seats
end

local chosen, side, seats = pick()
-- Too few free seats in the tier while more leases have lapsed (of any tier): give those back too.
local givenBack = 0
while not chosen and moreLapsed and givenBack < 2048 do
  moreLapsed = giveBackLapsed(256)
  givenBack = givenBack + 256
  chosen, side, seats = pick()
end
if not chosen then
  if moreLapsed then return {'AGAIN'} end
  return {'SOLD_OUT', #seats}
end

local expiresAt = now + tonumber(ARGV[3])
local expiresText = string.format('%d', expiresAt)
local items, ids, quoted = {}, {}, {}
local sum = 0
local tier = cjson.encode(ARGV[8])
for i, s in ipairs(chosen) do
  redis.call('SET', prefix .. s[1], ARGV[1], 'PX', ARGV[3])
  redis.call('ZADD', KEYS[3], expiresText, s[1])
  redis.call('ZREM', KEYS[9], s[1])
  quoted[i] = cjson.encode(s[1])
  -- Amounts written as integers (cjson would round numbers past 14 digits).
  items[i] = '{"seatId":' .. quoted[i] .. ',"label":' .. cjson.encode(string.sub(s[5], s[6])) .. ',"tier":' .. tier
    .. ',"priceCents":' .. string.format('%d', s[4]) .. ',"quantity":1}'
  ids[i] = s[1]
  sum = sum + s[4]
end
addCustomerHold(KEYS[4], ARGV[1], q, expiresAt, mineSum, mineEarliest)
queuePassHolding(KEYS[11], KEYS[12], ARGV[18], ARGV[2], expiresText, ARGV[1])
local json = '{"eventId":' .. cjson.encode(ARGV[11]) .. ',"customerId":' .. cjson.encode(ARGV[2]) .. ',"items":['
  .. table.concat(items, ',') .. '],"currency":' .. cjson.encode(ARGV[12]) .. ',"totalCents":' .. string.format('%d', sum) .. '}'
redis.call('HSET', KEYS[7], 'json', json, 'createdAt', nowText, 'expiresAt', expiresText, 'status', 'active')
redis.call('PEXPIRE', KEYS[7], ARGV[15])
redis.call('XADD', KEYS[8], '*', 'holdId', ARGV[1], 'createdAt', nowText, 'expiresAt', expiresText, 'json', json)
-- What cjson.encode({ seatIds = ..., status = 'held' }) writes, byte for byte, without its table.
redis.call('PUBLISH', ARGV[7], '{"status":"held","seatIds":[' .. table.concat(quoted, ',') .. ']}')
local out = {'OK', now, side}
for _, id in ipairs(ids) do out[#out + 1] = id end
return out
