--[[
  Reconciliation's repair of the tickets bought per customer (the count the
  hold scripts add to a customer's live holds to apply the limit), each
  customer compare-and-set: written only while the count still reads what
  reconciliation read before it asked PostgreSQL (a confirm's end-hold adds to
  it after COMMIT; one that came in between leaves the customer to the next
  run). The right count is PostgreSQL's, less the recent orders whose
  end-hold has not reached Redis yet (their hold record exists and does not
  read "confirmed"): that end-hold adds them when it comes.

  Input:
    KEYS[1] ready marker   KEYS[2] bought per customer (hash customer id -> quantity)
    KEYS[3..] hold records of the customers' recent orders, in ARGV order
    ARGV[1] number of customers; then per customer: customer id, the count read
    before PostgreSQL ("" when none), PostgreSQL's count, number of recent
    orders r, then r quantities (their hold records in KEYS order)

  Output: flat list customer id, count before, count after, for each count written
  (empty when the event is not primed)
]]

if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
local out = {}
local a = 2
local rec = 3
for _ = 1, tonumber(ARGV[1]) do
  local customerId, seen, expected, r = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  a = a + 4
  for j = 1, r do
    local status = redis.call('HGET', KEYS[rec], 'status')
    if status and status ~= 'confirmed' then expected = expected - tonumber(ARGV[a + j - 1]) end
    rec = rec + 1
  end
  a = a + r
  if expected < 0 then expected = 0 end
  local current = redis.call('HGET', KEYS[2], customerId)
  if (current or '') == seen and tonumber(current or '0') ~= expected then
    if expected == 0 then
      redis.call('HDEL', KEYS[2], customerId)
    else
      redis.call('HSET', KEYS[2], customerId, expected)
    end
    out[#out + 1] = customerId
    out[#out + 1] = current or '0'
    out[#out + 1] = expected
  end
end
return out
