--[[
  Counts a hold request that was refused before any hold script ran (unknown
  seat or ticket type, a body that is not valid), so the customer's rate limit
  sees every hold request, not only those that reached the hold scripts.

  Input:
    KEYS[1] the customer's rate-limit window counter (the same key the hold
            scripts count in)
    ARGV[1] rate limit (0: not counted)   ARGV[2] rate window ms

  Output:
    {"OK"}                          counted, still within the limit
    {"RATE_LIMITED", retry after ms}
]]
--- @include "rate-limited"

local retryAfter = rateLimited(KEYS[1], tonumber(ARGV[1]), ARGV[2])
if retryAfter then return {'RATE_LIMITED', retryAfter} end
return {'OK'}
