--[[
  Claim an idempotency key, or report what it holds. One round trip.

  Input:
    KEYS[1] the key's record (hash: token, fp, state, status, body)
    ARGV[1] request fingerprint (hash of method, path and body)
    ARGV[2] a fresh token for this request   ARGV[3] in-progress lease ms

  Output:
    {"STARTED"}                 the key was free: it now reads running, owned by ARGV[2]
                                (also when it is ARGV[2]'s already: this call sent again, as
                                ioredis resends what a lost connection left unanswered)
    {"MISMATCH"}                the key was used with another request
    {"RUNNING"}                 the first request with this key has not answered yet
    {"DONE", status, body}      the first request's stored answer
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'token', ARGV[2], 'fp', ARGV[1], 'state', 'running')
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {'STARTED'}
end
local rec = redis.call('HMGET', KEYS[1], 'fp', 'state', 'status', 'body', 'token')
if rec[1] ~= ARGV[1] then return {'MISMATCH'} end
if rec[2] ~= 'done' then
  if rec[5] == ARGV[2] then return {'STARTED'} end
  return {'RUNNING'}
end
return {'DONE', rec[3], rec[4]}
