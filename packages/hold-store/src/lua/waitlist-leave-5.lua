--[[
  Take an entry out of its line (the customer leaves, or an admin removes it).
  An entry that has an offer already is not touched: the caller releases the
  offer's hold (its items go to the next in line) and records the entry ended.

  Input:
    KEYS[1] entries (hash, <p>wl)   KEYS[2] the scope's line (zset)   KEYS[3] the entry's offer (string, <p>wlo:<entry>)
    KEYS[4] scopes with entries (hash, <p>wls)   KEYS[5] the entry's gone mark (string, <p>wlg:<entry>)
    ARGV[1] entry id   ARGV[2] scope   ARGV[3] how long the gone mark stays (ms)

  Output:
    {"LEFT"} out of line (also when it was not in line)   {"OFFERED", hold id}  it has an offer: nothing else done
    Either way the gone mark is set: putting entries back (waitlist-join's restore) skips the entry.
]]
redis.call('SET', KEYS[5], '1', 'PX', ARGV[3])
local offer = redis.call('GET', KEYS[3])
if offer then return {'OFFERED', string.match(offer, '^([^|]+)')} end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('HDEL', KEYS[4], ARGV[2]) end
return {'LEFT'}
