package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/verify"
)

// TestReload: a reload swaps documents, ETags, rules and the routes built
// by Handler and Capability at once, keeps the buckets of unchanged limits,
// and a declaration with problems leaves the old one serving.
func TestReload(t *testing.T) {
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api/find", m.Capability("product-search")(app))
	h := m.Handler(mux)
	mux.Handle("/", app)
	get := func(path, ua string) *httptest.ResponseRecorder { return serveGet(h, path, ua) }
	before := get("/.well-known/agents.txt", uaChrome)
	for range 3 {
		if w := get("/api/find", uaClaudeDeclared); w.Code != 200 {
			t.Fatalf("bound route: %d", w.Code)
		}
	}
	if w := get("/blog/post", uaClaudeDeclared); w.Code != 200 {
		t.Fatalf("/blog/ under the first declaration: %d", w.Code)
	}

	next := fixtures.OutdoorSupply()
	next.Description = "Gear, reloaded"
	next.Access.Disallow = append(next.Access.Disallow, "/blog/*", "/api/find")
	if err := m.Reload(next); err != nil {
		t.Fatal(err)
	}
	after := get("/.well-known/agents.txt", uaChrome)
	if !strings.Contains(after.Body.String(), "Gear, reloaded") || after.Header().Get("ETag") == before.Header().Get("ETag") {
		t.Errorf("agents.txt after the reload: %s (ETag %s, was %s)", after.Body, after.Header().Get("ETag"), before.Header().Get("ETag"))
	}
	if w := get("/blog/post", uaClaudeDeclared); w.Code != http.StatusForbidden {
		t.Errorf("/blog/ after the reload closed it: %d", w.Code)
	}
	if w := get("/api/find", uaClaudeDeclared); w.Code != http.StatusForbidden {
		t.Errorf("the bound route after a reload closed it: %d", w.Code)
	}
	// Unchanged limits keep their buckets: claude's 200/minute counted 3
	// finds and a blog post before the reload, this request after it.
	if w := get("/api/other", uaClaudeDeclared); !strings.Contains(w.Header().Get("RateLimit"), `"agent/claude";r=195`) {
		t.Errorf("claude's bucket after the reload: %q", w.Header().Get("RateLimit"))
	}

	bad := fixtures.OutdoorSupply()
	bad.Capabilities[0].RateLimit = config.Rate{Requests: -1, Window: "fortnight"}
	if err := m.Reload(bad); err == nil || !strings.Contains(err.Error(), "Capabilities[0].RateLimit") {
		t.Fatalf("a bad declaration: %v", err)
	}
	if w := get("/.well-known/agents.txt", uaChrome); !strings.Contains(w.Body.String(), "Gear, reloaded") {
		t.Errorf("after a refused reload the old declaration must serve: %s", w.Body)
	}
}

// TestReloadKeepsSessions: live sessions (and their audit logs) survive a
// reload: the stores are the same.
func TestReloadKeepsSessions(t *testing.T) {
	site := acme()
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(app))
	defer srv.Close()
	token, _ := createSession(t, srv.URL, uaClaudeBot)
	next := acme()
	next.Description = "reloaded"
	if err := m.Reload(next); err != nil {
		t.Fatal(err)
	}
	r := call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue","quantity":1}`, "User-Agent", uaClaudeBot, "X-Agent-Session", token)
	if r.status != http.StatusOK {
		t.Errorf("a session created before the reload: %d %s", r.status, r.raw)
	}
}

// TestReloadUnderLoad: requests keep being served, each by one whole
// declaration, while reloads swap it (run with -race).
func TestReloadUnderLoad(t *testing.T) {
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(app)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var bad atomic.Int32
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				r := httptest.NewRequest("GET", "/.well-known/agents.txt", nil)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != 200 || !strings.Contains(w.Body.String(), "Site-Name: Outdoor Supply Co.") {
					bad.Add(1)
				}
				r = httptest.NewRequest("GET", "/admin/x", nil)
				r.Header.Set("User-Agent", uaClaudeDeclared)
				w = httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusForbidden {
					bad.Add(1)
				}
			}
		})
	}
	for i := range 50 {
		next := fixtures.OutdoorSupply()
		next.Description = strings.Repeat("x", i+1)
		if err := m.Reload(next); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if bad.Load() != 0 {
		t.Errorf("%d requests were not served by a whole declaration during reloads", bad.Load())
	}
}

// TestReloadRemovedCapability: a capability a reload removes is refused to
// the sessions created before, and the refusal is a decision like any
// other (recorded in the session's audit trail).
func TestReloadRemovedCapability(t *testing.T) {
	rec := &decisions{}
	clock := testclock.New(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	m, err := agentready.New(acme(), agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil), agentready.WithClock(clock.Now),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents), agentready.WithLogger(discardLogger()), agentready.WithOnDecision(rec.add))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(app))
	defer srv.Close()
	token, id := createSession(t, srv.URL, uaClaudeBot)
	clock.Advance(2 * time.Second) // session times are kept to the second
	next := acme()
	for i, c := range next.Capabilities {
		if c.ID == "cart.update" {
			next.Capabilities = append(next.Capabilities[:i], next.Capabilities[i+1:]...)
			break
		}
	}
	if err := m.Reload(next); err != nil {
		t.Fatal(err)
	}
	r := call(t, "PATCH", srv.URL+api+"cart/update", `{"id":"mug-blue","quantity":2}`, "User-Agent", uaClaudeBot, "X-Agent-Session", token)
	if r.status != http.StatusForbidden || !strings.Contains(string(r.raw), "cart.update was removed") {
		t.Errorf("a removed capability with a session from before: %d %s", r.status, r.raw)
	}
	if d := rec.last(t); d.Outcome.String() != "deny-capability" || d.Capability != "cart.update" {
		t.Errorf("decision %+v", d)
	}
	// Another capability still works for that session.
	if r := call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue","quantity":1}`, "User-Agent", uaClaudeBot, "X-Agent-Session", token); r.status != 200 {
		t.Errorf("cart.add after the reload: %d %s", r.status, r.raw)
	}
	// The session's audit trail holds the refusal.
	if r := call(t, "DELETE", srv.URL+sessPath, "", "User-Agent", uaClaudeBot, "X-Agent-Session", token); r.status != 200 {
		t.Fatalf("DELETE: %d %s", r.status, r.raw)
	}
	found := false
	for _, ev := range artifact(t, srv.URL, id).Events {
		if ev.Capability == "cart.update" && ev.PolicyResult.Decision == audit.Deny {
			found = true
		}
	}
	if !found {
		t.Error("the refusal of the removed capability is not in the audit trail")
	}
}

// TestReloadRemovedThenBack: a removal refuses only sessions created
// before it, and only while no capability of the current declaration
// serves the route: a capability added back, or renamed at the same
// endpoint, serves every session again.
func TestReloadRemovedThenBack(t *testing.T) {
	clock := testclock.New(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	m, err := agentready.New(acme(), agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil), agentready.WithClock(clock.Now),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(app))
	defer srv.Close()
	old, _ := createSession(t, srv.URL, uaClaudeBot)
	clock.Advance(2 * time.Second)
	without := acme()
	renamed := acme()
	for i, c := range without.Capabilities {
		if c.ID == "cart.update" {
			without.Capabilities = append(without.Capabilities[:i], without.Capabilities[i+1:]...)
			renamed.Capabilities[i].ID = "cart.change"
			break
		}
	}
	for i := range renamed.Flows {
		for j, s := range renamed.Flows[i].Steps {
			if s == "cart.update" {
				renamed.Flows[i].Steps[j] = "cart.change"
			}
		}
	}
	update := func(token string) int {
		return call(t, "PATCH", srv.URL+api+"cart/update", `{"id":"mug-blue","quantity":2}`, "User-Agent", uaClaudeBot, "X-Agent-Session", token).status
	}
	if err := m.Reload(without); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	fresh, _ := createSession(t, srv.URL, uaClaudeBot)
	if got := update(old); got != http.StatusForbidden {
		t.Errorf("a session from before the removal: %d, want 403", got)
	}
	if r := call(t, "PATCH", srv.URL+api+"cart/update", `{"id":"mug-blue","quantity":2}`, "User-Agent", uaClaudeBot, "X-Agent-Session", fresh); strings.Contains(string(r.raw), "was removed") {
		t.Errorf("a session created after the removal is refused as if promised the capability: %d %s", r.status, r.raw)
	}
	if err := m.Reload(acme()); err != nil {
		t.Fatal(err)
	}
	if got := update(old); got != http.StatusOK {
		t.Errorf("the capability added back, an old session: %d, want 200", got)
	}
	if err := m.Reload(renamed); err != nil {
		t.Fatal(err)
	}
	if got := update(old); got != http.StatusOK {
		t.Errorf("the capability renamed at the same endpoint, an old session: %d, want 200", got)
	}
}

// TestReloadKeepsVerifier: a reload that asks for the same verification
// keeps the loaded Verifier; one that changes it brings a new one.
func TestReloadKeepsVerifier(t *testing.T) {
	inside, _ := rangeListServer(t, "127.0.0.0/8")
	site := verifiedSite(inside, inside, false)
	m, err := agentready.New(site, agentready.WithVerification(verify.Options{AllowHTTPLoopback: true}), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	v := testhooks.Verifier(m)
	next := verifiedSite(inside, inside, false)
	next.Description = "changed"
	if err := m.Reload(next); err != nil || testhooks.Verifier(m) != v {
		t.Errorf("same verification: %v, Verifier kept %v", err, testhooks.Verifier(m) == v)
	}
	next = verifiedSite(inside, inside, true)
	if err := m.Reload(next); err != nil || testhooks.Verifier(m) == v {
		t.Errorf("changed verification: %v, Verifier kept %v", err, testhooks.Verifier(m) == v)
	}
	// A new site host is a new authority for signatures: a new Verifier.
	v = testhooks.Verifier(m)
	next = verifiedSite(inside, inside, true)
	next.URL = "https://moved.example"
	if err := m.Reload(next); err != nil || testhooks.Verifier(m) == v {
		t.Errorf("a new site host: %v, Verifier kept %v", err, testhooks.Verifier(m) == v)
	}
}
