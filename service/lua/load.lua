-- Read what folding a game up to a version needs, in one atomic round trip.
-- KEYS: meta, snapshot hash, stream.
-- ARGV: target version ('' = current), base version the caller already holds (0 = none),
--       use_snapshot ('1'/'0').
-- Returns false for an unknown game, else {meta (flat), snapshot blob or false, entries from
-- the base (or snapshot) version, inclusive, up to the target}.
local meta = redis.call('HGETALL', KEYS[1])
if #meta == 0 then return false end
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local target = tonumber(ARGV[1]) or version
if target > version then target = version end
local base = tonumber(ARGV[2])
local start = 1
local blob = false
if base > 0 and base <= target then
  start = base
elseif ARGV[3] == '1' then
  local sv = tonumber(redis.call('HGET', KEYS[2], 'v') or '0')
  if sv > 0 and sv <= target then
    start = sv
    blob = redis.call('HGET', KEYS[2], 'blob')
  end
end
if target < 1 then return {meta, blob, {}} end
return {meta, blob, redis.call('XRANGE', KEYS[3], start .. '-0', target .. '-0')}
