--[[
  Give back a hold whose script may have run though its call failed (no
  answer in time, its connection lost, a cluster's client giving up after
  resending it): its buyer was answered 503, so a hold that script took is
  nobody's. The API sends this right after the hold script, on the same
  connection (or once Redis can be reached again: PendingUndos), so
  Redis runs it after that script, whenever that script runs, and before
  anything that connection sends after the 503 (a retry of the same seats
  through the same API process finds them free).
  The hold's seats are read from its record (a best-available hold's seats are
  chosen inside its script), then it ends released as end-hold ends it: the
  seats and tickets go back (to the waiting lists first), the record shrinks to
  its tombstone. When there is no record of that id (the hold script refused
  it, or has not run yet), the tombstone alone is written: a hold script that
  runs after this give-back (a Redis Cluster's client sends a command again
  after a failover, and the give-back may overtake it) finds the hold ended
  and takes nothing (includes/replayed-hold). Nothing is written when the
  hold ended already or a confirm claims it.

  Keys: the record's seat keys cannot be known before the call; they are built
  from ARGV[6], a prefix carrying the same {ev:<id>} hash tag as every key
  below, so they live in the same Redis Cluster slot (as hold-best builds them).

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] held seats (zset)
    KEYS[4] the customer's holds (hash)   KEYS[5] bought per customer (hash)
    KEYS[6] ticket type (hash cap, sold, held; any key of the slot when none)
    KEYS[7] ticket-type holds by expiry (zset)   KEYS[8] ticket-type quantities (hash)
    KEYS[9] hold record (hash)   KEYS[10] the hold's claims (hash token -> until ms)
    KEYS[11] free seats (zset)   KEYS[12] seat index (hash), see includes/free-seats
    ARGV[1] hold id   ARGV[2] customer id   ARGV[3] change channel
    ARGV[4] ticket type id ("" for seats)   ARGV[5] tombstone ttl ms (ttls.ts, released)
    ARGV[6] seat key prefix ("{ev:<id>}:seat:")

  Output:
    {"OK", seats freed, offers made to waiting lists}   given back
    {"NONE"}      no record of that hold: its script refused it or has not run; only the
                  tombstone written (status released, ARGV[5] ms), so it takes nothing if it runs later
    {"ALREADY"}   the hold ended already; nothing done
    {"CLAIMED"}   a confirm claims the hold; nothing done
]]
--- @include "now-ms"
--- @include "customer-holds"
--- @include "live-claims"
--- @include "free-seats"
--- @include "ticket-availability"
--- @include "waitlist"
--- @include "end-lease"

local record = redis.call('HMGET', KEYS[9], 'status', 'json')
if not record[1] then
  redis.call('HSET', KEYS[9], 'status', 'released')
  redis.call('PEXPIRE', KEYS[9], ARGV[5])
  return {'NONE'}
end
if record[1] ~= 'active' or not record[2] then return {'ALREADY'} end

local seats, seatIds = {}, {}
for _, item in ipairs(cjson.decode(record[2]).items or {}) do
  if type(item) == 'table' and type(item.seatId) == 'string' then
    seatIds[#seatIds + 1] = item.seatId
    seats[#seats + 1] = ARGV[6] .. item.seatId
  end
end
return endLease({
  ready = KEYS[1], sold = KEYS[2], held = KEYS[3], customer = KEYS[4], bought = KEYS[5], tt = KEYS[6],
  ttExpiry = KEYS[7], ttHolds = KEYS[8], record = KEYS[9], claims = KEYS[10], free = KEYS[11], seatIndex = KEYS[12],
  seats = seats,
}, {
  holdId = ARGV[1], customerId = ARGV[2], mode = 'released', channel = ARGV[3], ttId = ARGV[4],
  quantity = '0', tombstoneMs = ARGV[5], token = '', seatIds = seatIds,
})
