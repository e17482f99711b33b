--[[
  A hold of the customer now lasts until ARGV[2] (extended): the pass it was
  taken with lasts as long, while it is the customer's live pass (never a pass
  that ended, nor a later one: includes/queue-pass).

  Input:
    KEYS[1] the room's active passes (zset customer -> ms the pass ends)   KEYS[2] the room's pass hash
    ARGV[1] customer id   ARGV[2] the hold's new end, ms   ARGV[3] the hold id

  Output: 1 when the pass now ends then, 0 when it was not moved
]]
local holdsPass = redis.call('HGET', KEYS[2], 'o:' .. ARGV[3])
if not holdsPass or redis.call('HGET', KEYS[2], 'c:' .. ARGV[1]) ~= holdsPass then return 0 end
return redis.call('ZADD', KEYS[1], 'XX', 'GT', 'CH', ARGV[2], ARGV[1])
