--[[
  The seller's view and controls of the event's waiting room (issue 29): reads
  the room after its lazy admission; with overrides, pauses or resumes it and
  changes its rate or its most active passes (the bucket is filled at the old
  rate up to now first). See includes/queue-room.

  Input:
    KEYS[1..6] the room: cfg, pre, line, active, pass, at
    ARGV[1] sale start ms ('' open)   ARGV[2] admit per minute   ARGV[3] max active
    ARGV[4] pass ms   ARGV[5] change channel
    ARGV[6] new admit per minute ('' unchanged)   ARGV[7] new max active ('' unchanged)
    ARGV[8] paused: '1' pause, '0' resume, '' unchanged
    ARGV[9] '1': drop the overrides of rate and max (the event's settings changed)

  Output:
    {"OK", now ms, ...the room (queueReply), median wait of the latest places admitted ms (-1: none yet)}
]]
--- @include "now-ms"
--- @include "queue-room"

local now = nowMs()
local q = { KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6] }
local passMs = tonumber(ARGV[4])
local s = queueSettings(q, ARGV[2], ARGV[3], now)
local out = queueAdmit(q, s, now, passMs, ARGV[1], ARGV[5])
if ARGV[9] == '1' then redis.call('HDEL', q[1], 'rate', 'max') end
if ARGV[6] ~= '' then redis.call('HSET', q[1], 'rate', ARGV[6]) end
if ARGV[7] ~= '' then redis.call('HSET', q[1], 'max', ARGV[7]) end
if ARGV[8] ~= '' then redis.call('HSET', q[1], 'paused', ARGV[8]) end
if ARGV[6] ~= '' or ARGV[7] ~= '' or ARGV[8] ~= '' or ARGV[9] == '1' then
  s = queueSettings(q, ARGV[2], ARGV[3], now)
  local more = queueAdmit(q, s, now, passMs, ARGV[1], ARGV[5])
  out.admitted = out.admitted + more.admitted
  out.timeout = out.timeout + more.timeout
  out.holdExpired = out.holdExpired + more.holdExpired
  for _, w in ipairs(more.waits) do out.waits[#out.waits + 1] = w end
end
queueKeep(q)
local reply = { 'OK', now }
for _, v in ipairs(queueReply(out, s, q)) do reply[#reply + 1] = v end
reply[#reply + 1] = queueMedianWait(q)
return reply
