package redisstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/agentready/agentready/internal/keyesc"
	"github.com/agentready/agentready/ratelimit"

	"github.com/redis/go-redis/v9"
)

var _ ratelimit.Peeker = (*limitStore)(nil)

// defaultLimitPrefix starts every key the limit store writes.
const defaultLimitPrefix = "agentready:"

// errCrossSlot reports limits of one call whose keys Redis Cluster (or a
// Ring) would place on different nodes: they cannot be checked in one
// atomic script. The enforcer never makes such calls.
var errCrossSlot = fmt.Errorf("%w: limits of one call hash to different Redis slots", ratelimit.ErrInvalidLimit)

// maxRedisRate bounds ratelimit.Limit.Rate for the Redis store: Lua numbers are
// float64, exact to 2^53, and rates anywhere near that are meaningless.
const maxRedisRate = 1 << 40

// limitStore is the ratelimit.Store of NewLimitStore.
type limitStore struct {
	client redis.UniversalClient
	prefix string
	// sharded: the client routes by key (Cluster, Ring), so the hash tags
	// of one call must agree.
	sharded bool
}

// NewLimitStore returns a rate-limit store in Redis, so that replicas of a
// site share their buckets: a limit of N per period allows N requests in
// total, whichever replica serves them. The store also implements
// ratelimit.Peeker.
//
// The algorithm is the GCRA of github.com/go-redis/redis_rate, run in a Lua
// script on the Redis clock (TIME), so the replicas' clocks do not matter.
// redis_rate's script handles one key per call; this store's script takes
// every limit of a request (site, agent, capability) in ONE round trip,
// checks them all, and consumes from all or none. Results follow the
// memory store: RetryAfter is 0 for an allowed limit (redis_rate says -1),
// Remaining counts whole tokens, Reset is the time until the bucket is
// full. Both stores pass ratelimit/ratelimittest.
//
// One client's buckets live in one key: the prefix and a Redis Cluster
// hash tag, holding a small MessagePack map from bucket to its theoretical
// arrival time:
//
//	agentready:{192.0.2.1/32}  site|  agent:claude|  capability:product-search|claude
//	agentready:{id:key-123}    site  agent:claude
//
// The tag is the Key's network when it has one, else "id:" and its ID, so
// one request's site, agent and capability buckets are one key: one GET and
// one SET in the script, one slot on Cluster. Limits of one call must share
// that tag on a Cluster or Ring client (an error wrapping
// ratelimit.ErrInvalidLimit otherwise); the enforcer always calls with one
// client's limits. The key expires at most two periods after the client's
// last request (see allowScript), so idle clients take no memory. Redis
// 6.0 or later is required.
//
// The store does not retry, fall back or time out by itself: wrap it in
// ratelimit.NewFailover for that. It tells the Failover its client's
// connection pool size (per node for a Cluster), so that a burst queues
// before the pool rather than inside the Failover's timeout.
//
// client is a *redis.Client, a Sentinel failover client or a
// *redis.ClusterClient (redis.NewUniversalClient makes any of them). Its
// options must set ContextTimeoutEnabled, so that a request's deadline
// (the Failover's timeout) bounds its wait for Redis. The store does not
// own the client: close it yourself. Nothing is sent to Redis until the
// first Allow; the script is loaded by EVALSHA's NOSCRIPT fallback.
// NewLimitStore reports every invalid option at once.
func NewLimitStore(client redis.UniversalClient, opts ...Option) (ratelimit.Store, error) {
	cfg, err := apply("NewLimitStore", defaultLimitPrefix, kindLimit, opts)
	if client == nil {
		err = errors.Join(err, errors.New("redisstore: NewLimitStore: nil client"))
	} else if !honoursDeadlines(client) {
		err = errors.Join(err, errors.New("redisstore: NewLimitStore: the client's options must set ContextTimeoutEnabled: "+
			"without it go-redis ignores request deadlines on the socket, and a hung Redis holds every request for ReadTimeout (3 s by default) "+
			"whatever the Failover's timeout"))
	}
	if err != nil {
		return nil, err
	}
	s := &limitStore{client: client, prefix: cfg.prefix}
	switch client.(type) {
	case *redis.ClusterClient, *redis.Ring:
		s.sharded = true
	}
	return s, nil
}

// MaxConcurrent is the client's connection pool size (per node for a
// Cluster), read by ratelimit.NewFailover; 0 (no bound) for a client of
// another type.
func (s *limitStore) MaxConcurrent() int {
	pool, _, _ := clientOptions(s.client)
	return pool
}

// honoursDeadlines reports whether the client lets a context's deadline
// bound its socket reads and writes (Options.ContextTimeoutEnabled). A
// client of another type is trusted to.
func honoursDeadlines(client redis.UniversalClient) bool {
	_, deadlines, known := clientOptions(client)
	return deadlines || !known
}

// clientOptions returns the pool size and ContextTimeoutEnabled of the
// go-redis client types; known is false for another type.
func clientOptions(client redis.UniversalClient) (pool int, deadlines, known bool) {
	switch c := client.(type) {
	case *redis.Client:
		return c.Options().PoolSize, c.Options().ContextTimeoutEnabled, true
	case *redis.ClusterClient:
		return c.Options().PoolSize, c.Options().ContextTimeoutEnabled, true
	case *redis.Ring:
		return c.Options().PoolSize, c.Options().ContextTimeoutEnabled, true
	}
	return 0, false, false
}

// Allow implements ratelimit.Store.
func (s *limitStore) Allow(ctx context.Context, limits []ratelimit.Limit, res []ratelimit.Result) error {
	return s.allow(ctx, limits, res, false)
}

// Peek implements ratelimit.Peeker: the same script, told to write nothing.
func (s *limitStore) Peek(ctx context.Context, limits []ratelimit.Limit, res []ratelimit.Result) error {
	return s.allow(ctx, limits, res, true)
}

func (s *limitStore) allow(ctx context.Context, limits []ratelimit.Limit, res []ratelimit.Result, peek bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := ratelimit.CheckLimits(limits, res); err != nil {
		return err
	}
	n := len(limits)
	if n == 0 {
		return nil
	}
	for i := range limits {
		if limits[i].Rate > maxRedisRate {
			return fmt.Errorf("%w: %q: rate %d is above the Redis store's %d", ratelimit.ErrInvalidLimit, limits[i].Name, limits[i].Rate, maxRedisRate)
		}
	}
	var keys []string // one per client tag, usually one
	var buf [128]byte // a key, on the stack unless an ID is long
	// MessagePack: (key index, field, rate, period, cost) per limit, each
	// about 40 bytes with the usual names.
	arg := appendArrayHeader(make([]byte, 0, 8+48*n), 5*n)
	for i := range limits {
		l := &limits[i]
		kb := s.appendKey(buf[:0], &l.Key)
		k := 0
		for j := range keys {
			if keys[j] == string(kb) {
				k = j + 1
				break
			}
		}
		if k == 0 {
			if len(keys) > 0 && s.sharded {
				return errCrossSlot
			}
			keys = append(keys, string(kb))
			k = len(keys)
		}
		arg = appendUint(arg, uint64(k))
		arg = appendField(arg, l)
		arg = appendUint(arg, uint64(l.Rate))
		arg = appendUint(arg, uint64(micros(l.Period)))
		arg = appendUint(arg, uint64(max(l.Cost, 1)))
	}
	args := []any{arg}
	if peek {
		args = append(args, "peek")
	}
	v, err := s.runAllow(ctx, keys, args)
	if err != nil {
		return fmt.Errorf("redisstore: %w", err)
	}
	return parseReply(v, limits, res)
}

// appendKey appends the key of k's buckets: the prefix and the hash tag,
// which is the network, or "id:" and the ID when the ratelimit.Key has no network.
// The ID is escaped so that its first unescaped '}' ends the tag.
func (s *limitStore) appendKey(dst []byte, k *ratelimit.Key) []byte {
	dst = append(dst, s.prefix...)
	dst = append(dst, '{')
	if k.Net.IsValid() {
		dst = k.Net.AppendTo(dst)
	} else {
		dst = append(dst, "id:"...)
		dst = keyesc.AppendBy(dst, k.ID, '}')
	}
	return append(dst, '}')
}

// appendField appends l's bucket name within its key, as a MessagePack
// string: the name, and for a networked ratelimit.Key "|" and the ID (an ID-only ratelimit.Key
// has its ID in the tag). Name and ID are escaped with a backslash before
// "|" and "\\", so no two buckets of a key share a field.
func appendField(dst []byte, l *ratelimit.Limit) []byte {
	// str32, its length patched in afterwards: one pass over the strings.
	dst = append(dst, 0xdb, 0, 0, 0, 0)
	at := len(dst)
	dst = keyesc.Append(dst, l.Name)
	if l.Key.Net.IsValid() {
		dst = append(dst, '|')
		dst = keyesc.Append(dst, l.Key.ID)
	}
	binary.BigEndian.PutUint32(dst[at-4:at], uint32(len(dst)-at))
	return dst
}

// appendArrayHeader and appendUint write MessagePack (array, uint64).
func appendArrayHeader(dst []byte, n int) []byte {
	if n < 16 {
		return append(dst, 0x90|byte(n))
	}
	return binary.BigEndian.AppendUint32(append(dst, 0xdd), uint32(n))
}

func appendUint(dst []byte, v uint64) []byte {
	if v < 128 {
		return append(dst, byte(v))
	}
	return binary.BigEndian.AppendUint64(append(dst, 0xcf), v)
}

// parseReply turns the script's reply, a MessagePack sequence (allowed,
// debt_1, ..., debt_n) with debts in microseconds, into results. The
// arithmetic is the script's, on the same float64 values, so that a limit
// the script found fitting is reported allowed here.
func parseReply(v any, limits []ratelimit.Limit, res []ratelimit.Result) error {
	b, ok := v.(string)
	if !ok {
		return fmt.Errorf("redisstore: unexpected script reply %T", v)
	}
	b, err := skipArrayHeader(b, len(limits)+1)
	if err != nil {
		return err
	}
	if len(b) < 1 || (b[0] != 0xc2 && b[0] != 0xc3) {
		return errBadReply
	}
	all := b[0] == 0xc3
	b = b[1:]
	for i := range limits {
		var d float64
		if d, b, err = msgpackFloat(b); err != nil {
			return err
		}
		l := &limits[i]
		p := float64(micros(l.Period))
		rate := float64(l.Rate)
		e := p / rate
		c := e * float64(max(l.Cost, 1)) // as the script computes it
		ep := min(e/2, 0.5)
		if !(d >= 0 && d <= p+ep) { // the script caps debts; NaN fails too
			return errBadReply
		}
		r := ratelimit.Result{Limit: l.Rate, Reset: ceilMicros(d)}
		if all || d+c <= p+ep {
			r.Allowed = true
			r.Remaining = int(min(math.Floor((p-d+ep)/e), rate))
		} else {
			r.RetryAfter = ceilMicros(d + c - p)
		}
		res[i] = r
	}
	if len(b) != 0 {
		return errBadReply
	}
	return nil
}

var errBadReply = errors.New("redisstore: malformed script reply")

// ceilMicros converts microseconds to a Duration, rounded up to the
// nanosecond so that a client waiting that long finds what it was promised.
func ceilMicros(us float64) time.Duration {
	return time.Duration(math.Ceil(us * 1000))
}

// skipArrayHeader checks that b starts with a MessagePack array of n
// elements and returns what follows.
func skipArrayHeader(b string, n int) (string, error) {
	switch {
	case n < 16 && len(b) >= 1 && b[0] == 0x90|byte(n):
		return b[1:], nil
	case len(b) >= 3 && b[0] == 0xdc && int(b[1])<<8|int(b[2]) == n:
		return b[3:], nil
	case len(b) >= 5 && b[0] == 0xdd && int(b[1])<<24|int(b[2])<<16|int(b[3])<<8|int(b[4]) == n:
		return b[5:], nil
	}
	return "", errBadReply
}

// msgpackFloat reads one MessagePack number, as Lua's cmsgpack writes
// them: integers when the value is whole, else float32 when exact, else
// float64.
func msgpackFloat(b string) (float64, string, error) {
	if len(b) == 0 {
		return 0, "", errBadReply
	}
	c := b[0]
	switch {
	case c < 0x80:
		return float64(c), b[1:], nil
	case c >= 0xe0:
		return float64(int8(c)), b[1:], nil
	}
	size := map8[c]
	if size == 0 || len(b) < 1+size {
		return 0, "", errBadReply
	}
	var u uint64
	for i := 1; i <= size; i++ {
		u = u<<8 | uint64(b[i])
	}
	rest := b[1+size:]
	switch c {
	case 0xca:
		return float64(math.Float32frombits(uint32(u))), rest, nil
	case 0xcb:
		return math.Float64frombits(u), rest, nil
	case 0xcc, 0xcd, 0xce, 0xcf:
		return float64(u), rest, nil
	case 0xd0:
		return float64(int8(u)), rest, nil
	case 0xd1:
		return float64(int16(u)), rest, nil
	case 0xd2:
		return float64(int32(u)), rest, nil
	default: // 0xd3
		return float64(int64(u)), rest, nil
	}
}

// map8 is the payload size of the MessagePack number types.
var map8 = [256]int{0xca: 4, 0xcb: 8, 0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8, 0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8}

// micros is d in whole microseconds, rounded up: the script's unit.
func micros(d time.Duration) int64 {
	return int64((d + time.Microsecond - 1) / time.Microsecond)
}
