--[[
  A confirm takes its hold's lease first, on Redis's clock, before it waits for
  PostgreSQL: every seat key and ticket entry of the hold is extended to at
  least now + lease ms (taken again where the lease lapsed and nobody else
  holds or bought the item, and only within the customer's limit, as a new
  hold would be), all or nothing, and the confirm's token is recorded in the
  hold's claim hash. While a claim is live, no end of the hold
  other than "confirmed" frees its leases (end-hold, fix-seat-key), so a seat
  is never handed to another buyer while this confirm can still commit, and one
  confirm's give-up never frees the leases another confirm of the hold took.

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] held seats (zset)
    KEYS[4] ticket type (hash cap, sold, held; any key of the slot when none)
    KEYS[5] ticket-type holds by expiry (zset)   KEYS[6] ticket-type quantities (hash)
    KEYS[7] hold record (hash)   KEYS[8] the customer's holds (hash)
    KEYS[9] the hold's claims (hash token -> until ms)
    KEYS[10] free seats (zset, see includes/free-seats): seats taken again leave it
    KEYS[11] tickets bought per customer (hash customer id -> quantity)
    KEYS[12..] seat keys
    ARGV[1] hold id   ARGV[2] the confirm's token   ARGV[3] lease ms
    ARGV[4] ticket type id ("" for seats)   ARGV[5] quantity   ARGV[6] change channel
    ARGV[7] customer id   ARGV[8] max tickets per customer
    ARGV[9..] seat ids in KEYS order

  Output:
    {"OK", "live" | "retaken"}   the lease is this confirm's until now + lease ms
    {"NOT_READY"}   {"ENDED", "released" | "confirmed" | "cancelled" (its order was cancelled)}
    {"UNAVAILABLE", seat id, ...}   {"SOLD_OUT", available}
    {"LIMIT_EXCEEDED", tickets in use}   taking the lapsed items again would pass the
                                         customer's limit (bought + other live holds)
]]
--- @include "now-ms"
--- @include "customer-holds"
--- @include "ticket-availability"
--- @include "claim-lease"

local seats, seatIds = {}, {}
for i = 12, #KEYS do
  seats[#seats + 1] = KEYS[i]
  seatIds[#seatIds + 1] = ARGV[i - 3]
end
return claimLease({
  ready = KEYS[1], sold = KEYS[2], held = KEYS[3], tt = KEYS[4], ttExpiry = KEYS[5], ttHolds = KEYS[6],
  record = KEYS[7], customer = KEYS[8], claims = KEYS[9], free = KEYS[10], bought = KEYS[11], seats = seats,
}, {
  holdId = ARGV[1], token = ARGV[2], lease = ARGV[3], ttId = ARGV[4], quantity = tonumber(ARGV[5]),
  channel = ARGV[6], customerId = ARGV[7], maxPerCustomer = tonumber(ARGV[8]), seatIds = seatIds,
}, nowMs())
