package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// TestClientsHosts: in process, Host is checked only when Clients.Hosts
// is set; then an agent naming a host other than the site URL's, a listed
// one or the address the request arrived on is refused 421
// (enforce.DenyHost), and a browser is not checked.
func TestClientsHosts(t *testing.T) {
	site := fixtures.OutdoorSupply() // https://outdoorsupply.example
	app := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	do := func(m *agentready.Middleware, host, ua string) int {
		r := httptest.NewRequest("GET", "/api/search?q=tent", nil)
		r.Host = host
		r.Header.Set("User-Agent", ua)
		w := httptest.NewRecorder()
		m.Handler(app).ServeHTTP(w, r)
		return w.Code
	}
	const gpt, firefox = "GPTBot/1.2", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	unchecked, err := agentready.New(site, agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	if got := do(unchecked, "anything.example", gpt); got != http.StatusOK {
		t.Errorf("no Clients.Hosts: %d, want 200 (Host unchecked)", got)
	}
	var last enforce.Decision
	checked, err := agentready.New(site, agentready.WithLogger(discardLogger()),
		agentready.WithClients(agentready.Clients{Hosts: []string{"api.outdoorsupply.example"}}),
		agentready.WithOnDecision(func(d enforce.Decision) { last = d }))
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]int{"outdoorsupply.example": 200, "OutdoorSupply.Example.:443": 200, "api.outdoorsupply.example": 200, "anything.example": 421} {
		if got := do(checked, host, gpt); got != want {
			t.Errorf("Host %q: %d, want %d", host, got, want)
		}
		if want == 421 && (last.Outcome != enforce.DenyHost || last.Status != 421) {
			t.Errorf("Host %q: decision %v %d, want deny-host 421", host, last.Outcome, last.Status)
		}
	}
	if got := do(checked, "anything.example", firefox); got != http.StatusOK {
		t.Errorf("a browser naming another host: %d, want 200", got)
	}
	if _, err := agentready.New(site, agentready.WithClients(agentready.Clients{Hosts: []string{"https://x.example/"}})); err == nil {
		t.Error("a URL in Clients.Hosts accepted")
	}
}
