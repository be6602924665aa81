package e2e_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testclock"
)

// The attacks of the review of issue 34's enforcement chain: each is a
// hostile client's request through agentready.New and a real ServeMux,
// asserting what the pre-refactor pipeline (3fc8117) answered.

const (
	rvAgent = "claude/1.0 (+https://anthropic.com)"
	rvToken = "Bearer s3cret"
)

func rvSite() config.Site {
	return config.Site{
		Name: "Review Shop", URL: "https://review.example", Description: "attacks on the chain",
		Contact: "ops@review.example",
		Capabilities: []config.Capability{{
			ID: "browse", Description: "browse the shop", Endpoint: "https://review.example/browse",
			Method: "GET", Protocol: config.ProtocolREST, RateLimit: config.PerMinute(2),
			Auth: config.Auth{Type: config.AuthBearerToken, TokenEndpoint: "https://review.example/token"},
		}},
		Access: config.Access{Allow: []string{"/*"}},
		Agents: []config.AgentPolicy{{Name: "*"}, {Name: "claude", Capabilities: []string{"browse"}}},
	}
}

func rvNew(t testing.TB, site config.Site, opts ...agentready.Option) *agentready.Middleware {
	t.Helper()
	// The limits in memory follow this clock alone: a machine slow enough
	// to spread a test over half a minute refills no token.
	clock := testclock.New(time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC))
	opts = append(opts, agentready.WithClock(clock.Now), agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	m, err := agentready.New(site, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var rvApp = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "app:"+r.URL.Path) })

func rvGet(h http.Handler, path, ua, auth string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "https://review.example"+path, nil)
	r.Header.Set("User-Agent", ua)
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestReviewRobotsBehindWrapBinding: with no generated robots.txt, a
// catch-all route bound to a capability that declares auth answers an
// agent's plain GET /robots.txt as the binding alone does: Wrap's
// always-served robots.txt is no pass through the binding behind it.
func TestReviewRobotsBehindWrapBinding(t *testing.T) {
	m := rvNew(t, rvSite())
	mux := http.NewServeMux()
	mux.Handle("/", m.Capability("browse")(rvApp))
	h := m.Handler(mux)
	lone := m.Capability("browse")(rvApp)
	wl := rvGet(lone, "/robots.txt", rvAgent, "")
	w := rvGet(h, "/robots.txt", rvAgent, "")
	if w.Code != wl.Code {
		t.Errorf("GET /robots.txt behind Wrap: %d, the binding alone answers %d", w.Code, wl.Code)
	}
	if w.Code != http.StatusUnauthorized {
		t.Errorf("GET /robots.txt without the bound capability's credential: %d, want 401", w.Code)
	}
}

// TestReviewProbeBehindWrapBinding: a probe path bound to a capability
// that declares auth: a probe passes Wrap, and the binding lets it by (as
// before); a probe path with a query or another method is an agent's
// request and is held to the capability's auth.
func TestReviewProbeBehindWrapBinding(t *testing.T) {
	m := rvNew(t, rvSite(), agentready.WithClients(agentready.Clients{ProbePaths: []string{"/healthz"}}))
	mux := http.NewServeMux()
	mux.Handle("/healthz", m.Capability("browse")(rvApp))
	mux.Handle("/", rvApp)
	h := m.Handler(mux)
	if w := rvGet(h, "/healthz", rvAgent, ""); w.Code != 200 {
		t.Errorf("probe GET /healthz: %d", w.Code)
	}
	if w := rvGet(h, "/healthz?x=1", rvAgent, ""); w.Code != http.StatusUnauthorized {
		t.Errorf("GET /healthz?x=1, no probe: %d, want 401", w.Code)
	}
	// Every other agent request is still enforced.
	if w := rvGet(h, "/browse", rvAgent, ""); w.Code != http.StatusUnauthorized {
		t.Errorf("GET /browse without a credential, probe paths configured: %d, want 401", w.Code)
	}
}

// TestReviewBoundLimitOnce: a route bound behind Wrap to a capability
// of 2 a minute takes one token a request: the third is refused, not the
// second (counted twice) nor never (counted by nobody).
func TestReviewBoundLimitOnce(t *testing.T) {
	for _, route := range []string{"/browse", "/elsewhere"} { // at its endpoint, and elsewhere
		m := rvNew(t, rvSite())
		mux := http.NewServeMux()
		mux.Handle(route, m.Capability("browse")(rvApp))
		h := m.Handler(mux)
		for i, want := range []int{200, 200, 429} {
			if w := rvGet(h, route, rvAgent, rvToken); w.Code != want {
				t.Errorf("%s request %d: %d, want %d", route, i+1, w.Code, want)
			}
		}
	}
}

// TestReviewExplainConsumesNothing: Explain of a bound route, however
// often, leaves every token to the real requests; and an Explain does not
// make a real request explain-only (nothing counted).
func TestReviewExplainConsumesNothing(t *testing.T) {
	m := rvNew(t, rvSite())
	mux := http.NewServeMux()
	mux.Handle("/browse", m.Capability("browse")(rvApp))
	h := m.Handler(mux)
	r := httptest.NewRequest(http.MethodGet, "https://review.example/browse", nil)
	r.Header.Set("User-Agent", rvAgent)
	r.Header.Set("Authorization", rvToken)
	for range 5 {
		_ = m.Explain(r)
	}
	for i, want := range []int{200, 200, 429} {
		if w := rvGet(h, "/browse", rvAgent, rvToken); w.Code != want {
			t.Errorf("request %d after Explain: %d, want %d", i+1, w.Code, want)
		}
	}
}

// TestReviewReportOnlyBinding: under report-only a binding's denial is
// reported and served, and its decision says so.
func TestReviewReportOnlyBinding(t *testing.T) {
	var got []bool
	m := rvNew(t, rvSite(), agentready.WithReportOnly(), agentready.WithOnDecision(func(d enforce.Decision) {
		got = append(got, d.ReportOnly)
	}))
	mux := http.NewServeMux()
	mux.Handle("/elsewhere", m.Capability("browse")(rvApp))
	h := m.Handler(mux)
	if w := rvGet(h, "/elsewhere", rvAgent, ""); w.Code != 200 {
		t.Errorf("report-only, no credential: %d", w.Code)
	}
	if len(got) == 0 || !got[len(got)-1] {
		t.Errorf("report-only decisions: %v, want the last reported only", got)
	}
}

// TestReviewReloadBetweenWrapAndBinding: a Reload that lands while a
// request is between Wrap and a binding behind it: the binding, now of
// the new declaration, finds no scope of its own Enforcer and decides the
// request in full, so a path the new declaration closes is closed.
func TestReviewReloadBetweenWrapAndBinding(t *testing.T) {
	m := rvNew(t, rvSite())
	closed := rvSite()
	closed.Access.Disallow = []string{"/elsewhere"}
	mux := http.NewServeMux()
	bound := m.Capability("browse")(rvApp)
	mux.Handle("/elsewhere", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := m.Reload(closed); err != nil {
			t.Error(err)
		}
		bound.ServeHTTP(w, r)
	}))
	h := m.Handler(mux)
	if w := rvGet(h, "/elsewhere", rvAgent, rvToken); w.Code != http.StatusForbidden {
		t.Errorf("a path the reloaded declaration closes, reached through the binding: %d, want 403", w.Code)
	}
}

// TestReviewRobotsDecisionHeader: with the decision field, an agent's
// /robots.txt behind Wrap with a binding carries the binding's decision
// to the handler, not a client's copy.
func TestReviewRobotsDecisionHeader(t *testing.T) {
	m := rvNew(t, rvSite(), agentready.WithDecisionHeader())
	var got []string
	mux := http.NewServeMux()
	mux.Handle("/", m.Capability("browse")(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Values(enforce.HeaderDecision)
	})))
	h := m.Handler(mux)
	r := httptest.NewRequest(http.MethodGet, "https://review.example/robots.txt", nil)
	r.Header.Set("User-Agent", rvAgent)
	r.Header.Set("Authorization", rvToken)
	r.Header.Set(enforce.HeaderDecision, "outcome=allow; forged")
	h.ServeHTTP(httptest.NewRecorder(), r)
	for _, v := range got {
		if strings.Contains(v, "forged") {
			t.Errorf("the client's decision field reached the handler: %q", got)
		}
	}
	if len(got) != 1 {
		t.Errorf("decision fields at the handler: %q, want one", got)
	}
}
