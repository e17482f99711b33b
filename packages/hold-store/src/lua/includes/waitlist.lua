-- The waiting list (issue 30): seats of a tier or tickets of a type that come
-- back go to the customers in line first, as holds of theirs ("offers"), in the
-- same script that hands them back, so they are never free for anyone else in
-- between. Needs now-ms, customer-holds, free-seats and ticket-availability
-- included before it. Every key is built from the event's key prefix
-- ("{ev:<id>}:", the hash tag of all the event's keys: one Redis Cluster slot).
--
--   <p>wls          hash  scope -> 1 while the scope's line has entries
--                         (scope: "t:<tier>" or "tt:<ticket type id>")
--   <p>wlq:<scope>  zset  entry id -> join sequence (PostgreSQL's), the line
--   <p>wl           hash  entry id -> JSON {c customer, q quantity, s scope,
--                         n name and p price cents of a ticket type}
--   <p>wlcfg        hash  eventId, currency, offerMs, recordMs, max (per customer)
--   <p>wlo:<entry>  string "hold id|expiresAt ms" of the entry's offer (until
--                         PostgreSQL has it; the hold's record is the truth)
--   <p>wlg:<entry>  string, set when the entry left its line or was not needed: putting
--                         entries back (waitlist-join's restore) skips it
--
-- Order of service: the line is walked in join order and each entry is served
-- when what is free in its scope covers its quantity (and its customer's limit
-- allows); an entry that cannot be served keeps its place while entries behind
-- it that fit are served. A walk looks at the first 256 entries of a line.
-- Offers bypass the outbox limit: the items must go to the line, not back.

local WAITLIST_WALK = 256

-- Seats of the tier that are free now, in rank order (price, section, row,
-- number), up to `cap`: {id, row, number, price, label}. Taken seats found in
-- the free set (drift) are dropped from it.
local function waitlistFreeSeats(p, tier, cap)
  local range = redis.call('HGET', p .. 'seatix', 't:' .. tier)
  if not range then return {} end
  local lo, hi = string.match(range, '^(%d+):(%d+)$')
  local ids = redis.call('ZRANGEBYSCORE', p .. 'free', lo, hi, 'LIMIT', 0, cap)
  if #ids == 0 then return {} end
  local metas = redis.call('HMGET', p .. 'seatix', unpack(ids))
  local seats = {}
  for i, id in ipairs(ids) do
    local meta = metas[i]
    if not meta or redis.call('SISMEMBER', p .. 'sold', id) == 1 or redis.call('EXISTS', p .. 'seat:' .. id) == 1 then
      redis.call('ZREM', p .. 'free', id)
    else
      local row, number, price, label = string.match(meta, '^%d+|(%d+)|(-?%d+)|(%d+)|(.*)$')
      seats[#seats + 1] = {id, tonumber(row), tonumber(number), tonumber(price), label}
    end
  end
  return seats
end

-- q of the free seats: q side by side in one row when such a run costs what the
-- q cheapest cost (front rows, low numbers first), else the q cheapest. Returns
-- the chosen indexes into `seats`.
local function waitlistPick(seats, q)
  local cheapest, total = {}, 0
  for i = 1, q do cheapest[i] = i; total = total + seats[i][4] end
  if q == 1 then return cheapest end
  local byRow = {}
  for i, s in ipairs(seats) do
    local row = byRow[s[2]]
    if not row then row = {}; byRow[s[2]] = row end
    row[s[3]] = i
  end
  for i, s in ipairs(seats) do
    local row = byRow[s[2]]
    local run, sum = {}, 0
    for n = s[3], s[3] + q - 1 do
      local j = row[n]
      if not j then break end
      run[#run + 1] = j
      sum = sum + seats[j][4]
    end
    if #run == q and sum == total then return run end
  end
  return cheapest
end

-- The hold record, outbox entry and customer entry of an offer (the items are
-- already taken by the caller). `itemsJson` is the JSON array of the hold's items.
local function waitlistWriteOffer(p, cfg, entryId, e, holdId, itemsJson, totalCents, now, sum, earliest)
  local ttl = tonumber(cfg.offerMs)
  local expiresAt = now + ttl
  addCustomerHold(p .. 'cust:' .. e.c, holdId, e.q, expiresAt, sum, earliest)
  local json = '{"eventId":' .. cjson.encode(cfg.eventId) .. ',"customerId":' .. cjson.encode(e.c) .. ',"items":'
    .. itemsJson .. ',"currency":' .. cjson.encode(cfg.currency) .. ',"totalCents":' .. string.format('%d', totalCents)
    .. ',"waitlistEntryId":' .. cjson.encode(entryId) .. '}'
  local record = p .. 'hold:' .. holdId
  redis.call('HSET', record, 'json', json, 'createdAt', now, 'expiresAt', expiresAt, 'status', 'active')
  redis.call('PEXPIRE', record, ttl + tonumber(cfg.recordMs))
  redis.call('XADD', p .. 'outbox', '*', 'holdId', holdId, 'createdAt', now, 'expiresAt', expiresAt, 'json', json)
  redis.call('SET', p .. 'wlo:' .. entryId, holdId .. '|' .. expiresAt, 'PX', ttl + tonumber(cfg.recordMs))
  redis.call('HDEL', p .. 'wl', entryId)
  return expiresAt
end

-- A new hold id of the event for an entry's offer (the shape of @holdfast/contracts' hold ids).
local function waitlistHoldId(p, entryId, now)
  local event = string.gsub(string.match(p, '^{ev:([^}]+)}'), '-', '')
  return 'hld_' .. event .. '_' .. string.sub(redis.sha1hex(entryId .. ':' .. now .. ':' .. p), 1, 24)
end

-- Serves one scope's line from what is free in it now. Returns the offers made
-- as a flat list {entry id, hold id, ...}, appended to `made`.
local function serveWaitlistScope(p, scope, cfg, now, made)
  local line = p .. 'wlq:' .. scope
  local ids = redis.call('ZRANGE', line, 0, WAITLIST_WALK - 1)
  if #ids == 0 then
    redis.call('HDEL', p .. 'wls', scope)
    return
  end
  local tier = string.match(scope, '^t:(.*)$')
  local ttId = string.match(scope, '^tt:(.*)$')
  local seats, available
  if tier then
    seats = waitlistFreeSeats(p, tier, 512)
    available = #seats
  else
    if redis.call('EXISTS', p .. 'tt:' .. ttId) == 0 then return end
    available = ticketAvailability(p .. 'tt:' .. ttId, p .. 'ttexp:' .. ttId, p .. 'ttq:' .. ttId, now)
  end
  local max = tonumber(cfg.max or '100')
  for _, entryId in ipairs(ids) do
    if available <= 0 then break end
    local raw = redis.call('HGET', p .. 'wl', entryId)
    if not raw then
      redis.call('ZREM', line, entryId) -- an entry without its data (left meanwhile): not served
    else
      local e = cjson.decode(raw)
      if e.q <= available then
        local inUse, sum, earliest = ticketsInUse(p .. 'cust:' .. e.c, p .. 'bought', e.c, now)
        if inUse + e.q <= max then
          local holdId = waitlistHoldId(p, entryId, now)
          local ttl = tonumber(cfg.offerMs)
          local expiresAt = now + ttl
          if tier then
            local chosen = waitlistPick(seats, e.q)
            local items, heldIds, total, taken = {}, {}, 0, {}
            for _, i in ipairs(chosen) do
              local s = seats[i]
              taken[i] = true
              redis.call('SET', p .. 'seat:' .. s[1], holdId, 'PX', ttl)
              redis.call('ZADD', p .. 'held', expiresAt, s[1])
              redis.call('ZREM', p .. 'free', s[1])
              items[#items + 1] = '{"seatId":' .. cjson.encode(s[1]) .. ',"label":' .. cjson.encode(s[5]) .. ',"tier":'
                .. cjson.encode(tier) .. ',"priceCents":' .. string.format('%d', s[4]) .. ',"quantity":1}'
              heldIds[#heldIds + 1] = s[1]
              total = total + s[4]
            end
            local rest = {}
            for i, s in ipairs(seats) do if not taken[i] then rest[#rest + 1] = s end end
            seats = rest
            available = #seats
            waitlistWriteOffer(p, cfg, entryId, e, holdId, '[' .. table.concat(items, ',') .. ']', total, now, sum, earliest)
            redis.call('PUBLISH', p .. 'changes', cjson.encode({ seatIds = heldIds, status = 'held' }))
          else
            redis.call('HINCRBY', p .. 'tt:' .. ttId, 'held', e.q)
            redis.call('ZADD', p .. 'ttexp:' .. ttId, expiresAt, holdId)
            redis.call('HSET', p .. 'ttq:' .. ttId, holdId, e.q)
            available = available - e.q
            local item = '[{"ticketTypeId":' .. cjson.encode(ttId) .. ',"name":' .. cjson.encode(e.n) .. ',"priceCents":'
              .. string.format('%d', e.p) .. ',"quantity":' .. e.q .. '}]'
            waitlistWriteOffer(p, cfg, entryId, e, holdId, item, e.p * e.q, now, sum, earliest)
            redis.call('PUBLISH', p .. 'changes', cjson.encode({ ticketTypeId = ttId, available = available }))
          end
          redis.call('ZREM', line, entryId)
          made[#made + 1] = entryId
          made[#made + 1] = holdId
        end
      end
    end
  end
  if redis.call('ZCARD', line) == 0 then redis.call('HDEL', p .. 'wls', scope) end
end

-- Seat leases whose time has passed give their seats back (earliest first, up
-- to `count`), so the line gets them before the expiry job runs.
local function waitlistGiveBackLapsed(p, now, count)
  local lapsed = redis.call('ZRANGEBYSCORE', p .. 'held', '-inf', now, 'LIMIT', 0, count)
  for _, seatId in ipairs(lapsed) do
    local ttl = redis.call('PTTL', p .. 'seat:' .. seatId)
    if ttl >= 0 then
      redis.call('ZADD', p .. 'held', now + ttl, seatId)
    elseif ttl == -2 then
      redis.call('ZREM', p .. 'held', seatId)
      freeSeatBack(p .. 'free', p .. 'seatix', p .. 'sold', seatId)
    end
  end
end

-- Serves every line of the event that has entries (nothing when none: one HLEN).
-- `p`: the event's key prefix. Returns {entry id, hold id, ...} of the offers made.
local function serveWaitlists(p, now)
  local made = {}
  if redis.call('HLEN', p .. 'wls') == 0 then return made end
  local c = redis.call('HMGET', p .. 'wlcfg', 'eventId', 'currency', 'offerMs', 'recordMs', 'max')
  if not c[1] then return made end
  local cfg = { eventId = c[1], currency = c[2], offerMs = c[3], recordMs = c[4], max = c[5] }
  waitlistGiveBackLapsed(p, now, 256)
  for _, scope in ipairs(redis.call('HKEYS', p .. 'wls')) do serveWaitlistScope(p, scope, cfg, now, made) end
  return made
end

-- The event's key prefix from its ready marker's name ("{ev:<id>}:ready").
local function eventPrefixOf(readyKey)
  return string.sub(readyKey, 1, #readyKey - 5)
end
