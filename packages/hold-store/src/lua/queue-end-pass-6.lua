--[[
  Ends a customer's queue pass (issue 29): their order was confirmed or they
  released their hold. The place is free for the next one, admitted here at
  once when the bucket allows (includes/queue-room). Ending an ended pass
  changes nothing, and so does a hold taken with no pass (a waiting-list offer)
  or with an earlier pass of the customer's: only the pass the hold was taken
  with ends (o:<hold id>, includes/queue-pass).

  Input:
    KEYS[1..6] the room: cfg, pre, line, active, pass, at
    ARGV[1] customer id   ARGV[2] sale start ms ('' open)
    ARGV[3] admit per minute   ARGV[4] max active   ARGV[5] pass ms   ARGV[6] change channel
    ARGV[7] the hold id

  Output:
    {"OK", now ms, 1 when a live pass ended else 0, ...the room (queueReply)}
]]
--- @include "now-ms"
--- @include "queue-room"

local now = nowMs()
local q = { KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6] }
local ends = redis.call('ZSCORE', q[4], ARGV[1])
local ended = 0
local holdsPass = redis.call('HGET', q[5], 'o:' .. ARGV[7])
if holdsPass then redis.call('HDEL', q[5], 'o:' .. ARGV[7]) end
if ends and tonumber(ends) > now and holdsPass and redis.call('HGET', q[5], 'c:' .. ARGV[1]) == holdsPass then
  redis.call('ZREM', q[4], ARGV[1])
  redis.call('HDEL', q[5], 'h:' .. ARGV[1])
  ended = 1
end
local s = queueSettings(q, ARGV[3], ARGV[4], now)
local out = queueAdmit(q, s, now, tonumber(ARGV[5]), ARGV[2], ARGV[6])
queueKeep(q)
local reply = { 'OK', now, ended }
for _, v in ipairs(queueReply(out, s, q)) do reply[#reply + 1] = v end
return reply
