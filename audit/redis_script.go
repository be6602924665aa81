package audit

import "github.com/redis/go-redis/v9"

// The scripts keep a session in three keys sharing one Cluster hash tag:
//
//	<prefix>{<session id>}:log    list of the events' canonical JSON
//	<prefix>{<session id>}:state  hash: n (events), last (hash of the
//	                              last event), sealed ("1" once sealed)
//	<prefix>{<session id>}:art    the sealed artifact's JSON
//
// Redis scripts have no SHA-256, so the client hashes and the script
// links: it appends only if the log still ends where the client read it
// (n and last), which makes the append a compare-and-set on the chain's
// head, and otherwise hands back the current head for another try.

// logHead opens both scripts: a sealed log takes nothing more, and a log
// whose length disagrees with its state is corrupt; n and last are the
// chain's head.
const logHead = `
local st = redis.call('HMGET', KEYS[2], 'n', 'last', 'sealed')
if st[3] then return {'sealed'} end
local n = tonumber(st[1] or '0')
local last = st[2] or ''
local len = redis.call('LLEN', KEYS[1])
if len ~= n then return {'corrupt', tostring(n), tostring(len)} end
`

// appendScript: KEYS log, state; ARGV expected n, expected last, event
// JSON, its hash, retention in ms. Replies {"ok"}, {"sealed"},
// {"corrupt", n, llen} or {"conflict", n, last}.
var appendScript = redis.NewScript(logHead + `
if tostring(n) ~= ARGV[1] or last ~= ARGV[2] then return {'conflict', tostring(n), last} end
redis.call('RPUSH', KEYS[1], ARGV[3])
redis.call('HSET', KEYS[2], 'n', tostring(n + 1), 'last', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return {'ok'}
`)

// sealScript: KEYS log, state, art; ARGV the artifact's event count, the
// hash of its last event, its JSON, retention in ms. Replies {"ok"},
// {"sealed"}, {"corrupt", n, llen} or {"stale", n}. The log is deleted:
// the artifact holds the events from then on.
var sealScript = redis.NewScript(logHead + `
if tostring(n) ~= ARGV[1] or last ~= ARGV[2] then return {'stale', tostring(n)} end
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
redis.call('HSET', KEYS[2], 'n', tostring(n), 'last', last, 'sealed', '1')
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('DEL', KEYS[1])
return {'ok'}
`)
