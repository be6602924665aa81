package enforcer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/internal/fields"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/ratelimit"
)

type requestIDKey struct{}

// recordingStore answers from inner, or at random in small ranges, failing
// some calls after filling their results, and records per request what it
// answered.
type recordingStore struct {
	inner  ratelimit.Store
	random bool
	mu     sync.Mutex
	rng    *rand.Rand
	calls  map[string][]storeCall // in order: a bound route calls twice
}

type storeCall struct {
	limits []ratelimit.Limit
	res    []ratelimit.Result
	failed bool
}

var errFlaky = errors.New("store failed mid-request")

func (s *recordingStore) Allow(ctx context.Context, limits []ratelimit.Limit, res []ratelimit.Result) error {
	var err error
	s.mu.Lock()
	if s.random {
		for i := range res[:len(limits)] {
			res[i] = ratelimit.Result{Allowed: s.rng.IntN(6) > 0, Limit: limits[i].Rate, Remaining: s.rng.IntN(4) - 1,
				Reset: time.Duration(s.rng.IntN(4)) * time.Second, RetryAfter: time.Duration(s.rng.IntN(3)) * time.Second}
		}
		if s.rng.IntN(10) == 0 {
			err = errFlaky // results filled, then a failure
		}
	}
	s.mu.Unlock()
	if !s.random {
		err = s.inner.Allow(ctx, limits, res)
	}
	id, _ := ctx.Value(requestIDKey{}).(string)
	s.mu.Lock()
	s.calls[id] = append(s.calls[id], storeCall{slices.Clone(limits), slices.Clone(res[:len(limits)]), err != nil})
	s.mu.Unlock()
	return err
}

// TestRateLimitValueInvariant holds every response, from goroutines at
// once, to the rendering of the results the store gave its own request
// (fields' tests hold the rendering to their reference): routes whose limits are the pipeline's, a bound capability's
// alone (bind.go, complete), none; two agent policies whose limits give the same
// numbers under other names; 429s; and a store that fails after filling
// its results, whose results no response carries: its request gets 503,
// with the RateLimit of the call before it on a bound route (Wrap's, whose
// tokens were taken) or none.
func TestRateLimitValueInvariant(t *testing.T) {
	for _, random := range []bool{false, true} {
		t.Run(fmt.Sprint("random=", random), func(t *testing.T) { rateLimitInvariant(t, random) })
	}
}

func rateLimitInvariant(t *testing.T, random bool) {
	site := fixtures.OutdoorSupply()
	site.RateLimit = config.PerMinute(50)
	site.Capabilities[0].RateLimit = config.PerMinute(10)
	site.Agents[1].RateLimit = config.PerMinute(20)
	site.Agents = append(site.Agents, config.AgentPolicy{Name: "gptbot", RateLimit: config.PerMinute(20), Capabilities: []string{"product-search"}})
	p, err := policy.Compile(&site)
	if err != nil {
		t.Fatal(err)
	}
	clock := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	mem, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	st := &recordingStore{inner: mem, random: random, rng: rand.New(rand.NewPCG(1, 2)), calls: map[string][]storeCall{}}
	ip, err := clientip.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Policy: p, Store: st, ClientIP: ip, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	mux := http.NewServeMux()
	mux.Handle("/api/search", ok)
	mux.Handle("/api/bound", e.Capability("product-search", false)(ok))
	mux.Handle("/", ok)
	h := e.Wrap(mux)
	uas := []string{"claude/1.0 (+https://anthropic.com)", "gptbot/1.0", "SomeBot/2.0 (+https://x.example/bot)"}
	paths := []string{"/api/search?q=a", "/api/bound?q=a", "/api/other", "/mcp"}
	const workers = 4
	var checked, failed [workers]int
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for i := range 2000 {
				id := fmt.Sprintf("%d-%d", g, i)
				r := httptest.NewRequest("GET", paths[rng.IntN(len(paths))], nil)
				r.Header.Set("User-Agent", uas[rng.IntN(len(uas))])
				r.RemoteAddr = fmt.Sprintf("10.%d.0.%d:1", g, rng.IntN(20))
				r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if g == 0 && i%10 == 0 {
					clock.Advance(time.Duration(rng.IntN(3000)) * time.Millisecond)
				}
				got, has := w.Header()["Ratelimit"]
				st.mu.Lock()
				calls := st.calls[id]
				st.mu.Unlock()
				if len(calls) > 0 && calls[len(calls)-1].failed {
					failed[g]++
					if w.Code != http.StatusServiceUnavailable {
						t.Errorf("%s: the store failed; status %d", id, w.Code)
					}
					calls = calls[:len(calls)-1] // only an earlier call may speak
					if len(calls) == 0 || calls[len(calls)-1].failed {
						if has {
							t.Errorf("%s: the store failed; RateLimit %q", id, got)
						}
						continue
					}
				}
				if !has {
					continue
				}
				if len(calls) == 0 {
					t.Errorf("%s: RateLimit %q with no store call", id, got)
					continue
				}
				call := calls[len(calls)-1]
				// The rendering of what the store answered this request
				// (fields' tests hold it to their reference rendering).
				want := fields.NewRateLimitField(call.limits).Value(call.limits, call.res)
				if len(got) != 1 || got[0] != want {
					t.Errorf("%s: status %d, RateLimit %q, want [%q]", id, w.Code, got, want)
				}
				checked[g]++
			}
		})
	}
	wg.Wait()
	var c, f int
	for g := range workers {
		c, f = c+checked[g], f+failed[g]
	}
	if c < 1000 || random != (f > 0) {
		t.Errorf("%d values checked, %d store failures: the test did not exercise the pipeline", c, f)
	}
}
