--[[
  Builds or repairs an event's free-seat index (see includes/free-seats) for a
  chunk of its seats, from the catalog (PostgreSQL) and the seat keys: each
  seat's metadata is written where missing (seats never change once created),
  and the seat is in the free set exactly when it is not sold and has no seat
  key. Each chunk is one atomic step, so a hold or an end of a hold between
  two chunks is seen as it is. The last chunk records the tiers' rank ranges
  and the seat count, which marks the index complete (hold-best answers
  NOT_INDEXED until then).

  Seat keys are built from ARGV[1], a prefix with the same {ev:<id>} hash tag
  as the keys below (the same Redis Cluster slot).

  Input:
    KEYS[1] sold seats (set)   KEYS[2] held seats (zset seat id -> expiresAt ms)
    KEYS[3] free seats (zset seat id -> rank)   KEYS[4] seat index (hash)
    ARGV[1] seat key prefix   ARGV[2] seats in this chunk (n)
    ARGV[3] tiers (m; 0 except on the last chunk)   ARGV[4] seats in the event
    ARGV[5..] per seat: id, rank, row id, number, price cents, label;
              then per tier: name, lowest rank, highest rank

  Output:
    {1 when the index was complete before this chunk else 0,
     seats added to the free set (missing), seats removed from it (taken or sold: extra),
     seats added whose lease had lapsed by time (not drift)}
]]
--- @include "now-ms"

local now = nowMs()
local complete = redis.call('HEXISTS', KEYS[4], '_n')
local prefix = ARGV[1]
local n, m = tonumber(ARGV[2]), tonumber(ARGV[3])
local added, removed, lapsed = 0, 0, 0
local a = 5
for _ = 1, n do
  local id, rank = ARGV[a], tonumber(ARGV[a + 1])
  redis.call('HSETNX', KEYS[4], id, ARGV[a + 1] .. '|' .. ARGV[a + 2] .. '|' .. ARGV[a + 3] .. '|' .. ARGV[a + 4] .. '|' .. ARGV[a + 5])
  a = a + 6
  local free = redis.call('SISMEMBER', KEYS[1], id) == 0 and redis.call('EXISTS', prefix .. id) == 0
  local score = redis.call('ZSCORE', KEYS[3], id)
  if free then
    if not score then
      redis.call('ZADD', KEYS[3], rank, id)
      local heldUntil = redis.call('ZSCORE', KEYS[2], id)
      if heldUntil and tonumber(heldUntil) <= now then
        redis.call('ZREM', KEYS[2], id)
        lapsed = lapsed + 1
      else
        added = added + 1
      end
    elseif tonumber(score) ~= rank then
      redis.call('ZADD', KEYS[3], rank, id)
    end
  elseif score then
    redis.call('ZREM', KEYS[3], id)
    removed = removed + 1
  end
end
if m > 0 then
  for _ = 1, m do
    redis.call('HSET', KEYS[4], 't:' .. ARGV[a], ARGV[a + 1] .. ':' .. ARGV[a + 2])
    a = a + 3
  end
  redis.call('HSET', KEYS[4], '_n', ARGV[4])
end
return {complete, added, removed, lapsed}
