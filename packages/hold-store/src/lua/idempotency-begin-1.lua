--[[
  Claim an idempotency key, or report what it holds. One round trip.

  A claim has a lease (Redis's clock): while it runs, another request with the
  key answers RUNNING; once it has lapsed (the request that claimed it died, or
  could not store its answer), the next request takes the claim over. The
  claim's seed (the hold id a hold request takes: domain/create-hold.ts) is
  kept across a takeover, so the request that takes over finds the hold the
  one before it may have taken. A claim's record outlives its lease by ARGV[5]
  ms for that; complete keeps the answer, release deletes the record.

  Input:
    KEYS[1] the key's record (hash: token, fp, state, until, seed, over, status, body)
    ARGV[1] request fingerprint (hash of method, path and body)
    ARGV[2] a fresh token for this request   ARGV[3] in-progress lease ms
    ARGV[4] a fresh seed (24 hex), the claim's when the key is free
    ARGV[5] how long a claim's record is kept, ms (at least the lease)

  Output:
    {"STARTED", seed, 0}        the key was free: it now reads running, owned by ARGV[2]
    {"STARTED", seed, 1}        an earlier request's lease had lapsed: the claim, with its
                                seed, is now ARGV[2]'s
                                (either also when the claim is ARGV[2]'s already: this call sent
                                again, as ioredis resends what a lost connection left unanswered)
    {"MISMATCH"}                the key was used with another request
    {"RUNNING"}                 the request holding the claim has not answered, and its lease runs
    {"DONE", status, body}      the first request's stored answer
]]
--- @include "now-ms"

local now = nowMs()
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'token', ARGV[2], 'fp', ARGV[1], 'state', 'running', 'until', now + tonumber(ARGV[3]), 'seed', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'STARTED', ARGV[4], 0}
end
local rec = redis.call('HMGET', KEYS[1], 'fp', 'state', 'status', 'body', 'token', 'until', 'seed', 'over')
if rec[1] ~= ARGV[1] then return {'MISMATCH'} end
if rec[2] == 'done' then return {'DONE', rec[3], rec[4]} end
local seed = rec[7] or ARGV[4]
if rec[5] == ARGV[2] then return {'STARTED', seed, rec[8] and 1 or 0} end
-- A claim written without its lease's end lapses with its record (PEXPIRE'd to the lease).
if not rec[6] or tonumber(rec[6]) > now then return {'RUNNING'} end
redis.call('HSET', KEYS[1], 'token', ARGV[2], 'until', now + tonumber(ARGV[3]), 'seed', seed, 'over', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {'STARTED', seed, 1}
