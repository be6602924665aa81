package redisstore_test

import (
	"context"
	"net/netip"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
)

// BenchmarkRedis compares one request's cost with three limits (site,
// agent, capability: one script call) against one plain redis_rate
// Allow on one key, in the same run and on the same server, serially and
// with 32 goroutines. Compare them with benchstat:
//
//	go test ./redisstore -run '^$' -bench 'Redis$' -count 10 > redis.txt
//	benchstat -col /op redis.txt
//
// The limits are high, so every request is allowed and written: the
// costly path.
func BenchmarkRedis(b *testing.B) {
	srv := redistest.Start(b)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr, PoolSize: 64, ContextTimeoutEnabled: true})
	b.Cleanup(func() { _ = client.Close() })
	prefix := redistest.Prefix(b)
	store, err := redisstore.NewLimitStore(client, redisstore.WithKeyPrefix(prefix))
	if err != nil {
		b.Fatal(err)
	}
	failover, err := ratelimit.NewFailover(store, ratelimit.FailoverConfig{})
	if err != nil {
		b.Fatal(err)
	}
	limiter := redis_rate.NewLimiter(client)
	high := redis_rate.Limit{Rate: 1 << 30, Burst: 1 << 30, Period: time.Hour}
	rrKey := prefix + "redis_rate"

	// Each goroutine is its own client, as requests from many agents are.
	var clients atomic.Uint32
	limitsFor := func() []ratelimit.Limit {
		n := clients.Add(1)
		k := ratelimit.Key{Net: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(n >> 8), byte(n)}), 32)}
		return []ratelimit.Limit{
			{Name: "site", Key: k, Rate: 1 << 30, Period: time.Hour},
			{Name: "agent:claude", Key: k, Rate: 1 << 29, Period: time.Hour},
			{Name: "capability:product-search", Key: ratelimit.Key{Net: k.Net, ID: "claude"}, Rate: 1 << 28, Period: time.Minute},
		}
	}
	ops := []struct {
		name string
		new  func() func(ctx context.Context) error
	}{
		{"op=redis_rate-Allow-1key", func() func(context.Context) error {
			return func(ctx context.Context) error {
				_, err := limiter.Allow(ctx, rrKey, high)
				return err
			}
		}},
		{"op=store-3-limits", func() func(context.Context) error {
			limits, res := limitsFor(), make([]ratelimit.Result, 3)
			return func(ctx context.Context) error { return store.Allow(ctx, limits, res) }
		}},
		{"op=failover-3-limits", func() func(context.Context) error {
			limits, res := limitsFor(), make([]ratelimit.Result, 3)
			return func(ctx context.Context) error { return failover.Allow(ctx, limits, res) }
		}},
	}
	ctx := context.Background()
	for _, op := range ops {
		// Warm up: the script is loaded, connections are open.
		if err := op.new()(ctx); err != nil {
			b.Fatal(err)
		}
	}
	for _, mode := range []string{"serial", "parallel-32"} {
		for _, op := range ops {
			b.Run(mode+"/"+op.name, func(b *testing.B) {
				b.ReportAllocs()
				if mode == "serial" {
					call := op.new()
					for b.Loop() {
						if err := call(ctx); err != nil {
							b.Fatal(err)
						}
					}
					return
				}
				// RunParallel starts SetParallelism(p) * GOMAXPROCS
				// goroutines: 32 on any machine whose GOMAXPROCS divides 32.
				b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0)))
				b.RunParallel(func(pb *testing.PB) {
					call := op.new()
					for pb.Next() {
						if err := call(ctx); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}
