--[[
  The room's admission tick (issue 29): the API processes that know of a room
  with buyers waiting run this about once a second for the event (not once per
  buyer), so admission moves on on Redis's clock even while nobody asks. Ends
  the passes whose time is up and admits the places the bucket allows
  (includes/queue-room, which publishes the stream's `queue` message when it
  admitted any). Several processes ticking the same room are harmless: the
  bucket is here, on Redis's clock, and a second tick within the same moment
  finds no whole token. Its work does not grow with the places waiting
  (ZCARDs, ZPOPMIN of the places admitted, a bounded batch of passes ended).

  Input:
    KEYS[1..6] the room: cfg, pre, line, active, pass, at
    ARGV[1] sale start ms ('' open)   ARGV[2] admit per minute   ARGV[3] max active
    ARGV[4] pass ms   ARGV[5] change channel

  A room with none of its keys (its event's keys were removed, or Redis lost
  them) has nobody to admit: the tick answers it empty and writes nothing, so
  a process still ticking it never makes a room anew (a bare cfg kept two days).

  Output:
    {"OK", now ms, ...the room (queueReply)}
]]
--- @include "now-ms"
--- @include "queue-room"

local now = nowMs()
local q = { KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6] }
local s = queueSettings(q, ARGV[2], ARGV[3], now)
local out = { admitted = 0, timeout = 0, holdExpired = 0, waits = {} }
if redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]) > 0 then
  out = queueAdmit(q, s, now, tonumber(ARGV[4]), ARGV[1], ARGV[5])
  queueKeep(q)
end
local reply = { 'OK', now }
for _, v in ipairs(queueReply(out, s, q)) do reply[#reply + 1] = v end
return reply
