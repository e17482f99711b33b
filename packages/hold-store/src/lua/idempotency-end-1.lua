--[[
  Finish an idempotency key this request claimed: store its answer, release
  the key so a retry runs afresh, or give its claim a new seed. Compare-and-set
  on the token: a request whose lease ran out and was taken by another changes
  nothing. A claim this request took over (an earlier request never answered)
  is released with its seed kept and its lease ended: the retry takes it over at
  once and still finds the hold the earlier request may have taken.

  Input:
    KEYS[1] the key's record (hash)
    ARGV[1] the token from begin   ARGV[2] "complete" | "release" | "reseed"
    ARGV[3] status (complete), the new seed (reseed)   ARGV[4] body
    ARGV[5] how long the answer is kept, seconds

  Output:
    1 when applied, 0 when the key is no longer this request's
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
if ARGV[2] == 'release' then
  if redis.call('HEXISTS', KEYS[1], 'over') == 1 then
    redis.call('HSET', KEYS[1], 'token', '', 'until', 0)
  else
    redis.call('DEL', KEYS[1])
  end
  return 1
end
if ARGV[2] == 'reseed' then
  redis.call('HSET', KEYS[1], 'seed', ARGV[3])
  return 1
end
redis.call('HSET', KEYS[1], 'state', 'done', 'status', ARGV[3], 'body', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
