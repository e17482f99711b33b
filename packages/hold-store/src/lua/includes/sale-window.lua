-- The sale window [start, end), decided on Redis's clock (every API process
-- agrees at the opening, and nothing is held after the end): the bounds in ms
-- since the epoch, '' for an open bound.
local function outsideSaleWindow(startMs, endMs, now)
  if startMs ~= '' and now < tonumber(startMs) then return true end
  if endMs ~= '' and now >= tonumber(endMs) then return true end
  return false
end
