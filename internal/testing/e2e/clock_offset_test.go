package e2e_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/verify"
)

// clockOffsets are the clocks TestClockOffsets runs everything on: the
// real one, a year behind it and a year ahead.
var clockOffsets = []time.Duration{0, -365 * 24 * time.Hour, 365 * 24 * time.Hour}

// TestClockOffsets runs the stores and verifiers on a clock set a year
// behind and a year ahead of the real one (WithClock, and the clock
// options of the stores built outside New) and holds their outcomes to
// the real clock's: what the set clock says is all that decides, for
// signature windows, nonces in memory and on Redis, key directories,
// reverse DNS, rate-limit windows, sessions and their expiry, audit
// timestamps and the report's window. Every step is taken at a known
// point of the set clock; the outcomes name times relative to its start.
func TestClockOffsets(t *testing.T) {
	rs := redistest.Start(t)
	scenarios := []struct {
		name string
		run  func(t *testing.T, c *testclock.Clock, rc redis.UniversalClient) []string
	}{
		{"verification and limits in memory", func(t *testing.T, c *testclock.Clock, _ redis.UniversalClient) []string {
			return verificationOutcomes(t, c, nil, nil, true)
		}},
		{"verification and limits on Redis", func(t *testing.T, c *testclock.Clock, rc redis.UniversalClient) []string {
			prefix := redistest.Prefix(t)
			replays, err := redisstore.NewReplayCache(rc, redisstore.WithKeyPrefix(prefix))
			if err != nil {
				t.Fatal(err)
			}
			limits, err := redisstore.NewLimitStore(rc, redisstore.WithKeyPrefix(prefix+"limits:"))
			if err != nil {
				t.Fatal(err)
			}
			return verificationOutcomes(t, c, replays, limits, true)
		}},
		{"sessions and audit in memory", func(t *testing.T, c *testclock.Clock, _ redis.UniversalClient) []string {
			return sessionOutcomes(t, c, nil)
		}},
		{"sessions and audit on Redis", func(t *testing.T, c *testclock.Clock, rc redis.UniversalClient) []string {
			prefix := redistest.Prefix(t)
			ss, err := redisstore.NewSessionStore(rc, redisstore.WithKeyPrefix(prefix), redisstore.WithClock(c.Now))
			if err != nil {
				t.Fatal(err)
			}
			as, err := redisstore.NewAuditStore(rc, redisstore.WithKeyPrefix(prefix+"audit:"))
			if err != nil {
				t.Fatal(err)
			}
			return sessionOutcomes(t, c, []agentready.Option{agentready.WithSessions(ss), agentready.WithAudit(testAuditKey, as)})
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			var want []string
			for _, off := range clockOffsets {
				rc := redisClient(t, rs)
				c := testclock.New(time.Now().Add(off).Truncate(time.Second))
				got := sc.run(t, c, rc)
				if off == 0 {
					want = got
					if len(want) == 0 {
						t.Fatal("no outcomes")
					}
					continue
				}
				if !slices.Equal(got, want) {
					t.Errorf("clock %+v: outcomes differ from the real clock's\n got: %q\nwant: %q", off, got, want)
				}
			}
		})
	}
}

// clockDNS answers reverse DNS for one address with a name under
// clock.example, forward-confirmed, and counts the PTR lookups.
type clockDNS struct{ ptr atomic.Int32 }

const clockDNSAddr = "203.0.113.9"

func (d *clockDNS) LookupAddr(_ context.Context, addr string) ([]string, error) {
	d.ptr.Add(1)
	if addr == clockDNSAddr {
		return []string{"crawl-9.clock.example."}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
}

func (d *clockDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if strings.TrimSuffix(host, ".") == "crawl-9.clock.example" {
		return []netip.Addr{netip.MustParseAddr(clockDNSAddr)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// verificationOutcomes takes signed and reverse-DNS-proven requests
// through a Middleware on clock c (replays and limits: nil for the
// in-memory defaults) and says what became of each; strict holds the
// steps to the statuses a working clock gives.
func verificationOutcomes(t *testing.T, c *testclock.Clock, replays verify.ReplayCache, limits ratelimit.Store, strict bool) []string {
	a := newWBAAgentAt(t, c.Now, "max-age=600") // its proof and signatures on the set clock
	dns := &clockDNS{}
	site := fixtures.OutdoorSupply()
	site.Agents = append(site.Agents,
		config.AgentPolicy{Name: "ClockBot", RateLimit: config.PerMinute(3),
			Verify: config.Verification{Required: true, SignatureAgents: []string{a.dir.URL}}},
		config.AgentPolicy{Name: "DNSBot", RateLimit: config.PerMinute(30),
			Verify: config.Verification{Required: true, ReverseDNS: []string{"clock.example"}}})
	var last enforce.Decision
	opts := []agentready.Option{
		agentready.WithClock(c.Now),
		agentready.WithVerification(verify.Options{AllowHTTPLoopback: true, Replays: replays, Resolver: dns, DNSBudget: time.Minute}),
		agentready.WithOnDecision(func(d enforce.Decision) { last = d }),
		agentready.WithLogger(discardLogger()),
	}
	if limits != nil {
		opts = append(opts, agentready.WithStore(limits))
	}
	m, err := agentready.New(site, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := testhooks.Verifier(m).Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := m.Handler(app)
	authority := strings.TrimPrefix(site.URL, "https://")
	start := c.Now()
	var out []string
	do := func(step string, r *http.Request, want ...int) {
		t.Helper()
		last = enforce.Decision{}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if strict && len(want) > 0 && !slices.Contains(want, w.Code) {
			t.Errorf("%s: %d, want %v", step, w.Code, want)
		}
		out = append(out, fmt.Sprintf("%s at +%v: %d %s %s reason=%q rule=%q; directory fetched %d, PTR asked %d",
			step, c.Now().Sub(start), w.Code, last.Agent, last.Grade, last.Identity.Reason, last.Rule, a.hits.Load(), dns.ptr.Load()))
	}
	signed := func(nonce string, age time.Duration) *http.Request {
		r := httptest.NewRequest("GET", site.URL+"/api/search?q=tent", nil)
		r.RemoteAddr = "198.51.100.20:4000"
		r.Header.Set("User-Agent", "ClockBot/1.0")
		a.signAt(r, authority, `;nonce="`+nonce+`"`, c.Now().Add(age), time.Minute)
		return r
	}
	byDNS := func() *http.Request {
		r := httptest.NewRequest("GET", site.URL+"/api/search?q=tent", nil)
		r.RemoteAddr = clockDNSAddr + ":4000"
		r.Header.Set("User-Agent", "DNSBot/1.0")
		return r
	}
	first := signed("n1", 0)
	do("signed", first.Clone(context.Background()), 200)
	do("replayed at once", first.Clone(context.Background()), 429)
	c.Advance(10 * time.Second)
	do("signed again", signed("n2", 0))
	do("signed a third time", signed("n3", 0))
	do("over the limit", signed("n4", 0), 429)
	do("expired", signed("n5", -10*time.Minute), 403)
	do("created ahead", signed("n6", 10*time.Minute), 403)
	do("reverse DNS", byDNS(), 200)
	do("reverse DNS, cached", byDNS())
	c.Advance(2 * time.Minute)
	do("replayed once expired", first.Clone(context.Background()), 403)
	// In memory the window has passed; Redis counts on its own clock.
	do("signed after the window", signed("n7", 0), 200, 429)
	c.Advance(2 * time.Hour)
	do("signed, the directory stale", signed("n8", 0))
	do("reverse DNS, the cache expired", byDNS(), 200)
	if strict && (a.hits.Load() != 2 || dns.ptr.Load() != 2) {
		t.Errorf("two hours on: the directory fetched %d times, PTR asked %d times; want 2 and 2 (refetched once stale)", a.hits.Load(), dns.ptr.Load())
	}
	return out
}

// sessionOutcomes runs a v0.1.0 session through a Middleware on clock c
// (opts: the stores, nil for the in-memory defaults) and its report, and
// says what became of each step, with the artifact's timestamps relative
// to the clock's start.
func sessionOutcomes(t *testing.T, c *testclock.Clock, opts []agentready.Option) []string {
	rep := report.New(report.Options{Now: c.Now})
	opts = append([]agentready.Option{agentready.WithClock(c.Now), agentready.WithReport(rep), agentready.WithLogger(discardLogger())}, opts...)
	srv, _ := shopServer(t, opts...)
	base := srv.URL
	start := c.Now()
	rel := func(ts string) string {
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			return "bad time " + ts
		}
		return at.Sub(start).String()
	}
	var out []string
	token, id := createSession(t, base, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	c.Advance(10 * time.Minute)
	r := call(t, "GET", base+api+"search?q=mug", "", as...)
	out = append(out, fmt.Sprintf("search at +10m: %d", r.status))
	r = call(t, "GET", base+api+"cart", "", as...)
	out = append(out, fmt.Sprintf("the session's cart at +10m: %d", r.status))
	r = call(t, "GET", base+auditPath+id, "")
	out = append(out, fmt.Sprintf("artifact while active: %d Retry-After %s", r.status, r.header.Get("Retry-After")))
	c.Advance(time.Hour)
	r = call(t, "GET", base+api+"cart", "", as...)
	out = append(out, fmt.Sprintf("the session's cart past the TTL: %d", r.status))
	if r.status != http.StatusUnauthorized {
		t.Errorf("a session past its TTL still served: %d %s", r.status, r.raw)
	}
	a := artifact(t, base, id)
	out = append(out, fmt.Sprintf("artifact: created +%s, ended +%s", rel(a.CreatedAt), rel(a.EndedAt)))
	for _, e := range a.Events {
		out = append(out, fmt.Sprintf("event %s %s: %d at +%s", e.Capability, e.PolicyResult.Decision, e.ResponseStatus, rel(e.Timestamp)))
	}
	if a.Events[0].Timestamp != audit.FormatTime(start) {
		t.Errorf("the first event is at %s, the clock said %s", a.Events[0].Timestamp, audit.FormatTime(start))
	}
	s := reportJSON(t, rep)
	out = append(out, fmt.Sprintf("report: %d requests, %d allowed, %d denied, %d sessions opened, window to +%s",
		s.Total.Requests, s.Total.Allowed, s.Total.Denied, s.SessionsOpened, s.To.Sub(start)))
	c.Advance(2 * time.Hour)
	s = reportJSON(t, rep)
	out = append(out, fmt.Sprintf("report two hours on: %d requests", s.Total.Requests))
	return out
}

// TestClockOffsetsTell: the scenarios above tell a broken clock from a
// working one. A verifier whose nonces are judged by the real clock while
// its own is a year behind lets a replay through (the fault of issue 32),
// so the outcomes differ.
func TestClockOffsetsTell(t *testing.T) {
	c := testclock.New(time.Now().Add(-365 * 24 * time.Hour).Truncate(time.Second))
	got := verificationOutcomes(t, c, &wallClockReplays{}, nil, false)
	for _, line := range got {
		if strings.HasPrefix(line, "replayed at once") && strings.Contains(line, " 200 ") {
			return // the replay passed, as it must on a cache with a clock of its own
		}
	}
	t.Fatalf("a cache on the wall clock went unnoticed:\n%s", strings.Join(got, "\n"))
}

// wallClockReplays judges a nonce's life by the wall clock, whatever the
// verifier's says, as the in-memory cache did before issue 32.
type wallClockReplays struct{ seen sync.Map }

func (w *wallClockReplays) Seen(_ context.Context, key string, _, until time.Time) (bool, error) {
	if !until.After(time.Now()) {
		return false, nil
	}
	_, loaded := w.seen.LoadOrStore(key, until)
	return loaded, nil
}
