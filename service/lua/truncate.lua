-- Undo: truncate the log to a version, atomically and only if it is still at the expected
-- version and head.  The removed events move into the audit trail (a list of JSON records).
-- Redis keeps a stream's last id after XDEL, so the kept prefix is rewritten into a fresh
-- stream: version n+1 can then be appended again as "<n+1>-0".
-- KEYS: stream, meta, undone list, snapshot hash.
-- ARGV: expected_version, expected_head, to_version, undone record (JSON),
--       n_meta_pairs, field, value, ... (must include head).
-- Announces the cut on the channel chronicle:changes ("undo <game id> <to_version>").
-- Returns {1, to_version} or {0, current_version}.
local version = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
local head = redis.call('HGET', KEYS[2], 'head') or ''
if version ~= tonumber(ARGV[1]) or head ~= ARGV[2] then
  return {0, version}
end
local to = tonumber(ARGV[3])
local kept = redis.call('XRANGE', KEYS[1], '-', to .. '-0')
redis.call('DEL', KEYS[1])
for _, entry in ipairs(kept) do
  redis.call('XADD', KEYS[1], entry[1], unpack(entry[2]))
end
redis.call('RPUSH', KEYS[3], ARGV[4])
local sv = tonumber(redis.call('HGET', KEYS[4], 'v') or '0')
if sv > to then redis.call('DEL', KEYS[4]) end
local meta = {'version', to}
local n = tonumber(ARGV[5])
for j = 1, n * 2 do meta[#meta + 1] = ARGV[5 + j] end
redis.call('HSET', KEYS[2], unpack(meta))
redis.call('PUBLISH', 'chronicle:changes', 'undo ' .. string.sub(KEYS[1], 4, -6) .. ' ' .. to)
return {1, to}
