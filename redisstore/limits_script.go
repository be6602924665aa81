package redisstore

import "github.com/redis/go-redis/v9"

// allowScript is GCRA over several buckets at once, all or nothing, on the
// Redis clock. It is the arithmetic of redis_rate's allowN (emission
// interval e = period/rate, burst = rate; a request fits when its debt,
// TAT - now, plus e is within the period) extended to many buckets: every
// bucket is read and checked first, and only if all fit is every TAT
// advanced. A denied request writes nothing.
//
// Storage: one string key per client (per hash tag, KEYS[j]) holds a
// MessagePack map from bucket field to TAT, in microseconds since
// 2020-01-01 UTC (small numbers: a float64 resolves 0.03 µs today, 0.25 µs
// in a century, and TAT plus the longest period, a century, stays far
// below 2^53). A request's site, agent and capability buckets are
// therefore one GET and one SET, as redis_rate's one bucket is.
//
// Expiry: the entry "" (no bucket field is empty) is the key's deadline,
// never earlier than any TAT in it, and the key expires then. A request
// that stays within it rewrites the value with KEEPTTL (Redis 6.0 or
// later); one that would pass it moves it to now plus twice the longest
// period of the call, so a busy client extends its key about once a
// period, and an idle one disappears at most two periods after its last
// request. Buckets are never deleted one by one: a client has a handful
// (site, its agent policies, the capabilities it uses).
//
// ARGV[1] is a MessagePack array of (key index, field, rate, period in
// microseconds, cost) per limit (a request of cost c adds c emission
// intervals to its debt, as redis_rate's allowN does), and ARGV[2], when "peek", asks for the answer
// with nothing written (the store's Peek); and the reply is a MessagePack sequence
// (allowed, debt_1, ..., debt_n): the debt after the request when it was
// allowed, before it when it was not, in microseconds. Go computes
// Remaining, RetryAfter and Reset from the debts (parseReply), with the
// same float64 operations, so the script and Go agree on which limit had a
// token. MessagePack, for arguments, storage and reply alike, because
// decimal conversion (strtod, printf) is most of the cost of a small
// script, and cmsgpack, built into Redis, converts binary numbers.
//
// A request fits when debt + c <= period + eps, c = e * cost, eps being half an
// emission interval but at most half a microsecond (below the clock's
// resolution): it absorbs float rounding, so that a burst of N is N even
// when the period does not divide by the rate. A TAT more than a period
// ahead (the limit was lowered, or its period shortened) counts as a debt
// of one period: no client waits longer than a whole new window, as in
// the memory store. A value that is not a MessagePack map with a deadline
// (foreign data under the prefix) counts as no buckets and is replaced.
//
// Effects replication (the default since Redis 5) makes TIME safe in a
// script that writes.
var allowScript = redis.NewScript(`
local t = redis.call('TIME')
local now = (t[1] - 1577836800) * 1000000 + t[2]
local a = cmsgpack.unpack(ARGV[1])
local n, nk = #a / 5, #KEYS
local maps = {}
for j = 1, nk do
  local m
  local v = redis.call('GET', KEYS[j])
  if v then
    local good, x = pcall(cmsgpack.unpack, v)
    if good and type(x) == 'table' and type(x['']) == 'number' then m = x end
  end
  maps[j] = m or {}
end
local out = {true}
local ok = true
for i = 1, n do
  local b = 5 * i - 5
  local p = a[b+4]
  local e = p / a[b+3]
  local c = e * a[b+5]
  local d = maps[a[b+1]][a[b+2]]
  if d and d > now then
    d = d - now
    if d > p then d = p end
  else
    d = 0
  end
  out[i+1] = d
  local ep = e / 2
  if ep > 0.5 then ep = 0.5 end
  if d + c > p + ep then ok = false end
end
if ok then
  local span = {}
  for i = 1, n do
    local b = 5 * i - 5
    local j, p = a[b+1], a[b+4]
    local d = out[i+1] + p / a[b+3] * a[b+5]
    out[i+1] = d
    maps[j][a[b+2]] = now + d
    if not span[j] or p > span[j] then span[j] = p end
  end
  if ARGV[2] == 'peek' then return cmsgpack.pack(out) end
  for j = 1, nk do
    local m = maps[j]
    local x = m['']
    if x and x > now + span[j] + 1 then
      redis.call('SET', KEYS[j], cmsgpack.pack(m), 'KEEPTTL')
    else
      local dl = now + 2 * span[j] + 1
      if x and x > dl then dl = x end
      m[''] = dl
      redis.call('SET', KEYS[j], cmsgpack.pack(m), 'PX', math.ceil((dl - now) / 1000))
    end
  end
else
  out[1] = false
end
return cmsgpack.pack(out)
`)
