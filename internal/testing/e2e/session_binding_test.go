package e2e_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/testing/shop"
	"github.com/agentready/agentready/session"
)

// TestSessionsUnderBindings: sessions and the audit trail on routes bound
// with Capability at paths other than the declared endpoints, behind
// Handler. The session requirement, the audit event's capability, a
// binding's own denial and the human handoff all follow the binding.
func TestSessionsUnderBindings(t *testing.T) {
	site := acme()
	site.Access = config.Access{Allow: []string{"/shop/*"}} // explicit rules: other paths are open
	for i := range site.Capabilities {
		if site.Capabilities[i].ID == "cart.add" {
			site.Capabilities[i].RateLimit = config.PerMinute(2)
		}
	}
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil), agentready.WithImplicitAccess(agentready.ImplicitAllAgents))
	if err != nil {
		t.Fatal(err)
	}
	sh := shop.New("https://acmeceramics.example.com")
	// at serves the shop's endpoint p from another path.
	at := func(p string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r2 := r.Clone(r.Context())
			r2.URL.Path = shop.API + p
			sh.ServeHTTP(w, r2)
		})
	}
	mux := http.NewServeMux()
	mux.Handle("POST /shop/cart/add", m.Capability("cart.add")(at("cart/add")))
	mux.Handle("GET /shop/cart", m.Capability("cart.view")(at("cart")))
	mux.Handle("POST /shop/checkout", m.Capability("checkout")(at("checkout")))
	mux.Handle("GET "+api+"search", m.Capability("search")(sh)) // bound at its own endpoint
	srv := httptest.NewServer(m.Handler(mux))
	t.Cleanup(srv.Close)
	base := srv.URL

	// A session-required capability, bound elsewhere, without a session.
	r := call(t, "POST", base+"/shop/cart/add", `{"id":"mug-blue"}`, "User-Agent", uaClaudeUser)
	if r.status != http.StatusUnauthorized || r.body["ok"] != false || r.body["capability"] != "cart.add" {
		t.Fatalf("cart.add without a session: %d %s", r.status, r.raw)
	}
	token, id := createSession(t, base, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	if r := call(t, "POST", base+"/shop/cart/add", `{"id":"mug-blue","quantity":2}`, as...); r.status != 200 {
		t.Fatalf("cart.add: %d %s", r.status, r.raw)
	}
	// The binding's own limit (2/minute; the first call above counted).
	r = call(t, "POST", base+"/shop/cart/add", `{"id":"vase-bud"}`, as...)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Fatalf("cart.add over its limit: %d %s", r.status, r.raw)
	}
	if r := call(t, "GET", base+"/shop/cart", "", as...); r.status != 200 || !strings.Contains(string(r.raw), `"quantity":2`) {
		t.Fatalf("cart.view: %d %s", r.status, r.raw)
	}
	if r := call(t, "GET", base+api+"search?q=mug", "", as...); r.status != 200 {
		t.Fatalf("search: %d %s", r.status, r.raw)
	}
	// The handoff of a bound checkout ends the session.
	if r := call(t, "POST", base+"/shop/checkout", "", as...); r.status != 200 || r.data()["handoff_url"] == nil {
		t.Fatalf("checkout: %d %s", r.status, r.raw)
	}
	if r := call(t, "GET", base+"/shop/cart", "", as...); r.status != http.StatusUnauthorized {
		t.Fatalf("cart.view after the handoff: %d %s", r.status, r.raw)
	}

	want := []struct {
		capability, decision string
		status               int
	}{
		{testhooks.CapabilitySessionCreate, audit.Allow, 201},
		{"cart.add", audit.Allow, 200},
		{"cart.add", audit.Deny, 429},
		{"cart.view", audit.Allow, 200},
		{"search", audit.Allow, 200},
		{"checkout", audit.Allow, 200},
	}
	evs := artifact(t, base, id).Events
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
	}
	for i, w := range want {
		if e := evs[i]; e.Capability != w.capability || e.PolicyResult.Decision != w.decision || e.ResponseStatus != w.status {
			t.Errorf("event %d: %s %s %d (%s), want %+v", i, e.Capability, e.PolicyResult.Decision, e.ResponseStatus, e.PolicyResult.Rule, w)
		}
	}
	if rule := evs[2].PolicyResult.Rule; rule != "Rate-Limit: 2/minute" {
		t.Errorf("rule of the denied cart.add: %q", rule)
	}
}

// TestSessionEndpointRateLimited: creating and ending sessions counts
// against the site's Rate-Limit; the endpoint is no way around it.
func TestSessionEndpointRateLimited(t *testing.T) {
	clock := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	site := acme()
	site.RateLimit = config.PerMinute(2)
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil), agentready.WithClock(clock.Now), agentready.WithImplicitAccess(agentready.ImplicitAllAgents))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(shop.New("https://acmeceramics.example.com")))
	t.Cleanup(srv.Close)

	token, _ := createSession(t, srv.URL, uaClaudeUser)
	r := call(t, "DELETE", srv.URL+sessPath, "", "User-Agent", uaClaudeUser, "X-Agent-Session", token)
	if r.status != 200 || r.header.Get("RateLimit") == "" || r.header.Get("RateLimit-Policy") == "" {
		t.Fatalf("DELETE: %d %v %s", r.status, r.header, r.raw)
	}
	r = call(t, "POST", srv.URL+sessPath, "", "User-Agent", uaClaudeUser)
	if r.status != http.StatusTooManyRequests || r.header.Get("Content-Type") != "application/problem+json" ||
		!strings.Contains(r.header.Get("RateLimit"), "r=0") {
		t.Fatalf("third call: %d %v %s", r.status, r.header, r.raw)
	}
	if s, _ := strconv.Atoi(r.header.Get("Retry-After")); s < 1 || s > 60 {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	// CORS preflights do not count.
	pre := call(t, "OPTIONS", srv.URL+sessPath, "", "Origin", "https://agent.example", "Access-Control-Request-Method", "POST", "User-Agent", uaClaudeUser)
	if pre.status != http.StatusNoContent {
		t.Errorf("preflight: %d %s", pre.status, pre.raw)
	}
	clock.Advance(time.Minute)
	createSession(t, srv.URL, uaClaudeUser)
	// A browser is not limited (and, not being an agent, gets no session).
	if r := call(t, "POST", srv.URL+sessPath, "", "User-Agent", uaChrome); r.status != http.StatusForbidden {
		t.Errorf("browser: %d %s", r.status, r.raw)
	}
}

// TestExplainSessions: Explain looks the session up without recording or
// consuming anything.
func TestExplainSessions(t *testing.T) {
	srv, m := shopServer(t)
	token, id := createSession(t, srv.URL, uaClaudeUser)
	req := func(method, path, tok string) *http.Request {
		r := httptest.NewRequest(method, path, nil)
		r.RemoteAddr = "127.0.0.1:1234" // sessions are bound to the client that created them
		r.Header.Set("User-Agent", uaClaudeUser)
		if tok != "" {
			r.Header.Set("X-Agent-Session", tok)
		}
		return r
	}
	if d := m.Explain(req("GET", api+"cart", "")); d.Outcome != enforce.DenySession || d.Status != 401 || d.Rule != enforce.RuleRequiresSession {
		t.Errorf("cart.view without a session: %+v", d)
	}
	wrong := "x" + token[1:]
	if token[0] == 'x' { // 1 in 64: another first character, then
		wrong = "y" + token[1:]
	}
	if d := m.Explain(req("GET", api+"cart", wrong)); d.Outcome != enforce.DenySession || d.Status != 401 {
		t.Errorf("cart.view with a wrong token: %+v", d)
	}
	if d := m.Explain(req("GET", api+"cart", token)); d.Outcome != enforce.Allow || d.Capability != "cart.view" {
		t.Errorf("cart.view with the session: %+v", d)
	}
	foreign := req("GET", api+"cart", token)
	foreign.RemoteAddr = "192.0.2.1:1234"
	if d := m.Explain(foreign); d.Outcome != enforce.DenySession || !errors.Is(d.Err, session.ErrForeign) {
		t.Errorf("cart.view with the session, from another client: %+v", d)
	}
	if d := m.Explain(req("GET", api+"search", "")); d.Outcome != enforce.Allow {
		t.Errorf("search without a session: %+v", d)
	}
	if d := m.Explain(req("POST", sessPath, "")); d.Outcome != enforce.Allow || d.Rule != enforce.RuleSessionEndpoint || d.Limits[0] == "" {
		t.Errorf("session endpoint: %+v", d)
	}
	if d := m.Explain(req("GET", auditPath+id, "")); d.Outcome != enforce.Allow || d.Rule != testhooks.RuleAuditEndpoint {
		t.Errorf("audit endpoint: %+v", d)
	}
	// Nothing was recorded: the log still holds the creation alone.
	call(t, "DELETE", srv.URL+sessPath, "", "User-Agent", uaClaudeUser, "X-Agent-Session", token)
	if evs := artifact(t, srv.URL, id).Events; len(evs) != 2 {
		t.Errorf("Explain recorded events: %+v", evs)
	}
}

// TestBodyLimitOnBoundRoutes: a capability's BodyLimit holds for a recorded
// request on a route bound to it behind Handler as at its declared
// endpoint (Wrap, not knowing the capability, read the body with the
// default limit), in report-only mode too; the handler never sees the
// body, and the audit trail keeps none of it.
func TestBodyLimitOnBoundRoutes(t *testing.T) {
	// A binding whose own check fails (auth here) in report-only mode
	// serves the request, and the body limit still holds (found by review).
	for _, c := range []struct{ reportOnly, authFails bool }{{false, false}, {true, false}, {true, true}} {
		reportOnly := c.reportOnly
		t.Run(fmt.Sprintf("report-only=%v/auth-fails=%v", c.reportOnly, c.authFails), func(t *testing.T) {
			site := acme()
			site.Access = config.Access{Allow: []string{"/"}}
			for i := range site.Capabilities {
				if site.Capabilities[i].ID == "cart.add" {
					site.Capabilities[i].BodyLimit = 64
					if c.authFails {
						site.Capabilities[i].Auth = config.Auth{Type: config.AuthBearerToken}
					}
				}
			}
			opts := []agentready.Option{agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
				agentready.WithLogger(discardLogger())}
			if reportOnly {
				opts = append(opts, agentready.WithReportOnly())
			}
			m, err := agentready.New(site, opts...)
			if err != nil {
				t.Fatal(err)
			}
			ran := 0
			mux := http.NewServeMux()
			mux.Handle("POST /shop/add", m.Capability("cart.add")(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran++ })))
			srv := httptest.NewServer(m.Handler(mux))
			defer srv.Close()
			token, id := createSession(t, srv.URL, uaClaudeBot)
			big := `{"id":"mug-blue","note":"` + strings.Repeat("x", 1000) + `"}`
			for _, path := range []string{"/shop/add", api + "cart/add"} {
				if r := call(t, "POST", srv.URL+path, big, "User-Agent", uaClaudeBot, "X-Agent-Session", token); r.status != http.StatusRequestEntityTooLarge {
					t.Errorf("%s, %d bytes over a 64-byte limit: status %d, want 413", path, len(big), r.status)
				}
			}
			if ran != 0 {
				t.Errorf("the bound handler ran %d times for a body over its limit", ran)
			}
			if r := call(t, "POST", srv.URL+"/shop/add", `{"id":"mug-blue"}`, "User-Agent", uaClaudeBot, "X-Agent-Session", token); r.status != http.StatusOK || ran != 1 {
				t.Errorf("a body within the limit: status %d, handler ran %d times", r.status, ran)
			}
			if r := call(t, "DELETE", srv.URL+sessPath, "", "User-Agent", uaClaudeBot, "X-Agent-Session", token); r.status != http.StatusOK {
				t.Fatalf("DELETE: %d", r.status)
			}
			for _, ev := range artifact(t, srv.URL, id).Events {
				if _, kept := ev.Params["note"]; kept {
					t.Errorf("the trail keeps the refused body: %s %d %v", ev.Capability, ev.ResponseStatus, ev.Params)
				}
			}
		})
	}
}
