package enforcer_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/enforcer"
	"github.com/agentready/agentready/internal/policy"
)

// TestDecisionField: with Config.DecisionField every request passed on
// carries its decision, a report-only denial's too, and the client's
// copies in every spelling are gone; without it a client's copy is the
// application's business (the field is not agentready's then).
func TestDecisionField(t *testing.T) {
	site := ordersSite()
	p, err := policy.Compile(&site)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, target string
		reportOnly   bool
		want         string
	}{
		{"allowed", "/api/search?q=1", false, `policy="GPTBot", class=declared, grade=claimed, purpose=training-crawler, capability="product-search", rule="Allow: /api/*", outcome=allow`},
		{"report-only", "/admin/x", true, `policy="GPTBot", class=declared, grade=claimed, purpose=training-crawler, rule="Disallow: /admin", outcome=deny-path`},
		{"robots.txt", "/robots.txt", false, `policy="GPTBot", class=declared, grade=claimed, purpose=training-crawler, rule="robots.txt (always served)", outcome=pass`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := enforcer.New(enforcer.Config{Policy: p, DecisionField: true, ReportOnly: tc.reportOnly})
			if err != nil {
				t.Fatal(err)
			}
			var got http.Header
			h := e.Wrap(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = r.Header }))
			r := agentRequest("GET", tc.target, nil)
			r.Header["Agentready-Decision"] = []string{"outcome=allow"}
			r.Header["Agentready_decision"] = []string{"outcome=allow"}
			r.Header["AGENTREADY.DECISION"] = []string{"outcome=allow"}
			h.ServeHTTP(httptest.NewRecorder(), r)
			if got == nil {
				t.Fatal("not served")
			}
			if v := got[enforce.HeaderDecision]; len(v) != 1 || v[0] != tc.want {
				t.Errorf("%s = %q, want %q", enforce.HeaderDecision, v, tc.want)
			}
			if len(got["Agentready_decision"])+len(got["AGENTREADY.DECISION"]) > 0 {
				t.Errorf("a client's copy is left: %v", got)
			}
		})
	}
}

// TestDecisionFieldNotHopByHop: a client naming the decision field in
// Connection cannot have a proxy behind remove it, and a trailer of its
// name is no longer announced.
func TestDecisionFieldNotHopByHop(t *testing.T) {
	site := ordersSite()
	p, err := policy.Compile(&site)
	if err != nil {
		t.Fatal(err)
	}
	e, err := enforcer.New(enforcer.Config{Policy: p, DecisionField: true})
	if err != nil {
		t.Fatal(err)
	}
	var got *http.Request
	h := e.Wrap(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = r }))
	r := agentRequest("GET", "/api/search?q=1", nil)
	r.Header["Connection"] = []string{"keep-alive, agentready_decision", "Agentready-Decision"}
	r.Trailer = http.Header{"Agentready-Decision": nil, "X-Other": nil}
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got == nil {
		t.Fatal("not served")
	}
	if c := got.Header["Connection"]; len(c) != 2 || c[0] != "keep-alive" || c[1] != "" {
		t.Errorf("Connection = %q, want the decision field's tokens gone", c)
	}
	if _, ok := got.Trailer["Agentready-Decision"]; ok || len(got.Trailer) != 1 {
		t.Errorf("Trailer = %v, want X-Other alone", got.Trailer)
	}
	if len(got.Header[enforce.HeaderDecision]) != 1 {
		t.Errorf("no decision field: %v", got.Header)
	}
}

// TestRobotsTxtPlainGetOnly: /robots.txt passes undecided only as a crawler
// fetches it; with a query, another method or an override it is decided.
func TestRobotsTxtPlainGetOnly(t *testing.T) {
	serve := readingsEnforcer(t, false, nil)
	for _, tc := range []struct {
		method, target string
		header         map[string]string
		want           enforce.Outcome
	}{
		{"GET", "/robots.txt", nil, enforce.Pass}, // served as is, no decision heard
		{"HEAD", "/robots.txt", nil, enforce.Pass},
		{"GET", "/robots.txt?rest_route=/wp/v2/users", nil, enforce.Allow},
		{"POST", "/robots.txt", nil, enforce.Allow},
		{"GET", "/robots.txt", map[string]string{"X-HTTP-Method-Override": "DELETE"}, enforce.Allow},
	} {
		r := agentRequest(tc.method, tc.target, nil)
		for k, v := range tc.header {
			r.Header.Set(k, v)
		}
		if d := serve(r); d.Outcome != tc.want {
			t.Errorf("%s %s %v: %v, want %v", tc.method, tc.target, tc.header, d.Outcome, tc.want)
		}
	}
}
