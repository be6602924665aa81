package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/verify"
)

// rangeListServer serves an operator range list holding prefixes, or 503
// while down.
func rangeListServer(t *testing.T, prefixes ...string) (url string, down *atomic.Bool) {
	t.Helper()
	down = new(atomic.Bool)
	var b strings.Builder
	b.WriteString(`{"creationTime":"2026-11-25T00:00:00","prefixes":[`)
	for i, p := range prefixes {
		if i > 0 {
			b.WriteByte(',')
		}
		key := "ipv4Prefix"
		if strings.Contains(p, ":") {
			key = "ipv6Prefix"
		}
		b.WriteString(`{"` + key + `":"` + p + `"}`)
	}
	b.WriteString(`]}`)
	body := b.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/bots.json", down
}

// verifiedSite is the Appendix A site with two verified-only policies,
// GPTBot and ClaudeBot, each proven by its own range list, and GPTBot
// granted more than "*".
func verifiedSite(gptList, claudeList string, fallBack bool) config.Site {
	site := fixtures.OutdoorSupply()
	site.Agents = append(site.Agents,
		config.AgentPolicy{Name: "GPTBot", RateLimit: config.PerMinute(500),
			Verify: config.Verification{Required: true, IPRanges: []string{gptList}, FallBack: fallBack}},
		config.AgentPolicy{Name: "ClaudeBot", RateLimit: config.PerMinute(400),
			Verify: config.Verification{Required: true, IPRanges: []string{claudeList}}},
	)
	return site
}

type decisions struct {
	mu   sync.Mutex
	seen []enforce.Decision
}

func (d *decisions) add(x enforce.Decision) { d.mu.Lock(); d.seen = append(d.seen, x); d.mu.Unlock() }
func (d *decisions) last(t *testing.T) enforce.Decision {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.seen) == 0 {
		t.Fatal("no decision")
	}
	return d.seen[len(d.seen)-1]
}

func verifiedServer(t *testing.T, site config.Site, load bool) (*httptest.Server, *decisions) {
	t.Helper()
	rec := &decisions{}
	m, err := agentready.New(site, agentready.WithVerification(verify.Options{AllowHTTPLoopback: true}),
		agentready.WithOnDecision(rec.add), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	if v := testhooks.Verifier(m); v == nil {
		t.Fatal("no Verifier for a site with verified-only policies")
	} else if load {
		if err := v.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(m.Handler(app))
	t.Cleanup(srv.Close)
	return srv, rec
}

// TestVerifiedByIPRange: a verified-only policy's grants go to a client in
// its operator's ranges and to no other; one operator's list does not
// vouch for another's agent; an upstream outage serves the claim under
// "*", never under the claimed policy.
func TestVerifiedByIPRange(t *testing.T) {
	inside, _ := rangeListServer(t, "127.0.0.0/8", "::1/128")
	outside, _ := rangeListServer(t, "192.0.2.0/24")

	t.Run("in the ranges: the policy's grants", func(t *testing.T) {
		srv, rec := verifiedServer(t, verifiedSite(inside, outside, false), true)
		res, _ := do(t, "GET", srv.URL+"/products", uaGPTBot)
		if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("RateLimit-Policy"), `"agent/GPTBot";q=500`) {
			t.Fatalf("%d, RateLimit-Policy %q: want GPTBot's limit", res.StatusCode, res.Header.Get("RateLimit-Policy"))
		}
		d := rec.last(t)
		if d.Identity.Method != verify.IPRange || d.Identity.Claimed != "GPTBot" || d.Identity.Source != inside || d.Agent != "GPTBot" || d.Unverified {
			t.Errorf("decision %+v", d)
		}
	})
	t.Run("outside the ranges: 403 naming the failed verification", func(t *testing.T) {
		srv, rec := verifiedServer(t, verifiedSite(inside, outside, false), true)
		res, body := do(t, "GET", srv.URL+"/products", uaClaudeBot)
		if res.StatusCode != http.StatusForbidden || res.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%d %s", res.StatusCode, body)
		}
		var p struct {
			Detail   string            `json:"detail"`
			Identity map[string]string `json:"identity"`
		}
		if err := json.Unmarshal([]byte(body), &p); err != nil || p.Identity["claimed"] != "ClaudeBot" || p.Identity["verified"] != "none" ||
			!strings.Contains(p.Detail, "verified-only") || !strings.Contains(p.Detail, outside) {
			t.Errorf("problem %s (%v)", body, err)
		}
		if d := rec.last(t); d.Outcome != enforce.DenyIdentity || d.Status != http.StatusForbidden || !errorsIs(d.Err, verify.ErrFailed) {
			t.Errorf("decision %+v", d)
		}
	})
	t.Run("FallBack: an unproven claim is served under *", func(t *testing.T) {
		srv, rec := verifiedServer(t, verifiedSite(outside, outside, true), true)
		res, _ := do(t, "GET", srv.URL+"/products", uaGPTBot)
		if res.StatusCode != http.StatusOK || strings.Contains(res.Header.Get("RateLimit-Policy"), "GPTBot") {
			t.Fatalf("%d, RateLimit-Policy %q: want the * policy", res.StatusCode, res.Header.Get("RateLimit-Policy"))
		}
		if d := rec.last(t); !d.Unverified || d.Agent != "*" || d.Identity.Claimed != "GPTBot" || d.Identity.Verified() {
			t.Errorf("decision %+v", d)
		}
	})
	t.Run("list not loaded: served under *, never under the claim", func(t *testing.T) {
		down, isDown := rangeListServer(t, "127.0.0.0/8")
		isDown.Store(true)
		srv, rec := verifiedServer(t, verifiedSite(down, down, false), false)
		for _, ua := range []string{uaGPTBot, uaClaudeBot} {
			res, _ := do(t, "GET", srv.URL+"/products", ua)
			if res.StatusCode != http.StatusOK || strings.Contains(res.Header.Get("RateLimit-Policy"), "Bot") {
				t.Errorf("%s: %d, RateLimit-Policy %q: want the * policy", ua, res.StatusCode, res.Header.Get("RateLimit-Policy"))
			}
			if d := rec.last(t); !d.Unverified || !errorsIs(d.Err, verify.ErrUnavailable) {
				t.Errorf("decision %+v", d)
			}
		}
	})
	t.Run("browsers are untouched", func(t *testing.T) {
		srv, rec := verifiedServer(t, verifiedSite(outside, outside, false), true)
		res, _ := do(t, "GET", srv.URL+"/products", uaChrome)
		if res.StatusCode != http.StatusOK || rec.last(t).Outcome != enforce.Pass {
			t.Errorf("browser: %d", res.StatusCode)
		}
	})
}

// TestVerificationConfigErrors: a verified-only policy needs a source, and
// "*" cannot be verified-only.
func TestVerificationConfigErrors(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Agents = append(site.Agents, config.AgentPolicy{Name: "ShopAgent", Verify: config.Verification{Required: true}})
	site.Agents[0].Verify.Required = true // "*"
	_, err := agentready.New(site)
	if err == nil || !strings.Contains(err.Error(), `"*"`) {
		t.Errorf("verified-only *: %v", err)
	}
	site.Agents[0].Verify.Required = false
	_, err = agentready.New(site)
	if err == nil || !strings.Contains(err.Error(), "ShopAgent") || !strings.Contains(err.Error(), "no source") {
		t.Errorf("no source: %v", err)
	}
	// A known agent needs no URL: the known-agent data has its sources.
	site.Agents[len(site.Agents)-1] = config.AgentPolicy{Name: "Googlebot", Verify: config.Verification{Required: true}}
	m, err := agentready.New(site)
	if err != nil {
		t.Fatal(err)
	}
	if st := testhooks.Verifier(m).Ranges(); len(st) != 1 || !strings.HasPrefix(st[0].URL, "https://developers.google.com/") || !st[0].Stale {
		t.Errorf("Googlebot's sources: %+v", st)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// TestRunLoadsVerification: Run loads the verification sources, and those
// of a declaration a Reload brings, without the caller touching a
// Verifier; until then the claim is served under "*", unverified.
func TestRunLoadsVerification(t *testing.T) {
	inside, _ := rangeListServer(t, "127.0.0.0/8", "::1/128")
	outside, _ := rangeListServer(t, "192.0.2.0/24")
	rec := &decisions{}
	m, err := agentready.New(verifiedSite(inside, outside, false), agentready.WithVerification(verify.Options{AllowHTTPLoopback: true}),
		agentready.WithOnDecision(rec.add), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(app))
	defer srv.Close()
	verified := func() bool {
		res, _ := do(t, "GET", srv.URL+"/products", uaGPTBot)
		d := rec.last(t)
		return res.StatusCode == http.StatusOK && d.Agent == "GPTBot" && !d.Unverified
	}
	if verified() {
		t.Fatal("verified before any source was loaded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	waitFor(t, "the first declaration's ranges", verified)

	// Another range list: a new Verifier, which Run loads.
	again, _ := rangeListServer(t, "127.0.0.0/8", "::1/128")
	if err := m.Reload(verifiedSite(again, outside, false)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the reloaded declaration's ranges", verified)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
}

// waitFor polls ok until it holds, for at most ten seconds.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not loaded after 10 s", what)
		}
	}
}
