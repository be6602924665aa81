package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/ratelimit/ratelimittest"
	"github.com/agentready/agentready/redisstore"
)

// newRedisStore returns a limit store under prefix on c.
func newRedisStore(t testing.TB, c redis.UniversalClient, prefix string) ratelimit.Peeker {
	t.Helper()
	s, err := redisstore.NewLimitStore(c, redisstore.WithKeyPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	return s.(ratelimit.Peeker)
}

// The Redis store on a real redis-server and its clock: every subtest gets
// its own key prefix, so it starts with no buckets.
func TestRedisStoreConformance(t *testing.T) {
	srv := redistest.Start(t)
	c := redisClient(t, srv)
	ratelimittest.Run(t, ratelimittest.Harness{
		New: func(t *testing.T) ratelimit.Store {
			return newRedisStore(t, c, redistest.Prefix(t))
		},
		Advance:   func(_ *testing.T, d time.Duration) { time.Sleep(d) },
		Period:    500 * time.Millisecond,
		Tolerance: 50 * time.Millisecond,
	})
}

// keys lists the keys under prefix.
func keys(t *testing.T, c *redis.Client, prefix string) []string {
	t.Helper()
	ks, err := c.Keys(context.Background(), prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ks)
	return ks
}

// fields lists the buckets stored under key, with their key's deadline
// entry "", decoded by Redis's own cmsgpack.
func fields(t *testing.T, c *redis.Client, key string) []string {
	t.Helper()
	v, err := c.Eval(context.Background(), `
local m = cmsgpack.unpack(redis.call('GET', KEYS[1]))
local ks = {}
for k in pairs(m) do ks[#ks+1] = k end
return ks`, []string{key}).StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(v)
	return v
}

func TestRedisStoreKeys(t *testing.T) {
	srv := redistest.Start(t)
	c := redisClient(t, srv)
	prefix := redistest.Prefix(t)
	net4 := netip.MustParsePrefix("192.0.2.1/32")
	net6 := netip.MustParsePrefix("2001:db8::/64")
	for _, tc := range []struct {
		name   string
		limits []ratelimit.Limit
		want   map[string][]string // key (after the prefix) -> fields
	}{
		{
			"one client's site, agent and capability buckets are one key",
			[]ratelimit.Limit{
				{Name: "site", Key: ratelimit.Key{Net: net4}, Rate: 10, Period: time.Hour},
				{Name: "agent:claude", Key: ratelimit.Key{Net: net4}, Rate: 10, Period: time.Hour},
				{Name: "capability:product-search", Key: ratelimit.Key{Net: net4, ID: "claude"}, Rate: 10, Period: time.Hour},
			},
			map[string][]string{"{192.0.2.1/32}": {"", "agent:claude|", "capability:product-search|claude", "site|"}},
		},
		{
			"IPv6 network",
			[]ratelimit.Limit{{Name: "site", Key: ratelimit.Key{Net: net6}, Rate: 10, Period: time.Hour}},
			map[string][]string{"{2001:db8::/64}": {"", "site|"}},
		},
		{
			"credential key: the ID is the tag",
			[]ratelimit.Limit{
				{Name: "site", Key: ratelimit.Key{ID: "key-123"}, Rate: 10, Period: time.Hour},
				{Name: "agent:claude", Key: ratelimit.Key{ID: "key-123"}, Rate: 10, Period: time.Hour},
			},
			map[string][]string{"{id:key-123}": {"", "agent:claude", "site"}},
		},
		{
			"shared bucket",
			[]ratelimit.Limit{{Name: "site", Rate: 10, Period: time.Hour}},
			map[string][]string{"{id:}": {"", "site"}},
		},
		{
			"two clients in one call: two keys",
			[]ratelimit.Limit{
				{Name: "a|b", Key: ratelimit.Key{ID: `x}y\z`}, Rate: 10, Period: time.Hour},
				{Name: "n", Key: ratelimit.Key{Net: net4, ID: "p|q"}, Rate: 10, Period: time.Hour},
			},
			map[string][]string{`{id:x\}y\\z}`: {"", `a\|b`}, "{192.0.2.1/32}": {"", `n|p\|q`}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := prefix + strings.ReplaceAll(tc.name, " ", "_") + ":"
			s := newRedisStore(t, c, p)
			res := make([]ratelimit.Result, len(tc.limits))
			if err := s.Allow(context.Background(), tc.limits, res); err != nil {
				t.Fatal(err)
			}
			var want []string
			for k := range tc.want {
				want = append(want, p+k)
			}
			slices.Sort(want)
			got := keys(t, c, p)
			if !slices.Equal(got, want) {
				t.Fatalf("keys:\n got %q\nwant %q", got, want)
			}
			for k, wantFields := range tc.want {
				if got := fields(t, c, p+k); !slices.Equal(got, wantFields) {
					t.Errorf("fields of %s: %q, want %q", k, got, wantFields)
				}
			}
		})
	}
}

// A key expires once every bucket in it has refilled, give or take a
// period: idle clients cost Redis nothing.
func TestRedisStoreKeysExpire(t *testing.T) {
	srv := redistest.Start(t)
	c := redisClient(t, srv)
	prefix := redistest.Prefix(t)
	s := newRedisStore(t, c, prefix)
	l := []ratelimit.Limit{{Name: "site", Key: ratelimit.Key{ID: "x"}, Rate: 3, Period: 300 * time.Millisecond}}
	res := make([]ratelimit.Result, 1)
	for range 2 {
		if err := s.Allow(context.Background(), l, res); err != nil {
			t.Fatal(err)
		}
	}
	ttl, err := c.PTTL(context.Background(), prefix+"{id:x}").Result()
	if err != nil {
		t.Fatal(err)
	}
	// The deadline is set to two periods ahead when a request needs it.
	if ttl <= 400*time.Millisecond || ttl > 601*time.Millisecond {
		t.Errorf("TTL = %v, want about 600ms", ttl)
	}
	deadline := time.Now().Add(3 * time.Second)
	for len(keys(t, c, prefix)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("keys still there after 3s: %q", keys(t, c, prefix))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The key outlives its longest bucket even when later calls touch only a
// short one (a Capability binding counts the capability's limit alone).
func TestRedisStoreExpiryCoversEveryBucket(t *testing.T) {
	srv := redistest.Start(t)
	c := redisClient(t, srv)
	prefix := redistest.Prefix(t)
	s := newRedisStore(t, c, prefix)
	k := ratelimit.Key{Net: netip.MustParsePrefix("203.0.113.5/32")}
	site := ratelimit.Limit{Name: "site", Key: k, Rate: 2, Period: 24 * time.Hour}
	capability := ratelimit.Limit{Name: "capability:x", Key: ratelimit.Key{Net: k.Net, ID: "claude"}, Rate: 1000, Period: 200 * time.Millisecond}
	both := []ratelimit.Limit{site, capability}
	res := make([]ratelimit.Result, 2)
	if err := s.Allow(context.Background(), both, res); err != nil || !ratelimit.Allowed(res) {
		t.Fatalf("first: %v %+v", err, res)
	}
	for range 50 {
		if err := s.Allow(context.Background(), both[1:], res); err != nil {
			t.Fatal(err)
		}
	}
	ttl, err := c.PTTL(context.Background(), prefix+"{203.0.113.5/32}").Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl < 12*time.Hour {
		t.Errorf("TTL %v: shorter than the site bucket's 12h debt", ttl)
	}
	if err := s.Allow(context.Background(), both, res); err != nil || !res[0].Allowed || res[0].Remaining != 0 {
		t.Fatalf("second: %v %+v, want the site's last token", err, res)
	}
	if err := s.Allow(context.Background(), both, res); err != nil || res[0].Allowed {
		t.Fatalf("third: %v %+v, want the site limit to deny", err, res)
	}
}

// Data under the prefix that is not the store's (another program, an older
// format) counts as no buckets, and is replaced.
func TestRedisStoreForeignValue(t *testing.T) {
	srv := redistest.Start(t)
	c := redisClient(t, srv)
	prefix := redistest.Prefix(t)
	s := newRedisStore(t, c, prefix)
	for _, v := range []string{"garbage", "12345.5", "\x93\x01\x02\x03"} {
		if err := c.Set(context.Background(), prefix+"{id:f}", v, 0).Err(); err != nil {
			t.Fatal(err)
		}
		res := make([]ratelimit.Result, 1)
		l := []ratelimit.Limit{{Name: "site", Key: ratelimit.Key{ID: "f"}, Rate: 5, Period: time.Hour}}
		if err := s.Allow(context.Background(), l, res); err != nil || !res[0].Allowed || res[0].Remaining != 4 {
			t.Errorf("over %q: %v %+v, want a fresh bucket", v, err, res)
		}
		if got := fields(t, c, prefix+"{id:f}"); !slices.Equal(got, []string{"", "site"}) {
			t.Errorf("fields after %q: %q", v, got)
		}
	}
}

// The store's script is redis_rate's arithmetic: the same requests against
// a redis_rate Limiter and the store report the same Remaining, and the
// same RetryAfter and Reset up to the time between the two calls.
func TestRedisStoreMatchesRedisRate(t *testing.T) {
	srv := redistest.Start(t)
	c := redisClient(t, srv)
	prefix := redistest.Prefix(t)
	s := newRedisStore(t, c, prefix)
	rl := redis_rate.NewLimiter(c)
	for _, tc := range []struct {
		rate   int
		period time.Duration
	}{{5, time.Hour}, {3, time.Minute}, {7, 24 * time.Hour}, {1, time.Second * 10}} {
		t.Run(fmt.Sprintf("%d per %v", tc.rate, tc.period), func(t *testing.T) {
			key := prefix + t.Name()
			l := []ratelimit.Limit{{Name: "x", Key: ratelimit.Key{ID: key}, Rate: tc.rate, Period: tc.period}}
			res := make([]ratelimit.Result, 1)
			lim := redis_rate.Limit{Rate: tc.rate, Burst: tc.rate, Period: tc.period}
			for i := range tc.rate + 3 {
				// Exact: a fresh bucket's burst counts down rate-1..0.
				wantRem := max(tc.rate-1-i, 0)
				want, err := rl.Allow(context.Background(), key, lim)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Allow(context.Background(), l, res); err != nil {
					t.Fatal(err)
				}
				got := res[0]
				if got.Allowed != (i < tc.rate) || got.Remaining != wantRem {
					t.Errorf("request %d: Allowed=%v Remaining=%d, want %v %d", i+1, got.Allowed, got.Remaining, i < tc.rate, wantRem)
				}
				// redis_rate keeps float seconds and truncates: 5.9999 tokens
				// are 5 there, 6 here.
				if got.Allowed != (want.Allowed == 1) || (got.Remaining != want.Remaining && got.Remaining != want.Remaining+1) {
					t.Errorf("request %d: store Allowed=%v Remaining=%d, redis_rate Allowed=%d Remaining=%d",
						i+1, got.Allowed, got.Remaining, want.Allowed, want.Remaining)
				}
				wantRetry := want.RetryAfter
				if wantRetry < 0 {
					wantRetry = 0 // redis_rate's "allowed"
				}
				if d := got.RetryAfter - wantRetry; d < -20*time.Millisecond || d > 20*time.Millisecond {
					t.Errorf("request %d: RetryAfter %v, redis_rate %v", i+1, got.RetryAfter, want.RetryAfter)
				}
				if d := got.Reset - want.ResetAfter; d < -20*time.Millisecond || d > 20*time.Millisecond {
					t.Errorf("request %d: Reset %v, redis_rate ResetAfter %v", i+1, got.Reset, want.ResetAfter)
				}
			}
		})
	}
}

// All or nothing with the enforcer's three limits, in one round trip: a
// request the capability limit denies takes nothing from the site and
// agent buckets, which is visible in Redis itself.
func TestRedisStoreThreeLimitsOneRoundTrip(t *testing.T) {
	srv := redistest.Start(t)
	c := redisClient(t, srv)
	prefix := redistest.Prefix(t)
	s := newRedisStore(t, c, prefix)
	var calls countHook
	c.AddHook(&calls)
	insp := redisClient(t, srv) // reads Redis without being counted
	net4 := netip.MustParsePrefix("198.51.100.7/32")
	limits := []ratelimit.Limit{
		{Name: "site", Key: ratelimit.Key{Net: net4}, Rate: 10, Period: time.Hour},
		{Name: "agent:claude", Key: ratelimit.Key{Net: net4}, Rate: 5, Period: time.Hour},
		{Name: "capability:search", Key: ratelimit.Key{Net: net4, ID: "claude"}, Rate: 2, Period: time.Hour},
	}
	res := make([]ratelimit.Result, 3)
	for i := range 2 {
		if err := s.Allow(context.Background(), limits, res); err != nil {
			t.Fatal(err)
		}
		if !ratelimit.Allowed(res) {
			t.Fatalf("request %d denied: %+v", i+1, res)
		}
	}
	before, _ := insp.Get(context.Background(), prefix+"{198.51.100.7/32}").Result()
	for range 5 {
		if err := s.Allow(context.Background(), limits, res); err != nil {
			t.Fatal(err)
		}
		if ratelimit.Allowed(res) || res[2].Allowed || !res[0].Allowed || !res[1].Allowed {
			t.Fatalf("over the capability limit: %+v", res)
		}
		if res[0].Remaining != 8 || res[1].Remaining != 3 {
			t.Errorf("site/agent Remaining = %d/%d, want 8/3 (untouched)", res[0].Remaining, res[1].Remaining)
		}
	}
	if got, _ := insp.Get(context.Background(), prefix+"{198.51.100.7/32}").Result(); got != before || before == "" {
		t.Errorf("denied requests wrote to Redis: %q -> %q", before, got)
	}
	// 7 calls, 7 EVALSHA: one round trip each. On a fresh server the first
	// got NOSCRIPT and go-redis sent the script with EVAL. (The
	// connection's handshake, HELLO and CLIENT, is not counted.)
	n := calls.counts()
	delete(n, "hello")
	delete(n, "client")
	if n["eval"] <= 1 {
		delete(n, "eval")
	}
	if want := map[string]int{"evalsha": 7}; !maps.Equal(n, want) {
		t.Errorf("commands for 7 calls: %v, want %v (and at most one EVAL)", n, want)
	}
}

// A Cluster or Ring client cannot run one script over several slots: a
// call mixing clients is refused before it reaches Redis.
func TestRedisStoreCrossSlot(t *testing.T) {
	srv := redistest.Start(t)
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": srv.Addr}, ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = ring.Close() })
	s := newRedisStore(t, ring, redistest.Prefix(t))
	a := ratelimit.Key{Net: netip.MustParsePrefix("192.0.2.1/32")}
	b := ratelimit.Key{Net: netip.MustParsePrefix("192.0.2.2/32")}
	res := make([]ratelimit.Result, 2)
	err := s.Allow(context.Background(), []ratelimit.Limit{
		{Name: "site", Key: a, Rate: 1, Period: time.Hour},
		{Name: "site", Key: b, Rate: 1, Period: time.Hour},
	}, res)
	if !errors.Is(err, ratelimit.ErrInvalidLimit) || !strings.Contains(err.Error(), "different Redis slots") {
		t.Errorf("Allow across two clients = %v, want ErrInvalidLimit: different slots", err)
	}
	err = s.Allow(context.Background(), []ratelimit.Limit{
		{Name: "site", Key: a, Rate: 1, Period: time.Hour},
		{Name: "capability:x", Key: ratelimit.Key{Net: a.Net, ID: "claude"}, Rate: 1, Period: time.Hour},
	}, res)
	if err != nil || !ratelimit.Allowed(res) {
		t.Errorf("one client's limits on a Ring: %v %+v", err, res)
	}
}

func TestNewLimitStoreErrors(t *testing.T) {
	if _, err := redisstore.NewLimitStore(nil); err == nil {
		t.Error("nil client accepted")
	}
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer c.Close()
	for _, p := range []string{"a{b", "}", "{x}"} {
		if _, err := redisstore.NewLimitStore(c, redisstore.WithKeyPrefix(p)); err == nil {
			t.Errorf("prefix %q accepted", p)
		}
	}
	_, err := redisstore.NewLimitStore(nil, redisstore.WithKeyPrefix("{"))
	if err == nil || !strings.Contains(err.Error(), "nil client") || !strings.Contains(err.Error(), "hash tag") {
		t.Errorf("errors not all reported: %v", err)
	}
	plain := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer plain.Close()
	if _, err := redisstore.NewLimitStore(plain); err == nil || !strings.Contains(err.Error(), "ContextTimeoutEnabled") {
		t.Errorf("a client that ignores deadlines: %v, want an error naming ContextTimeoutEnabled", err)
	}
	s, err := redisstore.NewLimitStore(c)
	if err != nil {
		t.Fatal(err)
	}
	res := make([]ratelimit.Result, 1)
	err = s.Allow(context.Background(), []ratelimit.Limit{{Name: "x", Rate: 1 << 50, Period: time.Hour}}, res)
	if !errors.Is(err, ratelimit.ErrInvalidLimit) {
		t.Errorf("huge rate: %v, want ErrInvalidLimit", err)
	}
}

// countHook counts the commands a client sends, pipelined or not, by
// name.
type countHook struct {
	mu sync.Mutex
	n  map[string]int
}

func (h *countHook) add(cmds ...redis.Cmder) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == nil {
		h.n = map[string]int{}
	}
	for _, c := range cmds {
		h.n[c.Name()]++
	}
}

func (h *countHook) counts() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.n)
}

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.add(cmd)
		return next(ctx, cmd)
	}
}

func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.add(cmds...)
		return next(ctx, cmds)
	}
}

// The store tells a Failover its client's pool size, so that a burst
// queues before the pool (FailoverConfig.MaxConcurrent).
func TestLimitStoreMaxConcurrent(t *testing.T) {
	for _, tc := range []struct {
		client redis.UniversalClient
		want   int
	}{
		{redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", PoolSize: 7, ContextTimeoutEnabled: true}), 7},
		{redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}, PoolSize: 5, ContextTimeoutEnabled: true}), 5},
		{redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true}), 10 * runtime.GOMAXPROCS(0)}, // go-redis's default
	} {
		s, err := redisstore.NewLimitStore(tc.client)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.(interface{ MaxConcurrent() int }).MaxConcurrent(); got != tc.want {
			t.Errorf("%T: MaxConcurrent = %d, want %d", tc.client, got, tc.want)
		}
		_ = tc.client.Close()
	}
}
