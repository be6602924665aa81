package e2e_test

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/logbuf"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/internal/testing/testtools"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
)

// Replicas of one site behind one Redis, end to end: two Middlewares, two
// httptest servers, one redis-server (a real one: internal/testing/redistest).

// replicaUA is the declared claude agent of the Outdoor Supply fixture.
const replicaUA = "claude/1.0 (+https://anthropic.com)"

// replicaLimit is product-search's limit in these tests: small enough to
// exhaust, per hour so that nothing refills during a test.
const replicaLimit = 4

type replica struct {
	name  string
	srv   *httptest.Server
	store ratelimit.Store
	log   *logbuf.Buffer

	mu        sync.Mutex
	decisions []enforce.Decision
	events    []ratelimit.FailoverEvent
}

func (r *replica) last() enforce.Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.decisions[len(r.decisions)-1]
}

func (r *replica) eventCounts() (down, up int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.Down {
			down++
		} else {
			up++
		}
	}
	return down, up
}

// replicaConfig says how a replica reaches Redis.
type replicaConfig struct {
	addr, prefix string
	failover     *ratelimit.FailoverConfig // nil: a bare RedisStore
}

// newReplica serves the Outdoor Supply site with its product-search limit
// lowered to replicaLimit per hour, on its own Redis client (as a separate
// process would have), trusting X-Forwarded-For from 127.0.0.1 so that a
// test picks each request's client.
func newReplica(t *testing.T, name string, cfg replicaConfig) *replica {
	t.Helper()
	r := &replica{name: name, log: &logbuf.Buffer{}}
	logger := slog.New(slog.NewTextHandler(r.log, nil))
	client := redis.NewClient(&redis.Options{Addr: cfg.addr, ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = client.Close() })
	rs, err := redisstore.NewLimitStore(client, redisstore.WithKeyPrefix(cfg.prefix))
	if err != nil {
		t.Fatal(err)
	}
	r.store = rs
	if cfg.failover != nil {
		fc := *cfg.failover
		fc.Logger = logger
		fc.OnStateChange = func(e ratelimit.FailoverEvent) {
			r.mu.Lock()
			r.events = append(r.events, e)
			r.mu.Unlock()
		}
		if r.store, err = ratelimit.NewFailover(rs, fc); err != nil {
			t.Fatal(err)
		}
	}
	site := fixtures.OutdoorSupply()
	site.Capabilities[0].RateLimit = config.PerHour(replicaLimit)
	m, err := agentready.New(site,
		agentready.WithStore(r.store),
		agentready.WithClients(agentready.Clients{TrustedProxies: []string{"127.0.0.1/32"}}),
		agentready.WithLogger(logger),
		agentready.WithOnDecision(func(d enforce.Decision) {
			r.mu.Lock()
			r.decisions = append(r.decisions, d)
			r.mu.Unlock()
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	r.srv = httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "results from "+name)
	})))
	t.Cleanup(r.srv.Close)
	return r
}

type answer struct {
	status     int
	retryAfter string
	rateLimit  string
	took       time.Duration
}

// search sends one product search from client to r.
func search(t *testing.T, r *replica, client string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, r.srv.URL+"/api/search?q=tent", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", replicaUA)
	req.Header.Set("X-Forwarded-For", client)
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	return answer{res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("RateLimit"), time.Since(start)}
}

// Two replicas, one Redis: the site's limit is N in total, whichever
// replica serves the requests, then 429 from either.
func TestRedisReplicasShareOneLimit(t *testing.T) {
	srv := redistest.Start(t)
	for _, tc := range []struct {
		name     string
		failover *ratelimit.FailoverConfig
	}{
		{"RedisStore", nil},
		{"Failover over RedisStore", &ratelimit.FailoverConfig{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := replicaConfig{addr: srv.Addr, prefix: redistest.Prefix(t), failover: tc.failover}
			a, b := newReplica(t, "a", cfg), newReplica(t, "b", cfg)
			replicas := []*replica{a, b}
			const client = "203.0.113.10"
			for i := range replicaLimit {
				r := replicas[i%2]
				got := search(t, r, client)
				if got.status != http.StatusOK {
					t.Fatalf("request %d to %s: %d, want 200", i+1, r.name, got.status)
				}
				// The RateLimit header counts down across replicas.
				if want := "r=" + strconv.Itoa(replicaLimit-1-i); !strings.Contains(got.rateLimit, want) {
					t.Errorf("request %d to %s: RateLimit %q, want %s for product-search", i+1, r.name, got.rateLimit, want)
				}
				if d := r.last(); d.Degraded || d.Err != nil {
					t.Errorf("request %d: degraded decision %+v", i+1, d)
				}
			}
			for i, r := range []*replica{a, b, b, a} {
				got := search(t, r, client)
				if got.status != http.StatusTooManyRequests || got.retryAfter == "" {
					t.Errorf("request %d past the limit, to %s: %d Retry-After %q, want 429 with Retry-After", replicaLimit+i+1, r.name, got.status, got.retryAfter)
				}
				if d := r.last(); d.Outcome != enforce.DenyRate || d.Limit != "capability/product-search" {
					t.Errorf("decision: %v by %q", d.Outcome, d.Limit)
				}
			}
			// Another client has its own buckets.
			if got := search(t, b, "203.0.113.11"); got.status != http.StatusOK {
				t.Errorf("another client: %d", got.status)
			}
		})
	}
}

// Redis killed or hung mid-test, for each failure policy: requests are
// answered by the policy and never wait past the timeout, the decision
// hook sees each degraded answer, one log line marks the failure, and when
// Redis is back the replicas return to it on their own.
func TestRedisOutage(t *testing.T) {
	const (
		timeout = 100 * time.Millisecond
		// slack covers a loaded machine and the race detector; a request
		// stuck on Redis would take go-redis's own timeouts, seconds.
		slack = 400 * time.Millisecond
	)
	for _, mode := range []string{"killed", "hung"} {
		for _, policy := range []string{ratelimit.FallbackMemory, ratelimit.FailOpen, ratelimit.FailClosed} {
			t.Run(mode+"/"+policy, func(t *testing.T) {
				srv := redistest.StartLocal(t)
				cfg := replicaConfig{addr: srv.Addr, prefix: redistest.Prefix(t), failover: &ratelimit.FailoverConfig{
					Policy:     policy,
					Timeout:    timeout,
					MinBackoff: 50 * time.Millisecond,
					MaxBackoff: 200 * time.Millisecond,
				}}
				a, b := newReplica(t, "a", cfg), newReplica(t, "b", cfg)
				replicas := []*replica{a, b}
				for _, r := range replicas {
					if got := search(t, r, "198.51.100.1"); got.status != http.StatusOK || r.last().Degraded {
						t.Fatalf("healthy: %d %+v", got.status, r.last())
					}
				}

				if mode == "killed" {
					srv.Stop(t)
				} else {
					srv.Pause(t)
				}
				const outageClient = "198.51.100.2"
				for _, r := range replicas {
					for i := range replicaLimit + 2 {
						got := search(t, r, outageClient)
						if got.took > timeout+slack {
							t.Errorf("%s request %d took %v: the timeout is %v", r.name, i+1, got.took, timeout)
						}
						d := r.last()
						switch policy {
						case ratelimit.FallbackMemory:
							// Limited per replica: each admits the limit.
							want := http.StatusOK
							if i >= replicaLimit {
								want = http.StatusTooManyRequests
							}
							if got.status != want || !d.Degraded || !errors.Is(d.Err, ratelimit.ErrDegraded) {
								t.Errorf("%s request %d: %d degraded=%v err=%v, want %d from the fallback", r.name, i+1, got.status, d.Degraded, d.Err, want)
							}
						case ratelimit.FailOpen:
							if got.status != http.StatusOK || !d.Degraded || !errors.Is(d.Err, ratelimit.ErrDegraded) {
								t.Errorf("%s request %d: %d degraded=%v err=%v, want 200 degraded", r.name, i+1, got.status, d.Degraded, d.Err)
							}
						case ratelimit.FailClosed:
							if got.status != http.StatusServiceUnavailable || got.retryAfter == "" || got.retryAfter == "0" ||
								d.Outcome != enforce.StoreError || !errors.As(d.Err, new(*ratelimit.UnavailableError)) {
								t.Errorf("%s request %d: %d Retry-After %q %v err=%v, want 503 with Retry-After", r.name, i+1, got.status, got.retryAfter, d.Outcome, d.Err)
							}
						}
					}
					if n := r.log.Count("rate-limit store"); n != 1 {
						t.Errorf("%s: %d log lines about the store during the outage, want 1:\n%s", r.name, n, r.log)
					}
					if down, up := r.eventCounts(); down != 1 || up != 0 {
						t.Errorf("%s: state changes %d down, %d up; want 1, 0", r.name, down, up)
					}
				}

				if mode == "killed" {
					srv.Restart(t)
				} else {
					srv.Resume(t)
				}
				for _, r := range replicas {
					deadline := time.Now().Add(10 * time.Second)
					for {
						got := search(t, r, "198.51.100.3")
						if got.took > timeout+slack {
							t.Errorf("%s: a request took %v while Redis came back", r.name, got.took)
						}
						if d := r.last(); !d.Degraded && d.Outcome != enforce.StoreError {
							break
						}
						if time.Now().After(deadline) {
							t.Fatalf("%s: still degraded 10s after Redis came back", r.name)
						}
						time.Sleep(10 * time.Millisecond)
					}
					if n := r.log.Count("rate-limit store recovered"); n != 1 {
						t.Errorf("%s: %d recovery log lines, want 1:\n%s", r.name, n, r.log)
					}
					if down, up := r.eventCounts(); down != 1 || up != 1 {
						t.Errorf("%s: state changes %d down, %d up; want 1, 1", r.name, down, up)
					}
				}
				// Counted in Redis again: one limit across both replicas.
				const client = "198.51.100.4"
				for i := range replicaLimit {
					if got := search(t, replicas[i%2], client); got.status != http.StatusOK {
						t.Fatalf("after recovery, request %d: %d", i+1, got.status)
					}
				}
				for _, r := range replicas {
					if got := search(t, r, client); got.status != http.StatusTooManyRequests {
						t.Errorf("after recovery, %s past the shared limit: %d, want 429", r.name, got.status)
					}
					if d := r.last(); d.Degraded {
						t.Errorf("%s degraded after recovery: %v", r.name, d.Err)
					}
				}
			})
		}
	}
}

// The enforcer's own store errors (a store that is not a Failover) still
// answer 503 with Retry-After: 1 and are logged per request; a Failover's
// outage is logged once by the Failover.
func TestRedisUnreachableWithoutFailover(t *testing.T) {
	log := &logbuf.Buffer{}
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond, ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = client.Close() })
	rs, err := redisstore.NewLimitStore(client)
	if err != nil {
		t.Fatal(err)
	}
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithStore(rs), agentready.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(http.NotFoundHandler()))
	t.Cleanup(srv.Close)
	r := &replica{srv: srv}
	for i := range 2 {
		got := search(t, r, "")
		if got.status != http.StatusServiceUnavailable || got.retryAfter != "1" {
			t.Errorf("request %d: %d Retry-After %q, want 503 and 1", i+1, got.status, got.retryAfter)
		}
	}
	if n := log.Count("rate-limit store failed"); n != 2 {
		t.Errorf("%d log lines, want one per request without a Failover:\n%s", n, log)
	}
}

// A cold burst: 300 requests at once from one client, over two replicas
// that have never spoken to Redis (empty connection pools, script not
// loaded), five times. The limit holds across the site: exactly
// replicaLimit are served each time, and no decision is the fallback's.
// Calls beyond the pool size wait in the Failover's queue
// (FailoverConfig.MaxConcurrent), not inside the store timeout; before,
// requests waiting for a connection timed out and were counted in memory
// per replica: up to 60 served. The queue itself is tested with a fake
// primary in ratelimit (TestFailoverQueuesBeyondThePool). Here the store
// timeout is generous: the test is of counting across replicas, not of
// how fast this machine answers while CI runs every package's tests at
// once (with the 200ms default, a CI run saw round trips past it).
func TestRedisColdBurst(t *testing.T) {
	srv := redistest.Start(t)
	for round := range 5 {
		cfg := replicaConfig{addr: srv.Addr, prefix: redistest.Prefix(t) + strconv.Itoa(round) + ":", failover: &ratelimit.FailoverConfig{}}
		cfg.failover.Timeout = testtools.RaceSlowdown * 5 * time.Second
		cfg.failover.QueueTimeout = testtools.RaceSlowdown * 10 * time.Second
		replicas := []*replica{newReplica(t, "a", cfg), newReplica(t, "b", cfg)}
		const burst = 300
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			status = map[int]int{}
		)
		start, stop := make(chan struct{}), make(chan struct{})
		// A busy process: goroutines that compete for the CPU with the
		// burst, as a site's handlers do.
		var spinners sync.WaitGroup
		for range 2 * runtime.GOMAXPROCS(0) {
			spinners.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
						runtime.Gosched()
					}
				}
			})
		}
		for i := range burst {
			wg.Go(func() {
				<-start
				req, _ := http.NewRequest(http.MethodGet, replicas[i%2].srv.URL+"/api/search?q=tent", nil)
				req.Header.Set("User-Agent", replicaUA)
				req.Header.Set("X-Forwarded-For", "203.0.113.20")
				code := -1 // transport error
				if res, err := http.DefaultClient.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					_ = res.Body.Close()
					code = res.StatusCode
				}
				mu.Lock()
				status[code]++
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
		close(stop)
		spinners.Wait()
		var degraded []error
		for _, r := range replicas {
			r.mu.Lock()
			for _, d := range r.decisions {
				if d.Degraded {
					degraded = append(degraded, d.Err)
				}
			}
			r.mu.Unlock()
		}
		if status[http.StatusOK] != replicaLimit || status[http.StatusTooManyRequests] != burst-replicaLimit || len(degraded) != 0 {
			t.Errorf("round %d, cold burst of %d: statuses %v, %d degraded decisions (first: %v); want exactly %d served, the rest 429, none degraded",
				round, burst, status, len(degraded), errors.Join(degraded[:min(1, len(degraded))]...), replicaLimit)
		}
	}
}
