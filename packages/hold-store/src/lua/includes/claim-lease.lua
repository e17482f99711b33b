-- A confirm's claim on its hold's lease (claim-hold, read-claim-hold): every seat key
-- and ticket entry of the hold extended to at least now + lease ms (taken again where
-- the lease lapsed and nobody else holds or bought the item, and only within the
-- customer's limit), all or nothing, and the confirm's token recorded in the hold's
-- claim hash. Every key is checked before any is written.
--   k: ready, sold, held, tt, ttExpiry, ttHolds, record, customer, claims, free, bought
--      (key names; tt* any key of the slot when the hold has no ticket type), seats (list)
--   a: holdId, token, lease (ms, as text: it goes to Redis as it is), ttId ("" for seats), quantity,
--      channel, customerId, maxPerCustomer, seatIds (list, in k.seats order), status (the
--      record's status when the caller read it already, false when it has none; nil: read here)
-- Returns the claim-hold reply (see claim-hold-11.lua's Output).
local function claimLease(k, a, now)
  if redis.call('EXISTS', k.ready) == 0 then return {'NOT_READY'} end
  local holdId, lease = a.holdId, tonumber(a.lease)
  local status = a.status
  if status == nil then status = redis.call('HGET', k.record, 'status') end
  -- "cancelled": the hold's order was cancelled (cancel-order gave its items back): nothing to claim.
  if status == 'released' or status == 'confirmed' or status == 'cancelled' then return {'ENDED', status} end
  local untilMs = now + lease
  -- Times go to Redis as text made once (a number passed to redis.call is formatted each time).
  local untilText = string.format('%d', untilMs)
  local seats, seatIds = k.seats, a.seatIds

  -- Check every seat before writing any.
  local taken = {}
  local lapsed = {}
  for i = 1, #seats do
    local seatId = seatIds[i]
    local owner = redis.call('GET', seats[i])
    if redis.call('SISMEMBER', k.sold, seatId) == 1 or (owner and owner ~= holdId) then
      taken[#taken + 1] = seatId
    elseif not owner then
      lapsed[#lapsed + 1] = seatId
    end
  end
  if #taken > 0 then
    table.insert(taken, 1, 'UNAVAILABLE')
    return taken
  end

  local ttId = a.ttId
  local quantity = a.quantity
  local ticketsLapsed = false
  if ttId ~= '' then
    if redis.call('EXISTS', k.tt) == 0 then return {'NOT_READY'} end
    local score = redis.call('ZSCORE', k.ttExpiry, holdId)
    ticketsLapsed = not score or tonumber(score) <= now
  end

  -- The customer's tickets in use count this hold while it is claimed.
  local count = #seats
  if ttId ~= '' then count = quantity end

  -- Taking lapsed items again is a new hold of them: the customer's limit applies.
  if #lapsed > 0 or ticketsLapsed then
    local inUse = retakeOverLimit(k.customer, k.bought, a.customerId, holdId, count, a.maxPerCustomer, now)
    if inUse then return {'LIMIT_EXCEEDED', inUse} end
  end

  local ticketsRetaken = false
  if ttId ~= '' then
    local score = redis.call('ZSCORE', k.ttExpiry, holdId)
    if not ticketsLapsed then
      if tonumber(score) < untilMs then redis.call('ZADD', k.ttExpiry, untilText, holdId) end
    else
      -- Lapsed: drop this hold's own stale entry first, so its tickets are never counted twice.
      local old = redis.call('HGET', k.ttHolds, holdId)
      if old then
        redis.call('HDEL', k.ttHolds, holdId)
        redis.call('ZREM', k.ttExpiry, holdId)
        redis.call('HINCRBY', k.tt, 'held', -tonumber(old))
      end
      local available = ticketAvailability(k.tt, k.ttExpiry, k.ttHolds, now)
      if available < quantity then return {'SOLD_OUT', available} end
      redis.call('HINCRBY', k.tt, 'held', quantity)
      redis.call('ZADD', k.ttExpiry, untilText, holdId)
      redis.call('HSET', k.ttHolds, holdId, quantity)
      ticketsRetaken = true
    end
  end

  for i = 1, #seats do
    local seatId = seatIds[i]
    local ttl = redis.call('PTTL', seats[i])
    if ttl < lease then
      redis.call('SET', seats[i], holdId, 'PX', a.lease)
      redis.call('ZADD', k.held, untilText, seatId)
    end
    redis.call('ZREM', k.free, seatId)
  end

  local mine = redis.call('HGET', k.customer, holdId)
  local mineUntil = mine and tonumber(string.match(mine, ':(%d+)$')) or 0
  if mineUntil < untilMs then setCustomerHold(k.customer, holdId, string.format('%d:%d', count, untilMs)) end

  redis.call('HSET', k.claims, a.token, untilText)
  if redis.call('PTTL', k.claims) < lease then redis.call('PEXPIRE', k.claims, a.lease) end
  if status and status ~= 'active' then redis.call('HSET', k.record, 'status', 'active') end

  if #lapsed > 0 then
    redis.call('PUBLISH', a.channel, cjson.encode({ seatIds = lapsed, status = 'held' }))
  end
  if ticketsRetaken then
    local tt = redis.call('HMGET', k.tt, 'cap', 'sold', 'held')
    redis.call('PUBLISH', a.channel, cjson.encode({ ticketTypeId = ttId,
      available = tonumber(tt[1]) - tonumber(tt[2]) - tonumber(tt[3] or '0') }))
  end
  if #lapsed > 0 or ticketsRetaken then return {'OK', 'retaken'} end
  return {'OK', 'live'}
end
