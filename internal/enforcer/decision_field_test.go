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
