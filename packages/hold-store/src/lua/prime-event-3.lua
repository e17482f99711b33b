--[[
  Load an event's sale state from PostgreSQL into Redis, once: sold seats,
  ticket types' capacity and sales, tickets bought per customer. A no-op when
  another process primed the event first.

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] bought per customer (hash)
    KEYS[4..] ticket type hashes, then their quantity hashes (hold id -> quantity)
    ARGV[1] number of ticket types   ARGV[2] number of customers with purchases
    ARGV[3..] per ticket type: capacity, sold; then per customer: id, quantity;
              then the sold seat ids

  Output: 1 when primed now, 0 when it was primed already
]]
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local ntt = tonumber(ARGV[1])
local ncust = tonumber(ARGV[2])
local a = 3
for i = 1, ntt do
  -- Tickets still in holds that survived (if any) stay counted as held.
  local held = 0
  local qty = redis.call('HVALS', KEYS[3 + ntt + i])
  for _, q in ipairs(qty) do held = held + tonumber(q) end
  redis.call('HSET', KEYS[3 + i], 'cap', ARGV[a], 'sold', ARGV[a + 1], 'held', held)
  a = a + 2
end
redis.call('DEL', KEYS[3])
for i = 1, ncust do
  redis.call('HSET', KEYS[3], ARGV[a], ARGV[a + 1])
  a = a + 2
end
redis.call('DEL', KEYS[2])
local batch = {}
for i = a, #ARGV do
  batch[#batch + 1] = ARGV[i]
  if #batch == 1000 then redis.call('SADD', KEYS[2], unpack(batch)); batch = {} end
end
if #batch > 0 then redis.call('SADD', KEYS[2], unpack(batch)) end
redis.call('SET', KEYS[1], '1')
return 1
