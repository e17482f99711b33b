--[[
  Ends the holds of a committed confirm batch in Redis, all of one event, as
  confirmed: each one exactly as end-hold-12.lua ends a hold with mode
  "confirmed" (includes/end-lease), one after the other, in one round trip
  where it took one per hold. Idempotent per hold (an end applied before
  answers ALREADY); a hold named twice is ended once. The whole argument list
  is read and checked against the keys before any hold is ended.

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] held seats (zset)
    KEYS[4] bought per customer (hash)   KEYS[5] free seats (zset)   KEYS[6] seat index (hash)
    then per hold, in ARGV's order: the customer's holds (hash), ticket type (hash; any key
    of the slot when none), ticket-type holds by expiry (zset), ticket-type quantities (hash),
    hold record (hash), the hold's claims (hash), then its seat keys
    ARGV[1] change channel   ARGV[2] tombstone ttl ms (ttls.ts, confirmed)   ARGV[3] holds
    then per hold: hold id, customer id, ticket type id ("" for seats), quantity,
    seat count n, n seat ids in its keys' order

  Output:
    per hold, in order, two entries: "OK", seats freed   or   "ALREADY", 0
]]
--- @include "now-ms"
--- @include "customer-holds"
--- @include "live-claims"
--- @include "free-seats"
--- @include "ticket-availability"
--- @include "waitlist"
--- @include "end-lease"

-- Read and check every hold's keys and arguments first.
local holds = {}
local count = tonumber(ARGV[3])
local a, k = 4, 7
for h = 1, count do
  local n = tonumber(ARGV[a + 4])
  if not n or k + 5 + n > #KEYS or a + 4 + n > #ARGV then
    return redis.error_reply('end-confirmed-holds: hold ' .. h .. ' does not match its keys')
  end
  local seats, seatIds = {}, {}
  for i = 1, n do
    seats[i] = KEYS[k + 5 + i]
    seatIds[i] = ARGV[a + 4 + i]
  end
  holds[h] = {
    keys = {
      ready = KEYS[1], sold = KEYS[2], held = KEYS[3], bought = KEYS[4], free = KEYS[5], seatIndex = KEYS[6],
      customer = KEYS[k], tt = KEYS[k + 1], ttExpiry = KEYS[k + 2], ttHolds = KEYS[k + 3], record = KEYS[k + 4],
      claims = KEYS[k + 5], seats = seats,
    },
    args = {
      holdId = ARGV[a], customerId = ARGV[a + 1], mode = 'confirmed', channel = ARGV[1], ttId = ARGV[a + 2],
      quantity = ARGV[a + 3], tombstoneMs = ARGV[2], token = '', seatIds = seatIds,
    },
  }
  a = a + 5 + n
  k = k + 6 + n
end
if k - 1 ~= #KEYS or a - 1 ~= #ARGV then
  return redis.error_reply('end-confirmed-holds: ' .. count .. ' holds do not match the keys given')
end

local out = {}
for h = 1, count do
  local reply = endLease(holds[h].keys, holds[h].args)
  out[#out + 1] = reply[1]
  out[#out + 1] = reply[2] or 0
end
return out
