--[[
  Join a waiting list (or put an entry back in line after Redis lost it: restore),
  then serve the event's lines: the entry may be offered at once when what is
  free covers it and nobody ahead can take it. See includes/waitlist.

  Input:
    KEYS[1] ready marker   KEYS[2] entries (hash, <p>wl)   KEYS[3] the scope's line (zset)
    KEYS[4] scopes with entries (hash, <p>wls)   KEYS[5] settings (hash, <p>wlcfg; written here when absent)
    KEYS[6] the entry's gone mark (string, <p>wlg:<entry>: it left, or was not needed)
    ARGV[1] entry id   ARGV[2] join sequence   ARGV[3] entry JSON {c, q, s, n, p}
    ARGV[4] scope ("t:<tier>" | "tt:<ticket type id>")   ARGV[5] quantity
    ARGV[6] event id   ARGV[7] currency   ARGV[8] offer ms   ARGV[9] record ttl ms
    ARGV[10] max tickets per customer   ARGV[11] "restore" (no AVAILABLE check) | ""
    ARGV[12] how long a gone mark stays (ms)

  Output:
    {"OK", entry id, hold id, ...}  in line (the offers made, this entry's among them or not)
    {"ALREADY"}  the entry is in line or has an offer already: nothing done
    {"GONE"}  restore only: the entry left its line, or was not needed (its gone mark): nothing done
    {"AVAILABLE", free}  nobody waits and what is free covers the quantity: hold it instead
                         (the entry's gone mark is set: the caller deletes its row)
    {"NOT_READY"}  the event must be primed first
]]
--- @include "now-ms"
--- @include "customer-holds"
--- @include "free-seats"
--- @include "ticket-availability"
--- @include "waitlist"

if redis.call('EXISTS', KEYS[1]) == 0 then return {'NOT_READY'} end
-- Entries are put back (restore) from a read of PostgreSQL made before: one that left since stays out.
if ARGV[11] == 'restore' and redis.call('EXISTS', KEYS[6]) == 1 then return {'GONE'} end
local now = nowMs()
local p = eventPrefixOf(KEYS[1])
local entryId, scope, quantity = ARGV[1], ARGV[4], tonumber(ARGV[5])
-- The settings are written by the first join (or restore) only: a join from a process whose copy of
-- the event is a moment old must not undo an admin's change (setWaitlistConfig, and reconciliation).
if redis.call('EXISTS', KEYS[5]) == 0 then
  redis.call('HSET', KEYS[5], 'eventId', ARGV[6], 'currency', ARGV[7], 'offerMs', ARGV[8], 'recordMs', ARGV[9], 'max', ARGV[10])
end
if redis.call('ZSCORE', KEYS[3], entryId) or redis.call('EXISTS', p .. 'wlo:' .. entryId) == 1 then return {'ALREADY'} end

if ARGV[11] ~= 'restore' and redis.call('ZCARD', KEYS[3]) == 0 then
  local free
  local tier = string.match(scope, '^t:(.*)$')
  if tier then
    waitlistGiveBackLapsed(p, now, 256)
    free = #waitlistFreeSeats(p, tier, quantity)
  else
    local ttId = string.sub(scope, 4)
    if redis.call('EXISTS', p .. 'tt:' .. ttId) == 0 then return {'NOT_READY'} end
    free = ticketAvailability(p .. 'tt:' .. ttId, p .. 'ttexp:' .. ttId, p .. 'ttq:' .. ttId, now)
  end
  if free >= quantity then
    redis.call('SET', KEYS[6], '1', 'PX', ARGV[12])
    return {'AVAILABLE', free}
  end
end

redis.call('ZADD', KEYS[3], tonumber(ARGV[2]), entryId)
redis.call('HSET', KEYS[2], entryId, ARGV[3])
redis.call('HSET', KEYS[4], scope, 1)
local made = serveWaitlists(p, now)
local out = {'OK'}
for _, v in ipairs(made) do out[#out + 1] = v end
return out
