--[[
  End a hold in Redis after PostgreSQL has recorded it: released, expired or
  confirmed. Compare-and-delete: a seat key is removed only while this hold
  owns it. Applying the same end twice changes nothing. A release or expiry
  changes nothing while a confirm claims the hold (claim-hold): that confirm
  ends it, confirmed, or gives up and ends it with its own token. An expiry
  changes nothing before the hold's time on Redis's clock (its record's
  expiresAt, moved by every extension): a lease is ended as expired only once
  it has run out, whatever the clock of the process that asks.

  Input:
    KEYS[1] ready marker   KEYS[2] sold seats (set)   KEYS[3] held seats (zset)
    KEYS[4] the customer's holds (hash)   KEYS[5] bought per customer (hash)
    KEYS[6] ticket type (hash cap, sold, held; any key of the slot when none)
    KEYS[7] ticket-type holds by expiry (zset)   KEYS[8] ticket-type quantities (hash)
    KEYS[9] hold record (hash)   KEYS[10] the hold's claims (hash token -> until ms)
    KEYS[11] free seats (zset)   KEYS[12] seat index (hash), see includes/free-seats
    KEYS[13..] seat keys
    ARGV[1] hold id   ARGV[2] customer id   ARGV[3] "released" | "expired" | "confirmed"
    ARGV[4] change channel   ARGV[5] ticket type id ("" for seats)   ARGV[6] quantity
    ARGV[7] tombstone ttl ms (how long the ended hold's status stays, ttls.ts)    ARGV[8] the ending confirm's claim token ("" for none)
    ARGV[9..] seat ids in KEYS order

  Output:
    {"OK", seats freed (including seats whose lease had lapsed), offers made to waiting lists}   {"ALREADY"} when this end was applied before, or the hold's order was cancelled
    {"CLAIMED"} a confirm (other than ARGV[8]'s) claims the hold: nothing done
    {"NOT_DUE", ms left}  an expiry of a hold whose time has not come on Redis's clock: nothing done
]]
--- @include "now-ms"
--- @include "customer-holds"
--- @include "live-claims"
--- @include "free-seats"
--- @include "ticket-availability"
--- @include "waitlist"
--- @include "end-lease"

local seats, seatIds = {}, {}
for i = 13, #KEYS do
  seats[#seats + 1] = KEYS[i]
  seatIds[#seatIds + 1] = ARGV[i - 4]
end
return endLease({
  ready = KEYS[1], sold = KEYS[2], held = KEYS[3], customer = KEYS[4], bought = KEYS[5], tt = KEYS[6],
  ttExpiry = KEYS[7], ttHolds = KEYS[8], record = KEYS[9], claims = KEYS[10], free = KEYS[11], seatIndex = KEYS[12],
  seats = seats,
}, {
  holdId = ARGV[1], customerId = ARGV[2], mode = ARGV[3], channel = ARGV[4], ttId = ARGV[5],
  quantity = ARGV[6], tombstoneMs = ARGV[7], token = ARGV[8], seatIds = seatIds,
})
