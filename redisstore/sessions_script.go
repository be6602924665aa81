package redisstore

import "github.com/redis/go-redis/v9"

// The scripts take the app's clock in milliseconds (ARGV), not Redis TIME:
// a session's deadline is the expires_at the agent was told, computed by
// the Manager. A key's Redis lifetime only collects garbage, and is set
// relative (PEXPIRE, the deadline less the app's now), never absolute on
// the Redis clock: an app clock a year behind Redis's would otherwise have
// its live sessions dropped at once, and one ahead keep them a year. Every
// liveness decision is made against the store's clock.
//
// Keys:
//
//	<prefix>session:t:<hash hex>     string: the session record (JSON), living until its
//	                                 deadline; no hash tag, so sessions spread over slots
//	{<prefix>session:<k>}:a:<client>|<agent>
//	                                 sorted set: the identity's session hashes, scored by
//	                                 deadline; k is the identity's shard (0 to 15)
//	{<prefix>session:<k>}:exp        sorted set: "<hash hex> <record>" scored by deadline,
//	                                 the shard's sessions not yet ended; Reap's removal of a
//	                                 member ends an expired session, once

// createScript: KEYS identity, its shard's expiry index; ARGV hash hex,
// record, deadline ms, now ms, max. Returns {0, 0} when the session is
// counted, {1, soonest ms} when the identity is at its max.
var createScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
local max = tonumber(ARGV[5])
if max > 0 and redis.call('ZCARD', KEYS[1]) >= max then
	local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
	return {1, tonumber(first[2])}
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.max(1, math.floor(tonumber(last[2]) - tonumber(ARGV[4]))))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1] .. ' ' .. ARGV[2])
return {0, 0}
`)

// deleteScript: KEYS identity, its shard's expiry index; ARGV hash hex,
// the record read before. Run by the Delete whose DEL removed the session's
// key: 1 when it took the session from the index, 0 when a Reap did first.
var deleteScript = redis.NewScript(`
if redis.call('ZREM', KEYS[2], ARGV[1] .. ' ' .. ARGV[2]) == 0 then
	return 0
end
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`)

// reapScript: KEYS a shard's expiry index; ARGV now ms, max. Removes and
// returns the members whose deadline is not after now, soonest first.
var reapScript = redis.NewScript(`
local ms = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #ms > 0 then
	redis.call('ZREM', KEYS[1], unpack(ms))
end
return ms
`)
