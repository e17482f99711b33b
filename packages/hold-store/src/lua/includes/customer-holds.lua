-- A customer's holds on one event: hash hold id -> "quantity:expiresAtMs", plus,
-- while it is known, the field '#' = "sum:earliestExpiresAtMs" of those entries.
-- With it, checking the customer's limit reads two fields instead of every hold
-- (a customer with 50 holds made each hold script twice as slow). A new hold's
-- entry keeps the summary up to date; any other change to the hash drops it
-- (setCustomerHold, dropCustomerHold) and the next check rebuilds it.
local CUSTOMER_SUMMARY = '#'

-- The customer's tickets for the event: bought, plus those in holds still running;
-- holds whose time has passed are pruned. Also returns the summary of the live
-- holds (sum, earliest expiresAt or nil when none) for addCustomerHold.
local function ticketsInUse(holdsKey, boughtKey, customerId, now)
  local bought = tonumber(redis.call('HGET', boughtKey, customerId) or '0')
  local summary = redis.call('HGET', holdsKey, CUSTOMER_SUMMARY)
  if summary then
    local s, e = string.match(summary, '^(%d+):(%d+)$')
    local earliest = tonumber(e)
    if earliest > now then
      local sum = tonumber(s)
      return bought + sum, sum, earliest
    end
  end
  local sum, earliest = 0, nil
  local mine = redis.call('HGETALL', holdsKey)
  for i = 1, #mine, 2 do
    if mine[i] ~= CUSTOMER_SUMMARY then
      local q, e = string.match(mine[i + 1], '^(%d+):(%d+)$')
      local exp = tonumber(e)
      if exp <= now then
        redis.call('HDEL', holdsKey, mine[i])
      else
        sum = sum + tonumber(q)
        if not earliest or exp < earliest then earliest = exp end
      end
    end
  end
  if earliest then
    redis.call('HSET', holdsKey, CUSTOMER_SUMMARY, sum .. ':' .. earliest)
  elseif summary then
    redis.call('HDEL', holdsKey, CUSTOMER_SUMMARY)
  end
  return bought + sum, sum, earliest
end

-- Taking a hold's lapsed items again (a claim's or reconciliation's re-take) is a
-- new hold of them: the customer's tickets in use when `count` would pass `limit`,
-- else nil. This hold's own entry, while still live, is already counted.
local function retakeOverLimit(holdsKey, boughtKey, customerId, holdId, count, limit, now)
  local inUse = ticketsInUse(holdsKey, boughtKey, customerId, now)
  local own = redis.call('HGET', holdsKey, holdId)
  local ownCount = own and tonumber(string.match(own, '^(%d+):')) or 0
  if inUse - ownCount + count > limit then return inUse end
  return nil
end

-- A new hold's entry, after ticketsInUse gave `sum` and `earliest` in the same script
-- (the summary is there exactly when `earliest` is not nil). One HSET writes the entry
-- and the summary; when it added fewer fields than that, the entry was there already
-- (a script run again): it is replaced and the summary dropped, to be rebuilt.
-- Numbers are written with string.format('%d'): joined with .. or passed to
-- redis.call, Lua formats each as a float, at about twice the cost.
local function addCustomerHold(holdsKey, holdId, quantity, expiresAt, sum, earliest)
  local first = expiresAt
  if earliest and earliest < first then first = earliest end
  local added = redis.call('HSET', holdsKey, holdId, string.format('%d:%d', quantity, expiresAt),
    CUSTOMER_SUMMARY, string.format('%d:%d', sum + quantity, first))
  if added < (earliest and 1 or 2) then redis.call('HDEL', holdsKey, CUSTOMER_SUMMARY) end
end

-- Any other write of an entry (a lease extended or claimed, a hold primed).
local function setCustomerHold(holdsKey, holdId, value)
  redis.call('HSET', holdsKey, holdId, value)
  redis.call('HDEL', holdsKey, CUSTOMER_SUMMARY)
end

-- The entry and the summary in one HDEL: with the entry gone the summary must go; without
-- it, dropping the summary costs only its rebuild at the next check.
local function dropCustomerHold(holdsKey, holdId)
  redis.call('HDEL', holdsKey, holdId, CUSTOMER_SUMMARY)
end
