--[[
  Reconciliation's repair of one seat key, compare-and-set: only while the key
  still names the owner reconciliation saw, it gets a TTL or is removed.

  Input:
    KEYS[1] seat key   KEYS[2] held seats (zset)
    ARGV[1] the owner (hold id) reconciliation saw   ARGV[2] seat id
    ARGV[3] ttl ms to set, or 0 to remove the key (and its held entry)

  Output: 1 when repaired, 0 when the key changed meanwhile (nothing done)
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local ms = tonumber(ARGV[3])
if ms > 0 then
  redis.call('PEXPIRE', KEYS[1], ms)
else
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[2])
end
return 1
