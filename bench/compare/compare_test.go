// Package compare benchmarks agentready beside the libraries a site would
// otherwise assemble, in one binary, so that every figure is a ratio to a
// peer measured in the same run (see run, which alternates rounds and
// prints the ratios with benchstat). It is a module of its own: the peers
// never become dependencies of the library.
package compare

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/httprate"
	"github.com/go-redis/redis_rate/v10"
	"github.com/gobwas/glob"
	"github.com/redis/go-redis/v9"
	"github.com/rs/cors"
	"github.com/temoto/robotstxt"
	"golang.org/x/time/rate"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
)

const (
	uaChrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	uaAgent  = "claude/1.0 (+https://anthropic.com)"
	huge     = 1 << 30 // limits no benchmark reaches
)

// site is draft-car Appendix A with limits no benchmark reaches.
func site() config.Site {
	return config.Site{
		Name: "Outdoor Supply Co.", URL: "https://outdoorsupply.example", Description: "Gear for outdoor adventures",
		Contact: "agents@outdoorsupply.example",
		Capabilities: []config.Capability{{
			ID: "product-search", Description: "Search the product catalog", Endpoint: "https://outdoorsupply.example/api/search",
			Method: "GET", Protocol: config.ProtocolREST, RateLimit: config.PerSecond(huge),
		}},
		Access: config.Access{Allow: []string{"/api/*"}, Disallow: []string{"/admin/*"}},
		Agents: []config.AgentPolicy{{Name: "*"}, {Name: "claude", RateLimit: config.PerSecond(huge)}},
	}
}

var nop = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

// writer is a ResponseWriter reused across iterations, its headers cleared
// as net/http hands each response a new map.
type writer struct{ h http.Header }

func (w *writer) Header() http.Header         { return w.h }
func (w *writer) Write(b []byte) (int, error) { return len(b), nil }
func (w *writer) WriteHeader(int)             {}

func serve(b *testing.B, h http.Handler, r *http.Request) {
	w := &writer{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, r)
	}
}

// BenchmarkPipeline: an agent held to two limits, and a browser, through
// agentready, and through rs/cors with two go-chi/httprate limiters (what
// a site would chain for CORS and two limits, per client address). In
// agent-two-limits the client's buckets refill between requests, so its
// RateLimit value repeats and agentready shares it; in
// agent-two-limits-busy one limit is a daily one that every request draws
// down, so that the value is new each time.
func BenchmarkPipeline(b *testing.B) {
	handlers := func(agent config.Rate) (ours, peer http.Handler) {
		s := site()
		s.Agents[1].RateLimit = agent
		m, err := agentready.New(s)
		if err != nil {
			b.Fatal(err)
		}
		return m.Handler(nop), cors.New(cors.Options{}).Handler(
			httprate.LimitByIP(huge, agent.Period())(httprate.LimitByIP(huge, time.Second)(nop)))
	}
	for _, c := range []struct {
		name, ua string
		agent    config.Rate
	}{
		{"agent-two-limits", uaAgent, config.PerSecond(huge)},
		{"agent-two-limits-busy", uaAgent, config.PerDay(huge)},
		{"browser", uaChrome, config.PerSecond(huge)},
	} {
		ours, peer := handlers(c.agent)
		r := httptest.NewRequest("GET", "/api/search?q=tent", nil)
		r.Header.Set("User-Agent", c.ua)
		b.Run("case="+c.name+"/impl=agentready", func(b *testing.B) { serve(b, ours, r) })
		b.Run("case="+c.name+"/impl=cors+httprate", func(b *testing.B) { serve(b, peer, r) })
	}
}

// mutexRate is the peer limiter: golang.org/x/time/rate limiters in a map
// under a mutex, one per key.
type mutexRate struct {
	mu sync.Mutex
	m  map[string]*rate.Limiter
}

func (s *mutexRate) allow(key string) bool {
	s.mu.Lock()
	l := s.m[key]
	if l == nil {
		l = rate.NewLimiter(rate.Limit(huge), huge)
		s.m[key] = l
	}
	s.mu.Unlock()
	return l.Allow()
}

// BenchmarkLimiter: one limit checked for 1024 clients in turn, on one
// core and on every core: ratelimit.MemoryStore against x/time/rate in a
// mutex map. Each gets its per-client input built beforehand: the peer its
// map key, agentready its Limit.
func BenchmarkLimiter(b *testing.B) {
	const keys = 1024
	var limits [keys][1]ratelimit.Limit
	var names [keys]string
	for i := range keys {
		net := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 32)
		limits[i][0] = ratelimit.Limit{Name: "site", Key: ratelimit.Key{Net: net}, Rate: huge, Period: time.Second}
		names[i] = net.String()
	}
	ctx := context.Background()
	for _, parallel := range []bool{false, true} {
		mode := "serial"
		if parallel {
			mode = "parallel"
		}
		ms, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("case=1024-keys-"+mode+"/impl=agentready", func(b *testing.B) {
			b.ReportAllocs()
			run(b, parallel, func(i int) {
				var res [1]ratelimit.Result
				_ = ms.Allow(ctx, limits[i%keys][:], res[:])
			})
		})
		mr := &mutexRate{m: map[string]*rate.Limiter{}}
		b.Run("case=1024-keys-"+mode+"/impl=x-time-rate", func(b *testing.B) {
			b.ReportAllocs()
			run(b, parallel, func(i int) { mr.allow(names[i%keys]) })
		})
	}
}

func run(b *testing.B, parallel bool, f func(int)) {
	if !parallel {
		for i := 0; b.Loop(); i++ {
			f(i)
		}
		return
	}
	var next sync.Mutex
	seq := 0
	b.RunParallel(func(pb *testing.PB) {
		next.Lock()
		i := seq * 7919
		seq++
		next.Unlock()
		for ; pb.Next(); i++ {
			f(i)
		}
	})
}

// BenchmarkRules: the decision for one path among N robots.txt rules:
// agentready's trie, gobwas/glob patterns tried in turn (longest match,
// as robots.txt precedence wants), and temoto/robotstxt.
func BenchmarkRules(b *testing.B) {
	for _, n := range []int{10, 1000} {
		var allow, disallow []string
		var robots bytes.Buffer
		robots.WriteString("User-agent: *\n")
		for i := range n {
			p := "/section" + strconv.Itoa(i) + "/*/page"
			if i%2 == 0 {
				allow = append(allow, p)
				fmt.Fprintf(&robots, "Allow: %s\n", p)
			} else {
				disallow = append(disallow, p)
				fmt.Fprintf(&robots, "Disallow: %s\n", p)
			}
		}
		path := "/section" + strconv.Itoa(n-1) + "/a/b/page"
		rules, err := policy.CompileRules(allow, disallow)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("case="+strconv.Itoa(n)+"-rules/impl=agentready", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rules.Match(path)
			}
		})
		type g struct {
			pat   *glob.Pattern
			len   int
			allow bool
		}
		var globs []g
		for i, p := range append(append([]string{}, allow...), disallow...) {
			globs = append(globs, g{glob.MustCompile(p + "*"), len(p), i < len(allow)})
		}
		b.Run("case="+strconv.Itoa(n)+"-rules/impl=gobwas-glob", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				best, bestLen := false, -1
				for _, x := range globs {
					if x.len > bestLen && x.pat.Match(path) {
						best, bestLen = x.allow, x.len
					}
				}
				_ = best
			}
		})
		rt, err := robotstxt.FromString(robots.String())
		if err != nil {
			b.Fatal(err)
		}
		grp := rt.FindGroup("FooBot")
		b.Run("case="+strconv.Itoa(n)+"-rules/impl=temoto-robotstxt", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				grp.Test(path)
			}
		})
	}
}

// BenchmarkDocument: agents.txt served by agentready (ETag, caching, CORS,
// conditional requests) and the same bytes by http.ServeContent.
func BenchmarkDocument(b *testing.B) {
	m, err := agentready.New(site())
	if err != nil {
		b.Fatal(err)
	}
	docs := m.Handler(http.NotFoundHandler()) // documents are served before anything else
	w := httptest.NewRecorder()
	docs.ServeHTTP(w, httptest.NewRequest("GET", "/.well-known/agents.txt", nil))
	body := w.Body.Bytes()
	modified := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	peer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		http.ServeContent(w, r, "agents.txt", modified, bytes.NewReader(body))
	})
	r := httptest.NewRequest("GET", "/.well-known/agents.txt", nil)
	b.Run("case=200/impl=agentready", func(b *testing.B) { serve(b, docs, r) })
	b.Run("case=200/impl=http-ServeContent", func(b *testing.B) { serve(b, peer, r) })
}

// BenchmarkRedis: the limits of one request on a local redis-server
// (started by the benchmark, or REDIS_ADDR): agentready's Redis store
// behind its Failover, as the middleware calls it, checking three limits
// (site, agent, capability) in one script call, against
// github.com/go-redis/redis_rate checking the same three limits (three
// Allow calls, its only way) and one limit (one Allow), on one client,
// serially and from 32 goroutines. Every request is allowed and written:
// the costly path.
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
	ctx := context.Background()
	k := ratelimit.Key{Net: netip.MustParsePrefix("192.0.2.1/32")}
	limits := []ratelimit.Limit{
		{Name: "site", Key: k, Rate: huge, Period: time.Hour},
		{Name: "agent:claude", Key: k, Rate: huge, Period: time.Hour},
		{Name: "capability:product-search", Key: ratelimit.Key{Net: k.Net, ID: "claude"}, Rate: huge, Period: time.Minute},
	}
	rrKeys := []string{prefix + "rr:site:192.0.2.1", prefix + "rr:agent:192.0.2.1", prefix + "rr:cap:192.0.2.1"}
	rrLimits := []redis_rate.Limit{
		{Rate: huge, Burst: huge, Period: time.Hour},
		{Rate: huge, Burst: huge, Period: time.Hour},
		{Rate: huge, Burst: huge, Period: time.Minute},
	}
	rr := func(n int) error {
		for j := range n {
			if _, err := limiter.Allow(ctx, rrKeys[j], rrLimits[j]); err != nil {
				return err
			}
		}
		return nil
	}
	cases := []struct {
		name string
		f    func() error
	}{
		{"3-limits/impl=agentready", func() error {
			var res [3]ratelimit.Result
			if err := failover.Allow(ctx, limits, res[:]); err != nil || !res[0].Allowed {
				return fmt.Errorf("failover: %v %+v", err, res[0])
			}
			return nil
		}},
		{"3-limits/impl=redis_rate", func() error { return rr(3) }},
		{"1-limit/impl=agentready", func() error {
			var res [1]ratelimit.Result
			if err := failover.Allow(ctx, limits[:1], res[:]); err != nil || !res[0].Allowed {
				return fmt.Errorf("failover: %v %+v", err, res[0])
			}
			return nil
		}},
		{"1-limit/impl=redis_rate", func() error { return rr(1) }},
	}
	for _, c := range cases {
		if err := c.f(); err != nil { // warm up: scripts loaded, connections open
			b.Fatal(err)
		}
	}
	for _, mode := range []string{"serial", "parallel"} {
		for _, c := range cases {
			name, impl, _ := strings.Cut(c.name, "/")
			b.Run("case=redis-"+name+"-"+mode+"/"+impl, func(b *testing.B) {
				if mode == "serial" {
					for b.Loop() {
						if err := c.f(); err != nil {
							b.Fatal(err)
						}
					}
					return
				}
				b.SetParallelism(16) // 32 goroutines on two cores: requests in flight, as a busy site has
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := c.f(); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}
