-- Counts a request in a fixed window; returns the ms until the window ends when
-- the count is over the limit, else nil. A limit of 0 counts nothing.
local function rateLimited(key, limit, windowMs)
  if limit <= 0 then return nil end
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('PEXPIRE', key, windowMs) end
  if n <= limit then return nil end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, windowMs)
    ttl = tonumber(windowMs)
  end
  return ttl
end
