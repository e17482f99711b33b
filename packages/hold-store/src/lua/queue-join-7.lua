--[[
  A customer joins the event's waiting room (issue 29): one place per customer.
  Before the sale opens the place is drawn (ARGV[10], a random number the
  caller drew: the pre-queue is ordered by it at the opening); after it, the
  place is at the back, in arrival order. Joining again keeps the place (or
  the pass). Joining is open from ARGV[2] (the opening less the pre-queue
  time) until the sale's end, on Redis's clock. See includes/queue-room.

  Input:
    KEYS[1..6] the room: cfg, pre, line, active, pass, at (includes/queue-room)
    KEYS[7] proofs of work taken (set of "<customer>:<nonce>")
    ARGV[1] customer id   ARGV[2] joining opens ms ('' open)
    ARGV[3] sale start ms ('' open)   ARGV[4] sale end ms ('' open)
    ARGV[5] admit per minute   ARGV[6] max active   ARGV[7] pass ms
    ARGV[8] change channel   ARGV[9] a new pass, should the customer be told one
    ARGV[10] the draw (a place before the opening)   ARGV[11] the proof of work's "<customer>:<nonce>" ('' none)

  Output:
    {"SALES_CLOSED", now ms}   before ARGV[2] or from the sale's end: nothing written
    {"PROOF_REUSED"}           the proof was taken before and the customer has no place or live pass
                               to keep (a join that keeps one takes any proof): nothing written
    {"OK", now ms, state, position, pass, pass ends ms, ...the room (queueReply)}
]]
--- @include "now-ms"
--- @include "queue-room"

local now = nowMs()
local q = { KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6] }
if (ARGV[2] ~= '' and now < tonumber(ARGV[2])) or (ARGV[4] ~= '' and now >= tonumber(ARGV[4])) then
  return {'SALES_CLOSED', now}
end
local customer = ARGV[1]
if ARGV[11] ~= '' and redis.call('SISMEMBER', KEYS[7], ARGV[11]) == 1 then
  -- Joining again keeps the place or the pass (a retry after a 503 sends its proof again): only a
  -- join that would take a new place needs a proof not used before.
  local passEnds = redis.call('ZSCORE', q[4], customer)
  local placed = redis.call('ZSCORE', q[2], customer) or redis.call('ZSCORE', q[3], customer) or (passEnds and tonumber(passEnds) > now)
  if not placed then return {'PROOF_REUSED'} end
end

local s = queueSettings(q, ARGV[5], ARGV[6], now)
local passMs = tonumber(ARGV[7])
local out = queueAdmit(q, s, now, passMs, ARGV[3], ARGV[8])
local standing = queueStanding(q, customer, now, ARGV[9])
if standing[1] == 'none' or standing[1] == 'ended' then
  if ARGV[3] ~= '' and now < tonumber(ARGV[3]) then
    redis.call('ZADD', q[2], ARGV[10], customer)
  else
    redis.call('ZADD', q[3], redis.call('HINCRBY', q[1], 'seq', 1), customer)
  end
  redis.call('HSET', q[6], customer, now)
  -- A place at the head of an idle room is admitted at once.
  local more = queueAdmit(q, s, now, passMs, ARGV[3], ARGV[8])
  out.admitted = out.admitted + more.admitted
  for _, w in ipairs(more.waits) do out.waits[#out.waits + 1] = w end
  standing = queueStanding(q, customer, now, ARGV[9])
end
if ARGV[11] ~= '' then redis.call('SADD', KEYS[7], ARGV[11]) end
queueKeep(q, KEYS[7])
local reply = { 'OK', now, standing[1], standing[2], standing[3], standing[4] }
for _, v in ipairs(queueReply(out, s, q)) do reply[#reply + 1] = v end
return reply
