package e2e_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// TestShadow: a candidate declaration is decided beside the enforced one
// on every request and never applied; the requests it would answer
// differently are flagged, logged and counted; it consumes no token.
func TestShadow(t *testing.T) {
	candidate := fixtures.OutdoorSupply()
	candidate.Access.Disallow = append(candidate.Access.Disallow, "/api/search")
	var rec shadowRecorder
	var logs bytes.Buffer
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		agentready.WithShadow(candidate, rec.hook))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(app)
	get := func(path, ua string) *httptest.ResponseRecorder { return serveGet(h, path, ua) }
	w1 := get("/api/search?q=tent", uaClaudeDeclared)
	w2 := get("/api/search?q=tent", uaClaudeDeclared)
	if w1.Code != 200 || w2.Code != 200 {
		t.Fatalf("the enforced declaration allows search: %d %d", w1.Code, w2.Code)
	}
	// The candidate peeks, never consumes: the enforced limit went down by
	// one per request.
	if !strings.Contains(w1.Header().Get("RateLimit"), `"capability/product-search";r=59`) || !strings.Contains(w2.Header().Get("RateLimit"), `"capability/product-search";r=58`) {
		t.Errorf("RateLimit %q then %q: the shadow consumed tokens", w1.Header().Get("RateLimit"), w2.Header().Get("RateLimit"))
	}
	get("/products/tent", uaChrome)
	get("/admin/users", uaClaudeDeclared)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	results := rec.results
	if len(results) != 4 {
		t.Fatalf("%d shadow results, want 4", len(results))
	}
	if r := results[0]; !r.Differs || r.Enforced.Outcome != enforce.Allow || r.Candidate.Outcome != enforce.DenyPath || r.Candidate.Rule != "Disallow: /api/search" {
		t.Errorf("search: %+v", r)
	}
	if results[2].Differs || results[3].Differs || results[3].Candidate.Outcome != enforce.DenyPath {
		t.Errorf("browser and admin: %+v %+v", results[2], results[3])
	}
	if compared, differed := rec.counts(); compared != 4 || differed != 2 {
		t.Errorf("compared %d, differed %d", compared, differed)
	}
	if !strings.Contains(logs.String(), "the shadow declaration would decide this request differently") {
		t.Errorf("no log of the difference:\n%s", logs.String())
	}
	bad := fixtures.OutdoorSupply()
	bad.Name = ""
	if _, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithShadow(bad, nil)); err == nil {
		t.Error("an invalid candidate accepted")
	}
	_ = http.StatusOK
}

// TestShadowOnceAndSessions: the shadow sees a request once, bound route
// or not, session-bound requests included, and a panicking hook fails no
// request.
func TestShadowOnceAndSessions(t *testing.T) {
	var n atomic.Int32
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithLogger(slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))),
		agentready.WithShadow(fixtures.OutdoorSupply(), func(_, _ enforce.Decision) { n.Add(1); panic("a broken hook") }))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api/find", m.Capability("product-search")(app))
	h := m.Handler(mux)
	r := httptest.NewRequest("GET", "/api/find", nil)
	r.Header.Set("User-Agent", uaClaudeDeclared)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 || n.Load() != 1 {
		t.Errorf("a bound route: %d, hook called %d times", w.Code, n.Load())
	}

	var compared atomic.Int32
	sm, err := agentready.New(acme(), agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents), agentready.WithLogger(discardLogger()),
		agentready.WithShadow(acme(), func(_, _ enforce.Decision) { compared.Add(1) }))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sm.Handler(app))
	defer srv.Close()
	token, _ := createSession(t, srv.URL, uaClaudeBot)
	before := compared.Load()
	call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue","quantity":1}`, "User-Agent", uaClaudeBot, "X-Agent-Session", token)
	if got := compared.Load() - before; got != 1 {
		t.Errorf("a session-bound request was compared %d times, want 1", got)
	}
}

// shadowResult is one request as the WithShadow hook saw it.
type shadowResult struct {
	Enforced, Candidate enforce.Decision
	// Differs: the two would answer differently (another outcome or
	// status), which the Middleware logs.
	Differs bool
}

// shadowRecorder keeps what a WithShadow hook receives.
type shadowRecorder struct {
	mu      sync.Mutex
	results []shadowResult
}

func (s *shadowRecorder) hook(enforced, candidate enforce.Decision) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results = append(s.results, shadowResult{enforced, candidate,
		candidate.Outcome != enforced.Outcome || candidate.Status != enforced.Status})
}

// counts are the requests compared and those the candidate would have
// answered differently.
func (s *shadowRecorder) counts() (compared, differed int) {
	for _, r := range s.results {
		if r.Differs {
			differed++
		}
	}
	return len(s.results), differed
}

// serveGet serves a GET of path with User-Agent ua through h.
func serveGet(h http.Handler, path, ua string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", path, nil)
	r.Header.Set("User-Agent", ua)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// A route bound to a capability behind Handler, with a candidate that
// declares fewer capabilities: the candidate never reads the enforced
// declaration's capability index (it panicked, index out of range), and
// the request gets the enforced decision.
func TestShadowDoesNotReadTheEnforcedIndex(t *testing.T) {
	site := acme()
	site.Access.Allow = []string{"/"}
	cand := acme()
	cand.Access.Allow = []string{"/"}
	cand.Capabilities, cand.Flows = cand.Capabilities[:2], nil
	compared := 0
	var log bytes.Buffer
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithLogger(slog.New(slog.NewTextHandler(&log, nil))),
		agentready.WithShadow(cand, func(_, _ enforce.Decision) { compared++ }))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+api+"detail", m.Capability("cart.view")(app))
	r := httptest.NewRequest("GET", api+"detail?id=x", nil)
	r.Header.Set("User-Agent", uaClaudeBot)
	w := httptest.NewRecorder()
	m.Handler(mux).ServeHTTP(w, r)
	if w.Code != http.StatusUnauthorized || compared == 0 {
		t.Errorf("status %d (want 401: cart.view needs a session), %d comparisons", w.Code, compared)
	}
	if strings.Contains(log.String(), "panicked") {
		t.Errorf("the shadow panicked:\n%s", log.String())
	}
}

// TestShadowSharesSessions: a candidate identical to the enforced
// declaration never differs, session-bound requests included: the
// candidate looks sessions up in the enforced store, from New on (it had
// an empty store of its own until the first Reload).
func TestShadowSharesSessions(t *testing.T) {
	var rec shadowRecorder
	m, err := agentready.New(acme(), agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents), agentready.WithLogger(discardLogger()),
		agentready.WithShadow(acme(), rec.hook))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(app))
	defer srv.Close()
	token, _ := createSession(t, srv.URL, uaClaudeBot)
	if r := call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue","quantity":1}`, "User-Agent", uaClaudeBot, "X-Agent-Session", token); r.status != http.StatusOK {
		t.Fatalf("status %d", r.status)
	}
	if compared, differed := rec.counts(); compared == 0 || differed != 0 {
		for _, x := range rec.results {
			t.Logf("enforced %v, candidate %v (%s)", x.Enforced.Outcome, x.Candidate.Outcome, x.Candidate.Rule)
		}
		t.Errorf("an identical candidate: compared %d, differed %d", compared, differed)
	}
}

// TestShadowWarningsNamed: what building the candidate logs names the
// shadow, so that it is not read as a warning about the declaration
// enforced.
func TestShadowWarningsNamed(t *testing.T) {
	var log bytes.Buffer
	// Declared auth without WithAuthenticator: both declarations warn.
	if _, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithLogger(slog.New(slog.NewTextHandler(&log, nil))),
		agentready.WithShadow(fixtures.OutdoorSupply(), nil)); err != nil {
		t.Fatal(err)
	}
	var enforced, shadow int
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if strings.Contains(line, "presence only") {
			if strings.Contains(line, "declaration=shadow") {
				shadow++
			} else {
				enforced++
			}
		}
	}
	if enforced != 1 || shadow != 1 {
		t.Errorf("%d warnings for the enforced declaration, %d named the shadow's; want 1 and 1:\n%s", enforced, shadow, log.String())
	}
}
