-- Append a batch of events, atomically and only if the log is still at the expected version
-- and head hash.  KEYS: stream, meta, idempotency key, snapshot hash.
-- ARGV: expected_version, expected_head, n_events,
--       then one packed event per event (field "e"; stream ids are "<version>-0"),
--       then n_meta_pairs, field, value, ...          (besides version and head)
--       then new_head, idem_value ('' for none), idem_ttl,
--       then snapshot version ('' for none), snapshot blob,
--       then the webhook flag the caller read ('' for unchecked, 0, 1): a flag set since then
--       is a conflict (the caller decided on a cached meta, and must read it again),
--       then, optionally, the request's rate-limit counters (service/admission.py): their
--       number c, their windows' lengths in seconds, their amounts; the counters' keys are
--       KEYS[5..4+c].  They are counted first, whatever follows (as their own script,
--       service/http/ratelimit.py, counts them), and one over its amount appends nothing,
--       then, optionally (c is then given, 0 without counters), the checks of the turn
--       deadlines the batch begins (service/clocks.py): their number d, then d pairs of the
--       deadline (ms) and the check's id, added to the deadlines' index KEYS[5+c] once the
--       append is made.
-- Announces the append on the channel chronicle:changes, in the same atomic call:
-- "append <game id> <first> <last>\n" then, as netstrings ("<length>:<bytes>"), each packed
-- event and the meta's status, to_act and result after the write ('' for none), so that a
-- process's stream hub has the change without reading it back (see service/stream.py).
-- An append that stores an idempotent answer under a key that holds one already appends
-- nothing either: a conflict, whose caller then replays the stored answer (so a request with
-- an Idempotency-Key needs no read of the key before its append).
-- Returns {1, new_version}, {0, current_version}, or {-1, i}: counter i (from 1) is over.
local n = tonumber(ARGV[3])
local tail = 4 + n + 1 + tonumber(ARGV[4 + n]) * 2  -- new_head; then idem_value, .., hooks
local hooks = ARGV[tail + 5]
local c = tonumber(ARGV[tail + 6] or '0')
local d = tonumber(ARGV[tail + 7 + 2 * c] or '0')
local over = nil
for j = 1, c do
  local count = redis.call('INCR', KEYS[4 + j])
  if count == 1 then redis.call('EXPIRE', KEYS[4 + j], ARGV[tail + 6 + j]) end
  if over == nil and count > tonumber(ARGV[tail + 6 + c + j]) then over = j end
end
if over ~= nil then return {-1, over} end
local now = redis.call('HMGET', KEYS[2], 'version', 'head', 'hooks')
local version = tonumber(now[1] or '0')
local head = now[2] or ''
if version ~= tonumber(ARGV[1]) or head ~= ARGV[2]
    or (hooks ~= nil and hooks ~= '' and hooks ~= (now[3] == '1' and '1' or '0'))
    or (ARGV[tail + 1] ~= '' and redis.call('EXISTS', KEYS[3]) == 1) then
  return {0, version}
end
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
for j = 1, d do
  local at = tail + 6 + 2 * c + 2 * j
  redis.call('ZADD', KEYS[5 + c], ARGV[at], ARGV[at + 1])
end
local game = string.sub(KEYS[1], 4, -6)  -- "{g:<id>}:log"
local notice = {'append ', game, ' ', version + 1, ' ', version + n, '\n'}
for k = 1, n do
  local e = ARGV[3 + k]
  notice[#notice + 1] = #e .. ':' .. e
end
for _, v in ipairs(redis.call('HMGET', KEYS[2], 'status', 'to_act', 'result', 'clocks')) do
  v = v or ''
  notice[#notice + 1] = #v .. ':' .. v
end
redis.call('PUBLISH', 'chronicle:changes', table.concat(notice))
return {1, version + n}
