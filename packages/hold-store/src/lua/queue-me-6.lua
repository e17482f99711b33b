--[[
  Where a customer stands in the event's waiting room (issue 29), after the
  room's lazy admission (includes/queue-room).

  Input:
    KEYS[1..6] the room: cfg, pre, line, active, pass, at
    ARGV[1] customer id   ARGV[2] sale start ms ('' open)
    ARGV[3] admit per minute   ARGV[4] max active   ARGV[5] pass ms
    ARGV[6] change channel   ARGV[7] a new pass, should the customer be told one

  Output:
    {"OK", now ms, state ("waiting" | "admitted" | "ended" | "none"), position, pass, pass ends ms, ...the room (queueReply)}
]]
--- @include "now-ms"
--- @include "queue-room"

local now = nowMs()
local q = { KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6] }
local s = queueSettings(q, ARGV[3], ARGV[4], now)
local out = queueAdmit(q, s, now, tonumber(ARGV[5]), ARGV[2], ARGV[6])
local standing = queueStanding(q, ARGV[1], now, ARGV[7])
queueKeep(q)
local reply = { 'OK', now, standing[1], standing[2], standing[3], standing[4] }
for _, v in ipairs(queueReply(out, s, q)) do reply[#reply + 1] = v end
return reply
