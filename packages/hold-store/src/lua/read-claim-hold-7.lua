--[[
  A confirm reads its hold and claims its lease in one step (one round trip
  where it took two): the hold's record is read, and from its items the claim
  of claim-hold-11.lua is taken, with the same rules and answers
  (includes/claim-lease). A record without items (an ended hold's tombstone,
  a record Redis lost, a hold never written here) answers NO_RECORD and
  writes nothing: the caller reads the hold from PostgreSQL and claims it
  with claim-hold.

  Keys: the customer's, the ticket type's and the seats' keys cannot be known
  before the record is read; they are built from prefixes (ARGV[6..10], made
  by keys.ts) carrying the same {ev:<id>} hash tag as every key below, so they
  live in the same Redis Cluster slot.

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] held seats (zset)
    KEYS[4] hold record (hash json, createdAt, expiresAt, status, extensions)
    KEYS[5] the hold's claims (hash token -> until ms)   KEYS[6] free seats (zset)
    KEYS[7] tickets bought per customer (hash customer id -> quantity)
    ARGV[1] hold id   ARGV[2] the confirm's token   ARGV[3] lease ms   ARGV[4] change channel
    ARGV[5] max tickets per customer
    ARGV[6] seat key prefix   ARGV[7] customer key prefix   ARGV[8] ticket type key prefix
    ARGV[9] ticket-type expiry key prefix   ARGV[10] ticket-type quantities key prefix

  Output:
    {"NO_RECORD"}   nothing written
    {json, createdAt, expiresAt, status, extensions, claim...}: the record as it was
      read ("" for a field it lacks), then claim-hold's answer: {"OK", "live" | "retaken"},
      {"NOT_READY"}, {"ENDED", status}, {"UNAVAILABLE", seat id, ...},
      {"SOLD_OUT", available}, {"LIMIT_EXCEEDED", tickets in use}
]]
--- @include "now-ms"
--- @include "customer-holds"
--- @include "ticket-availability"
--- @include "claim-lease"

local now = nowMs()
local rec = redis.call('HMGET', KEYS[4], 'json', 'createdAt', 'expiresAt', 'status', 'extensions')
if not rec[1] then return {'NO_RECORD'} end
local ok, hold = pcall(cjson.decode, rec[1])
if not ok or type(hold) ~= 'table' or type(hold.customerId) ~= 'string' or type(hold.items) ~= 'table' then
  return {'NO_RECORD'}
end

-- The hold's contents, as holdContents (packages/domain/src/hold-view.ts) reads them.
local seats, seatIds = {}, {}
local ttId, quantity = '', 0
for _, item in ipairs(hold.items) do
  if type(item) ~= 'table' then return {'NO_RECORD'} end
  if item.seatId ~= nil then
    seatIds[#seatIds + 1] = tostring(item.seatId)
    seats[#seats + 1] = ARGV[6] .. tostring(item.seatId)
  elseif item.ticketTypeId ~= nil then
    ttId = tostring(item.ticketTypeId)
  end
  quantity = quantity + (tonumber(item.quantity) or 0)
end

local claim = claimLease({
  ready = KEYS[1], sold = KEYS[2], held = KEYS[3],
  tt = ttId ~= '' and (ARGV[8] .. ttId) or KEYS[1], ttExpiry = ttId ~= '' and (ARGV[9] .. ttId) or KEYS[1],
  ttHolds = ttId ~= '' and (ARGV[10] .. ttId) or KEYS[1],
  record = KEYS[4], customer = ARGV[7] .. hold.customerId, claims = KEYS[5], free = KEYS[6], bought = KEYS[7],
  seats = seats,
}, {
  holdId = ARGV[1], token = ARGV[2], lease = ARGV[3], ttId = ttId, quantity = quantity,
  channel = ARGV[4], customerId = hold.customerId, maxPerCustomer = tonumber(ARGV[5]), seatIds = seatIds,
  status = rec[4], -- read above (false when the record has none): not read again
}, now)

local out = { rec[1], rec[2] or '', rec[3] or '', rec[4] or '', rec[5] or '' }
for i = 1, #claim do out[#out + 1] = claim[i] end
return out
