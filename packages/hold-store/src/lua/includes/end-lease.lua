-- Ends a hold in Redis after PostgreSQL has recorded it (end-hold, end-confirmed-holds):
-- see end-hold-12.lua for the rules. Needs now-ms, customer-holds, live-claims,
-- free-seats, ticket-availability and waitlist included before it.
--   k: ready, sold, held, customer, bought, tt, ttExpiry, ttHolds (any key of the slot
--      when the hold has no ticket type), record, claims, free, seatIndex, seats (list)
--   a: holdId, customerId, mode ("released" | "expired" | "confirmed"), channel,
--      ttId ("" for seats), quantity (as text: it goes to Redis as it is), tombstoneMs, token ("" for none),
--      seatIds (list)
-- Returns the end-hold reply (see end-hold-12.lua's Output).
local function endLease(k, a)
  local holdId, mode = a.holdId, a.mode
  if mode == 'confirmed' then
    redis.call('DEL', k.claims)
  else
    if a.token ~= '' then redis.call('HDEL', k.claims, a.token) end
    if liveClaims(k.claims, nowMs()) then return {'CLAIMED'} end
  end
  local record = redis.call('HMGET', k.record, 'status', 'expiresAt')
  -- A hold whose order was cancelled has nothing left to end: cancel-order gave its items
  -- back (maybe to another buyer by now), and its mark keeps cancel-order from applying twice.
  if record[1] == mode or record[1] == 'cancelled' then return {'ALREADY'} end
  if mode == 'expired' and record[1] == 'active' and record[2] then
    local left = tonumber(record[2]) - nowMs()
    if left > 0 then return {'NOT_DUE', left} end
  end
  local ready = redis.call('EXISTS', k.ready) == 1
  local confirmed = mode == 'confirmed'
  local quantity = tonumber(a.quantity)
  local seats, seatIds = k.seats, a.seatIds

  local freed = {}
  for i = 1, #seats do
    local seatId = seatIds[i]
    local owner = redis.call('GET', seats[i])
    if owner == holdId then
      redis.call('DEL', seats[i])
      redis.call('ZREM', k.held, seatId)
      freed[#freed + 1] = seatId
    elseif not owner and redis.call('SISMEMBER', k.sold, seatId) == 0 then
      -- The lease lapsed already (key expired): the seat is free; drop its stale entry.
      redis.call('ZREM', k.held, seatId)
      if not confirmed then freed[#freed + 1] = seatId end
    end
    if confirmed and ready then redis.call('SADD', k.sold, seatId) end
    if confirmed then
      redis.call('ZREM', k.free, seatId)
    elseif not owner or owner == holdId then
      freeSeatBack(k.free, k.seatIndex, k.sold, seatId)
    end
  end

  dropCustomerHold(k.customer, holdId)
  if confirmed and ready then redis.call('HINCRBY', k.bought, a.customerId, a.quantity) end

  local ttId = a.ttId
  if ttId ~= '' and redis.call('EXISTS', k.tt) == 1 then
    local held = redis.call('HGET', k.ttHolds, holdId)
    if held then
      redis.call('HDEL', k.ttHolds, holdId)
      redis.call('ZREM', k.ttExpiry, holdId)
      redis.call('HINCRBY', k.tt, 'held', -tonumber(held))
    end
    if confirmed then redis.call('HINCRBY', k.tt, 'sold', quantity) end
    local tt = redis.call('HMGET', k.tt, 'cap', 'sold', 'held')
    redis.call('PUBLISH', a.channel, cjson.encode({ ticketTypeId = ttId,
      available = tonumber(tt[1]) - tonumber(tt[2]) - tonumber(tt[3] or '0') }))
  end

  -- What came back goes to the waiting lists first, in this same step (includes/waitlist).
  local offers = (ready and not confirmed) and serveWaitlists(eventPrefixOf(k.ready), nowMs()) or {}

  -- The record shrinks to a tombstone, its status: PostgreSQL has the hold's row.
  redis.call('HDEL', k.record, 'json', 'createdAt', 'expiresAt', 'extensions')
  redis.call('HSET', k.record, 'status', mode)
  redis.call('PEXPIRE', k.record, a.tombstoneMs)
  if #seats > 0 then
    if confirmed then
      -- What cjson.encode({ seatIds = ..., status = 'sold' }) writes, byte for byte, without its table.
      local quoted = {}
      for i = 1, #seatIds do quoted[i] = cjson.encode(seatIds[i]) end
      redis.call('PUBLISH', a.channel, '{"status":"sold","seatIds":[' .. table.concat(quoted, ',') .. ']}')
    elseif #freed > 0 then
      redis.call('PUBLISH', a.channel, cjson.encode({ seatIds = freed, status = 'available' }))
    end
  end
  return {'OK', #freed, #offers / 2}
end
