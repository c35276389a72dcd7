-- Append a batch of events, atomically and only if the log is still at the expected version
-- and head hash.  KEYS: stream, meta, idempotency key, snapshot hash.
-- ARGV: expected_version, expected_head, n_events,
--       then one packed event per event (field "e"; stream ids are "<version>-0"),
--       then n_meta_pairs, field, value, ...          (besides version and head)
--       then new_head, idem_value ('' for none), idem_ttl,
--       then snapshot version ('' for none), snapshot blob.
-- Announces the append on the channel chronicle:changes ("append <game id> <first> <last>",
-- see service/stream.py), in the same atomic call.
-- Returns {1, new_version} or {0, current_version}.
local version = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
local head = redis.call('HGET', KEYS[2], 'head') or ''
if version ~= tonumber(ARGV[1]) or head ~= ARGV[2] then
  return {0, version}
end
local n = tonumber(ARGV[3])
for k = 1, n do
  redis.call('XADD', KEYS[1], (version + k) .. '-0', 'e', ARGV[3 + k])
end
local i = 4 + n
local meta_n = tonumber(ARGV[i]); i = i + 1
local meta = {'version', version + n}
for j = 1, meta_n * 2 do meta[#meta + 1] = ARGV[i + j - 1] end
i = i + meta_n * 2
meta[#meta + 1] = 'head'; meta[#meta + 1] = ARGV[i]; i = i + 1
redis.call('HSET', KEYS[2], unpack(meta))
if ARGV[i] ~= '' then redis.call('SET', KEYS[3], ARGV[i], 'EX', tonumber(ARGV[i + 1])) end
i = i + 2
if ARGV[i] ~= '' then redis.call('HSET', KEYS[4], 'v', ARGV[i], 'blob', ARGV[i + 1]) end
local game = string.sub(KEYS[1], 4, -6)  -- "{g:<id>}:log"
redis.call('PUBLISH', 'chronicle:changes', 'append ' .. game .. ' ' .. (version + 1) .. ' ' .. (version + n))
return {1, version + n}
