--[[
  Reconciliation's repair of one seat key, compare-and-set: only while the key
  still names the owner reconciliation saw, it gets a TTL or is removed; never
  removed while a confirm claims the owner (claim-hold), whose lease it is.

  Input:
    KEYS[1] seat key   KEYS[2] held seats (zset)   KEYS[3] the owner's claims (hash)
    KEYS[4] free seats (zset)   KEYS[5] seat index (hash)   KEYS[6] sold seats (set):
    a removed key gives its seat back to the free set (see includes/free-seats)
    ARGV[1] the owner (hold id) reconciliation saw   ARGV[2] seat id
    ARGV[3] ttl ms to set, or 0 to remove the key (and its held entry)
    ARGV[4] "sold": only while the seat is in the sold set (a lease on a sold seat; an order
            cancelled since gave the seat back, maybe to a new hold of it) | ""

  Output: 1 when repaired, 0 when the key changed meanwhile, is claimed, or (ARGV[4]) the
  seat is sold no more (nothing done)
]]
--- @include "now-ms"
--- @include "live-claims"
--- @include "free-seats"

if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[4] == 'sold' and redis.call('SISMEMBER', KEYS[6], ARGV[2]) == 0 then return 0 end
local ms = tonumber(ARGV[3])
if ms <= 0 and liveClaims(KEYS[3], nowMs()) then return 0 end
if ms > 0 then
  redis.call('PEXPIRE', KEYS[1], ms)
else
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[2])
  freeSeatBack(KEYS[4], KEYS[5], KEYS[6], ARGV[2])
end
return 1
