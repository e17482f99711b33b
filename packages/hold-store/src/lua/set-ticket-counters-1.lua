--[[
  Reconciliation's repair of a ticket type's counters, compare-and-set: the
  new values are written only while the hash still holds the values
  reconciliation saw (a hold or confirm in between leaves it alone).

  Input:
    KEYS[1] ticket type (hash cap, sold, held)
    ARGV[1..3] cap, sold, held as seen ("" for a missing field)
    ARGV[4..6] cap, sold, held to write

  Output: 1 when written, 0 when the hash changed meanwhile
]]
local cur = redis.call('HMGET', KEYS[1], 'cap', 'sold', 'held')
for i = 1, 3 do
  if (cur[i] or '') ~= ARGV[i] then return 0 end
end
redis.call('HSET', KEYS[1], 'cap', ARGV[4], 'sold', ARGV[5], 'held', ARGV[6])
return 1
