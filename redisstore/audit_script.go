package redisstore

import "github.com/redis/go-redis/v9"

// The scripts keep a session in five keys sharing one Cluster hash tag:
//
//	<prefix>{<session id>}:log    list of the events' canonical heads (eventHead)
//	<prefix>{<session id>}:ts     list of their timestamps
//	<prefix>{<session id>}:out    list of their statuses ("0" until completed)
//	<prefix>{<session id>}:state  hash: n (events), lastts (the last
//	                              timestamp), sealed ("1" once sealed)
//	<prefix>{<session id>}:art    the sealed artifact's JSON
//
// Events are kept unlinked: the client links them (SHA-256, which Redis
// scripts lack) when it reads them back. So an append is one script call
// that reads nothing back and depends on nothing the client read: appends
// to one session from any number of replicas never conflict, whatever the
// server's durability settings.

// logHead opens the scripts: a sealed log takes nothing more, and a log
// whose lists disagree with its count is corrupt. KEYS[1..4] are log, ts,
// out, state.
const logHead = `
local st = redis.call('HMGET', KEYS[4], 'n', 'lastts', 'sealed')
if st[3] then return {'sealed'} end
local n = tonumber(st[1] or '0')
local len = redis.call('LLEN', KEYS[1])
if len ~= n or redis.call('LLEN', KEYS[2]) ~= n or redis.call('LLEN', KEYS[3]) ~= n then
  return {'corrupt', tostring(n), tostring(len)}
end
`

// appendScript: KEYS log, ts, out, state; ARGV head, timestamp, status,
// retention in ms. The timestamp is raised to the last one when it is
// earlier, so that timestamps never decrease along the chain. Replies
// {"ok", seq}, {"sealed"} or {"corrupt", n, llen}.
var appendScript = redis.NewScript(logHead + `
local ts = ARGV[2]
if st[2] and st[2] > ts then ts = st[2] end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('RPUSH', KEYS[2], ts)
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[4], 'n', tostring(n + 1), 'lastts', ts)
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[4]) end
return {'ok', tostring(n)}
`)

// completeScript: KEYS log, ts, out, state; ARGV seq, status, retention in
// ms, the amended head or "". Replies {"ok"}, {"sealed"}, {"corrupt", n,
// llen} or {"notpending"}.
var completeScript = redis.NewScript(logHead + `
local seq = tonumber(ARGV[1])
if not seq or seq < 0 or seq >= n or redis.call('LINDEX', KEYS[3], seq) ~= '0' then return {'notpending'} end
redis.call('LSET', KEYS[3], seq, ARGV[2])
if ARGV[4] ~= '' then redis.call('LSET', KEYS[1], seq, ARGV[4]) end
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return {'ok'}
`)

// sealScript: KEYS log, ts, out, state, art; ARGV the artifact's event
// count, its fingerprint (sealFingerprint), its JSON, retention in ms.
// Replies {"ok"}, {"sealed"}, {"corrupt", n, llen} or {"stale", n}. The
// lists are deleted: the artifact holds the events from then on.
var sealScript = redis.NewScript(logHead + `
local stale = tostring(n) ~= ARGV[1]
if not stale then
  local heads = redis.call('LRANGE', KEYS[1], 0, -1)
  local ts = redis.call('LRANGE', KEYS[2], 0, -1)
  local out = redis.call('LRANGE', KEYS[3], 0, -1)
  local parts = {}
  for i = 1, n do parts[i] = heads[i] .. '\0' .. ts[i] .. '\0' .. out[i] end
  stale = table.concat(parts, '\1') ~= ARGV[2]
end
if stale then return {'stale', tostring(n)} end
redis.call('SET', KEYS[5], ARGV[3], 'PX', ARGV[4])
redis.call('HSET', KEYS[4], 'n', tostring(n), 'sealed', '1')
redis.call('PEXPIRE', KEYS[4], ARGV[4])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return {'ok'}
`)
