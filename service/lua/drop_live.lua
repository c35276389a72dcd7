-- Unlist games from the live index, each only if its mark is still the one the reconciler read
-- (a write that marked the game since keeps it listed).  One key: it runs on a Redis Cluster.
-- KEYS: the live index (a sorted set: game id -> mark, ms).
-- ARGV: game id, mark, game id, mark, ...
-- Returns the number of games unlisted.
local n = 0
for i = 1, #ARGV, 2 do
  local mark = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if mark and tonumber(mark) == tonumber(ARGV[i + 1]) then
    redis.call('ZREM', KEYS[1], ARGV[i])
    n = n + 1
  end
end
return n
