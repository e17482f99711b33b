-- The waiting room of an event (issue 29), decided here on Redis's clock: every
-- queue call (join, me, pass end, admin, and the API processes' once-a-second
-- tick of a room with buyers waiting, queue-tick) first ends the passes whose
-- time is up and admits the next places; no worker is on the critical path.
--
-- Keys, all in the event's hash slot, in this order (q[1..6]):
--   cfg    hash: rate, max, paused (an admin's overrides of the event's settings),
--          tokens, at (the admission bucket and when it was last filled),
--          admitted (places admitted so far), seq (the last place given after the opening),
--          w0..w100 (the waits of the last 101 places admitted, ms, by admitted count mod 101),
--          mAt, mCount, mRate (the measured admission rate: places a minute over the last window of 10 s or more)
--   pre    zset customer -> random draw: joined before the opening, the front of the line
--          in the draw's order (the place is drawn at join, so arriving early buys nothing)
--   line   zset customer -> seq: joined after the opening, in arrival order, behind pre
--   active zset customer -> ms the pass ends (admitted now)
--   pass   hash c:<customer> -> the customer's latest pass ('' until they are told it),
--          t:<pass> -> its customer, h:<customer> -> '1' while the pass has a hold,
--          o:<hold id> -> the pass the hold was taken with (until that pass ends by the hold)
--   at     hash customer -> ms joined (while waiting)
-- Every queue script ends with queueKeep: the keys expire a day or two after the room's last call.
local QUEUE_BATCH = 1000
-- The room's keys expire between QUEUE_IDLE_MS / 2 and QUEUE_IDLE_MS after its last queue call (each call
-- renews a key left with less than half): while buyers wait the tick calls every second, so only a
-- room nobody has touched for a day or more goes (after its sale, or abandoned); joining then starts anew.
local QUEUE_IDLE_MS = 172800000
-- How many of the latest waits are kept for the median the seller sees.
local QUEUE_WAITS_KEPT = 101
-- The shortest window the admission rate is measured over, ms.
local QUEUE_MEASURE_MS = 10000
-- The most time one call credits to the bucket, ms: while buyers wait the tick calls every second,
-- so only a pause in every call (Redis or PostgreSQL away, a failover) is longer, and admission
-- after it goes on at the set pace instead of making up the whole pause in one burst.
local QUEUE_FILL_MAX_MS = 5000

-- The room's numbers: the event's settings unless an admin overrode them.
-- A new room's bucket holds one token.
local function queueSettings(q, rateArg, maxArg, now)
  local c = redis.call('HMGET', q[1], 'rate', 'max', 'paused', 'tokens', 'at', 'admitted', 'mAt', 'mCount', 'mRate')
  return {
    rate = tonumber(c[1] or rateArg), max = tonumber(c[2] or maxArg), paused = c[3] == '1',
    tokens = tonumber(c[4] or '1'), at = tonumber(c[5] or now), admitted = tonumber(c[6] or '0'),
    mAt = tonumber(c[7]), mCount = tonumber(c[8] or '0'), mRate = tonumber(c[9] or '-1'),
  }
end

local function queueWaiting(q)
  return redis.call('ZCARD', q[2]) + redis.call('ZCARD', q[3])
end

-- Ends the passes whose time is up, then admits places in order while the
-- bucket (filled at rate a minute, on Redis's clock, from the opening on, at most
-- QUEUE_FILL_MAX_MS' worth a call, and frozen while paused) has a whole token, fewer than max passes are active and anyone waits. Returns what
-- it did: admitted, passes ended (timeout: no hold; hold_expired: its hold's
-- time), the ms each admitted place waited.
local function queueAdmit(q, s, now, passMs, startMs, channel)
  local out = { admitted = 0, timeout = 0, holdExpired = 0, waits = {} }
  local lapsed = redis.call('ZRANGEBYSCORE', q[4], '-inf', now, 'LIMIT', 0, QUEUE_BATCH)
  for _, c in ipairs(lapsed) do
    redis.call('ZREM', q[4], c)
    if redis.call('HDEL', q[5], 'h:' .. c) == 1 then out.holdExpired = out.holdExpired + 1 else out.timeout = out.timeout + 1 end
  end
  local start = tonumber(startMs ~= '' and startMs or '0')
  if s.paused or now < start then
    -- Nothing is admitted, and the bucket does not fill, while paused or before the opening.
    redis.call('HSET', q[1], 'at', now)
    s.at = now
    return out
  end
  local tokens = s.tokens + math.min(QUEUE_FILL_MAX_MS, math.max(0, now - math.max(s.at, start))) * s.rate / 60000
  local active = redis.call('ZCARD', q[4])
  local nPre = redis.call('ZCARD', q[2])
  local waiting = nPre + redis.call('ZCARD', q[3])
  local n = math.min(math.floor(tokens), s.max - active, waiting, QUEUE_BATCH)
  if n > 0 then
    local popped = redis.call('ZPOPMIN', q[2], math.min(n, nPre))
    if n > nPre then
      local more = redis.call('ZPOPMIN', q[3], n - nPre)
      for i = 1, #more do popped[#popped + 1] = more[i] end
    end
    for i = 1, #popped, 2 do
      local c = popped[i]
      redis.call('ZADD', q[4], now + passMs, c)
      redis.call('HSET', q[5], 'c:' .. c, '')
      redis.call('HDEL', q[5], 'h:' .. c)
      local joined = tonumber(redis.call('HGET', q[6], c) or now)
      redis.call('HDEL', q[6], c)
      out.waits[#out.waits + 1] = now - math.max(joined, start)
      redis.call('HSET', q[1], 'w' .. ((s.admitted + #out.waits) % QUEUE_WAITS_KEPT), out.waits[#out.waits])
    end
    out.admitted = n
    tokens = tokens - n
    s.admitted = s.admitted + n
  end
  -- Stopped by max or an empty line (not by the bucket): no more than a second's worth is kept
  -- for later (so a minute never admits more than admitPerMinute + admitPerMinute / 60).
  local cap = math.max(1, s.rate / 60)
  if tokens > cap and (active + n >= s.max or waiting - n == 0) then tokens = cap end
  s.tokens = tokens
  s.at = now
  redis.call('HSET', q[1], 'tokens', string.format('%.6f', tokens), 'at', now, 'admitted', s.admitted)
  -- The pace admission really keeps (maxActive and pass ends may hold it below the rate), measured once per window.
  if not s.mAt or now - s.mAt >= QUEUE_MEASURE_MS then
    if s.mAt then s.mRate = math.floor((s.admitted - s.mCount) * 60000 / (now - s.mAt)) end
    s.mAt, s.mCount = now, s.admitted
    redis.call('HSET', q[1], 'mAt', now, 'mCount', s.admitted, 'mRate', s.mRate)
  end
  if n > 0 then
    -- admitted: the places admitted so far (a page that read its position when this was h is now at
    -- position - (admitted - h)); perMinute: the pace its wait estimate uses (measured, else the set rate).
    local pace = s.mRate > 0 and s.mRate or s.rate
    redis.call('PUBLISH', channel, cjson.encode({ queue = { admitted = s.admitted, waiting = waiting - n, perMinute = pace } }))
  end
  return out
end

-- Renews the expiry of the room's keys (and `extra`, e.g. the proofs taken) that have less than half of
-- QUEUE_IDLE_MS left or none; a key not there is left alone. Called last, after the script's writes.
local function queueKeep(q, extra)
  local keys = { q[1], q[2], q[3], q[4], q[5], q[6] }
  if extra then keys[#keys + 1] = extra end
  for _, k in ipairs(keys) do
    if redis.call('PTTL', k) < QUEUE_IDLE_MS / 2 then redis.call('PEXPIRE', k, QUEUE_IDLE_MS) end
  end
end

-- The customer's place: 1 for the next to be admitted; nil when not waiting.
local function queuePlace(q, customer)
  local r = redis.call('ZRANK', q[2], customer)
  if r then return r + 1 end
  r = redis.call('ZRANK', q[3], customer)
  if r then return redis.call('ZCARD', q[2]) + r + 1 end
  return nil
end

-- Where the customer stands: {state, position, pass, pass ends ms}. An admitted
-- customer not yet told their pass gets `newPass` (made by the caller, unguessable).
local function queueStanding(q, customer, now, newPass)
  local ends = redis.call('ZSCORE', q[4], customer)
  if ends and tonumber(ends) > now then
    local pass = redis.call('HGET', q[5], 'c:' .. customer)
    if not pass or pass == '' then
      pass = newPass
      redis.call('HSET', q[5], 'c:' .. customer, pass, 't:' .. pass, customer)
    end
    return { 'admitted', 0, pass, ends }
  end
  local place = queuePlace(q, customer)
  if place then return { 'waiting', place, '', '' } end
  if redis.call('HEXISTS', q[5], 'c:' .. customer) == 1 then return { 'ended', 0, '', '' } end
  return { 'none', 0, '', '' }
end

-- The median of the latest waits kept (ms), -1 when nobody was admitted yet.
local function queueMedianWait(q)
  local fields = {}
  for i = 0, QUEUE_WAITS_KEPT - 1 do fields[#fields + 1] = 'w' .. i end
  local waits = {}
  for _, w in ipairs(redis.call('HMGET', q[1], unpack(fields))) do
    if w then waits[#waits + 1] = tonumber(w) end
  end
  if #waits == 0 then return -1 end
  table.sort(waits)
  return waits[math.floor((#waits + 1) / 2)]
end

-- The reply every queue script starts with: what admission did, then the room's numbers.
local function queueReply(out, s, q)
  return {
    out.admitted, out.timeout, out.holdExpired, table.concat(out.waits, ','),
    queueWaiting(q), redis.call('ZCARD', q[4]), s.admitted, s.rate, s.max, s.paused and 1 or 0,
    string.format('%.6f', s.tokens), s.mRate,
  }
end
