-- A hold's queue pass (issue 29), checked by the hold scripts before anything is
-- written. passKey: the room's pass hash, activeKey: its active passes (zset
-- customer -> ms the pass ends), see includes/queue-room. pass '' when the event
-- has no waiting room (nothing checked). Returns nil when the pass lets the
-- customer hold, else why not: 'forged' (no such pass of this event),
-- 'other_customer', 'ended'.
local function queuePassRefused(passKey, activeKey, pass, customer, now)
  if pass == '' then return nil end
  local owner = redis.call('HGET', passKey, 't:' .. pass)
  if not owner then return 'forged' end
  if owner ~= customer then return 'other_customer' end
  local ends = redis.call('ZSCORE', activeKey, customer)
  if not ends or tonumber(ends) <= now or redis.call('HGET', passKey, 'c:' .. customer) ~= pass then return 'ended' end
  return nil
end

-- After a hold with a pass: the pass now ends with the hold (its expiry, release
-- or confirm), no longer after passSeconds; with several holds, with the last to expire.
-- The hold names its pass (o:<hold id>), so its release or confirm ends that pass only,
-- never a later one of the customer's (queue-end-pass, queue-extend-pass).
local function queuePassHolding(passKey, activeKey, pass, customer, expiresAt, holdId)
  if pass == '' then return end
  redis.call('HSET', passKey, 'o:' .. holdId, pass)
  if redis.call('HSETNX', passKey, 'h:' .. customer, '1') == 1 then
    redis.call('ZADD', activeKey, 'XX', expiresAt, customer)
  else
    redis.call('ZADD', activeKey, 'XX', 'GT', expiresAt, customer)
  end
end
