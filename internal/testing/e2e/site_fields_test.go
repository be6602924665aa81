package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// TestSiteDialectAndImplicitAccess: New reads the declaration's own
// dialect and implicit-access scope (a declaration file's dialect and
// implicit_access keys); Documents.Dialect naming v0.1.0 and
// WithImplicitAccess win over them.
func TestSiteDialectAndImplicitAccess(t *testing.T) {
	get := func(t *testing.T, m *agentready.Middleware, ua, path string) (int, string) {
		t.Helper()
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("User-Agent", ua)
		w := httptest.NewRecorder()
		m.Handler(http.NotFoundHandler()).ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	site := fixtures.OutdoorSupply()
	site.Access = config.Access{}
	site.ImplicitAccess = agentready.ImplicitAllAgents
	m, err := agentready.New(site, agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	// all-agents: a generic client is held to the capability endpoints.
	if code, _ := get(t, m, "curl/8.5.0", "/products"); code != http.StatusForbidden {
		t.Errorf("Site.ImplicitAccess all-agents: curl on /products: %d, want 403", code)
	}
	m, err = agentready.New(site, agentready.WithImplicitAccess(agentready.ImplicitAIAgents), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := get(t, m, "curl/8.5.0", "/products"); code != http.StatusNotFound {
		t.Errorf("WithImplicitAccess(ai-agents) over the site's all-agents: curl on /products: %d, want 404 (passed)", code)
	}
	site.ImplicitAccess = "everyone"
	if _, err := agentready.New(site); err == nil || !strings.Contains(err.Error(), `ImplicitAccess: "everyone" is not a scope`) ||
		strings.Contains(err.Error(), "no allow or disallow rule") {
		t.Errorf("an unknown scope: %v", err)
	}

	v010 := fixtures.AcmeCeramics()
	v010.Audit = config.Audit{}
	v010.ImplicitAccess = agentready.ImplicitAllAgents
	if _, err := agentready.New(v010, agentready.WithLogger(discardLogger())); err == nil || !strings.Contains(err.Error(), "draft-car") {
		t.Errorf("v0.1.0 names without a dialect: %v", err)
	}
	v010.Dialect = config.DialectV010
	m, err = agentready.New(v010, agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatalf("Site.Dialect v0.1.0: %v", err)
	}
	if _, body := get(t, m, "curl/8.5.0", "/.well-known/agents.txt"); !strings.Contains(body, "Allow: cart.add") {
		t.Errorf("Site.Dialect v0.1.0: agents.txt is not v0.1.0's:\n%s", body)
	}
	v010.Dialect = config.DialectIETFDraft
	if _, err := agentready.New(v010, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithLogger(discardLogger())); err != nil {
		t.Errorf("Documents.Dialect v0.1.0 over the site's draft-car: %v", err)
	}
}
