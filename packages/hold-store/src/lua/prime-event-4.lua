--[[
  Load an event's sale state from PostgreSQL into Redis, once: sold seats,
  ticket types' capacity and sales, tickets bought per customer, and the
  leases of the holds PostgreSQL still has ACTIVE (for their remaining time on
  Redis's clock, counted against their customers' limits) with their records
  (so they can be extended, released and read as before), all before the
  ready marker lets the event sell again. A no-op when another process primed
  the event first.

  PostgreSQL is read in one snapshot, and the hold may end between that read
  and this script: end-hold then found the event not primed, and its only
  trace is the hold's record, whose status it set (end-hold writes it primed
  or not). A hold the snapshot saw ACTIVE whose record says confirmed is
  applied as sold (its seats in the sold set, its tickets sold, its customer's
  purchases; the snapshot had none of it); released or expired, it is not
  restored. A record still active, or none, is restored as above.

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] bought per customer (hash)
    KEYS[4] held seats (zset)
    KEYS[5..] ticket type hashes, then their quantity hashes (hold id -> quantity),
              then their expiry zsets (hold id -> expiresAt ms), one of each per type
    then the live holds' seat keys (in ARGV order), then one customer-holds hash per live hold,
    then one hold record (hash) per live hold
    ARGV[1] number of ticket types   ARGV[2] number of customers with purchases
    ARGV[3] number of live holds     ARGV[4] number of sold seats
    ARGV[5] record ttl ms (how long a hold record outlives its hold)
    ARGV[6..] per ticket type: capacity, sold; then per customer: id, quantity;
              then the sold seat ids; then per live hold: hold id, customer id, expiresAt ms,
              createdAt ms, extensions, record JSON (items, totals),
              ticket type index (0 for seats), count (tickets, or seats followed by their ids)

  Output: 1 when primed now, 0 when it was primed already
]]
--- @include "now-ms"
--- @include "customer-holds"

if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local now = nowMs()
local ntt = tonumber(ARGV[1])
local ncust = tonumber(ARGV[2])
local nholds = tonumber(ARGV[3])
local nsold = tonumber(ARGV[4])
local a = 6
for i = 1, ntt do
  -- Tickets still in holds that survived (if any) stay counted as held.
  local held = 0
  local qty = redis.call('HVALS', KEYS[4 + ntt + i])
  for _, q in ipairs(qty) do held = held + tonumber(q) end
  redis.call('HSET', KEYS[4 + i], 'cap', ARGV[a], 'sold', ARGV[a + 1], 'held', held)
  a = a + 2
end
redis.call('DEL', KEYS[3])
for i = 1, ncust do
  redis.call('HSET', KEYS[3], ARGV[a], ARGV[a + 1])
  a = a + 2
end
redis.call('DEL', KEYS[2])
local batch = {}
for i = a, a + nsold - 1 do
  batch[#batch + 1] = ARGV[i]
  if #batch == 1000 then redis.call('SADD', KEYS[2], unpack(batch)); batch = {} end
end
if #batch > 0 then redis.call('SADD', KEYS[2], unpack(batch)) end
a = a + nsold

local seatKey = 5 + 3 * ntt
local custKey = #KEYS - 2 * nholds + 1
local recordKey = #KEYS - nholds + 1
for h = 1, nholds do
  local holdId, customerId, expiresAt = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  local createdAt, extensions, json = ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
  local tti, count = tonumber(ARGV[a + 6]), tonumber(ARGV[a + 7])
  a = a + 8
  local ttl = expiresAt - now
  local ended = redis.call('HGET', KEYS[recordKey], 'status')
  if ended == 'active' then ended = nil end
  if ended == 'confirmed' then
    -- Confirmed after the snapshot, its end-hold run while the event was not primed.
    redis.call('HINCRBY', KEYS[3], customerId, count)
    if tti == 0 then
      for s = 1, count do
        local seatId = ARGV[a + s - 1]
        redis.call('SADD', KEYS[2], seatId)
        if redis.call('GET', KEYS[seatKey]) == holdId then redis.call('DEL', KEYS[seatKey]) end
        redis.call('ZREM', KEYS[4], seatId)
        seatKey = seatKey + 1
      end
      a = a + count
    else
      redis.call('HINCRBY', KEYS[4 + tti], 'sold', count)
    end
  elseif ended then
    -- Released or expired after the snapshot: nothing to restore.
    if tti == 0 then
      seatKey = seatKey + count
      a = a + count
    end
  elseif tti == 0 then
    for s = 1, count do
      local seatId = ARGV[a + s - 1]
      if ttl > 0 and redis.call('SISMEMBER', KEYS[2], seatId) == 0
        and redis.call('SET', KEYS[seatKey], holdId, 'NX', 'PX', ttl) then
        redis.call('ZADD', KEYS[4], expiresAt, seatId)
      end
      seatKey = seatKey + 1
    end
    a = a + count
  elseif ttl > 0 and redis.call('HEXISTS', KEYS[4 + ntt + tti], holdId) == 0 then
    redis.call('HSET', KEYS[4 + ntt + tti], holdId, count)
    redis.call('ZADD', KEYS[4 + 2 * ntt + tti], expiresAt, holdId)
    redis.call('HINCRBY', KEYS[4 + tti], 'held', count)
  end
  if not ended and ttl > 0 and redis.call('HEXISTS', KEYS[custKey], holdId) == 0 then
    setCustomerHold(KEYS[custKey], holdId, count .. ':' .. expiresAt)
  end
  -- The record too (a record that survived is kept: it may say more, e.g. a status).
  if ttl > 0 and redis.call('EXISTS', KEYS[recordKey]) == 0 then
    redis.call('HSET', KEYS[recordKey], 'json', json, 'createdAt', createdAt, 'expiresAt', expiresAt,
      'status', 'active', 'extensions', extensions)
    redis.call('PEXPIRE', KEYS[recordKey], ttl + tonumber(ARGV[5]))
  end
  custKey = custKey + 1
  recordKey = recordKey + 1
end
redis.call('SET', KEYS[1], '1')
return 1
