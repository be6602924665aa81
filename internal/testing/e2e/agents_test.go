package e2e_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// TestEveryAutomatedClientIsAnAgent: a client passes untouched only as a
// plausible browser; the walk-arounds are agents under "*".
func TestEveryAutomatedClientIsAnAgent(t *testing.T) {
	e := newEnforced(t, fixtures.OutdoorSupply())
	u := e.srv.URL
	known := strings.Repeat("x", 600) + " ClaudeBot/1.0" // past the 512 bytes the classifier reads
	for name, hdr := range map[string][]string{
		"unknown name":               {"User-Agent", "MyScraper/1.0"},
		"bot with a contact URL":     {"User-Agent", "BookBot/0.1 (+https://x.example/bot)"},
		"compatible, not a browser":  {"User-Agent", "Mozilla/5.0 (compatible; MyScraper/1.0; +https://x.example)"},
		"self-declared agent":        {"User-Agent", "ShopAgent/1.0"},
		"known name past the window": {"User-Agent", known},
		"empty":                      {"User-Agent", ""},
		"non-ASCII":                  {"User-Agent", strings.Replace(uaChrome, "Windows", "Wíndows", 1)},
		"browser with a session":     {"User-Agent", uaChrome, "X-Agent-Session", "abc"},
		"browser with a signature":   {"User-Agent", uaChrome, "Signature-Input", `sig1=("@authority");tag="web-bot-auth"`},
		"browser, Signature-Agent":   {"User-Agent", uaChrome, "Signature-Agent", `sig1="https://agent.example"`},
		"headless Chrome":            {"User-Agent", strings.Replace(uaChrome, "Chrome/", "HeadlessChrome/", 1)},
	} {
		t.Run(name, func(t *testing.T) {
			res, body := send(t, "GET", u+"/admin/x", "", hdr...)
			if res.StatusCode != http.StatusForbidden || problem(t, string(body))["agent"] != "*" {
				t.Errorf("%d %s", res.StatusCode, body)
			}
		})
	}
	t.Run("no User-Agent at all", func(t *testing.T) {
		req, _ := http.NewRequest("GET", u+"/admin/x", nil)
		req.Header["User-Agent"] = nil // net/http sends none
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%d", res.StatusCode)
		}
	})
	t.Run("a second User-Agent after a browser's", func(t *testing.T) {
		r := httptest.NewRequest("GET", "/admin/x", nil)
		r.Header["User-Agent"] = []string{uaChrome, "MyScraper/1.0"}
		m, err := agentready.New(fixtures.OutdoorSupply())
		if err != nil {
			t.Fatal(err)
		}
		if d := m.Explain(r); d.Outcome != enforce.DenyPath || d.Class.Kind != enforce.KindUnknown {
			t.Errorf("%+v", d)
		}
		r.Header["User-Agent"] = []string{uaChrome + "\x01"} // a control byte net/http's client will not send
		if d := m.Explain(r); d.Outcome != enforce.DenyPath || d.Class.Kind != enforce.KindUnknown {
			t.Errorf("%+v", d)
		}
	})
	t.Run("browsers pass, a phone named Cubot too", func(t *testing.T) {
		for _, ua := range []string{uaChrome, uaSafariIOS, uaFirefox,
			"Mozilla/5.0 (Linux; Android 11; Cubot X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"} {
			if res, body := do(t, "GET", u+"/admin/x", ua); res.StatusCode != http.StatusOK {
				t.Errorf("%s: %d %s", ua, res.StatusCode, body)
			}
		}
	})
	t.Run("the decision says which class applied", func(t *testing.T) {
		do(t, "GET", u+"/admin/x", uaClaudeBot)
		kinds := map[string]bool{}
		for _, d := range e.decisions() {
			kinds[d.Class.Kind] = true
		}
		for _, k := range []string{enforce.KindBrowser, enforce.KindKnown, enforce.KindUnknown} {
			if !kinds[k] {
				t.Errorf("no decision of class %v", k)
			}
		}
	})
}

// TestBrowserTokens: a site lets its own app pass as a browser.
func TestBrowserTokens(t *testing.T) {
	e := newEnforced(t, fixtures.OutdoorSupply(), agentready.WithClients(agentready.Clients{Browsers: []string{"OutdoorApp"}}))
	if res, _ := do(t, "GET", e.srv.URL+"/admin/x", "OutdoorApp/3.2 (iPhone; iOS 18.1)"); res.StatusCode != http.StatusOK {
		t.Errorf("the site's app: %d", res.StatusCode)
	}
	if res, _ := do(t, "GET", e.srv.URL+"/admin/x", "OutdoorApp/3.2 ClaudeBot/1.0"); res.StatusCode != http.StatusForbidden {
		t.Errorf("a known agent carrying the token: %d", res.StatusCode)
	}
}

// TestUnknownAgentSessions: an agent no list knows creates a v0.1.0
// session, bound to its User-Agent product and client.
func TestUnknownAgentSessions(t *testing.T) {
	srv, _ := shopServer(t)
	token, _ := createSession(t, srv.URL, "ShopAgent/1.0")
	add := `{"id":"mug-blue","quantity":1}`
	if r := call(t, "POST", srv.URL+api+"cart/add", add, "User-Agent", "ShopAgent/1.1", "X-Agent-Session", token); r.status != http.StatusOK {
		t.Errorf("the session's agent: %d %s", r.status, r.raw)
	}
	for _, ua := range []string{"OtherAgent/1.0", "curl/8.5.0", "ShopAgentX/1.0"} {
		if r := call(t, "POST", srv.URL+api+"cart/add", add, "User-Agent", ua, "X-Agent-Session", token); r.status != http.StatusUnauthorized {
			t.Errorf("%s used ShopAgent's token: %d %s", ua, r.status, r.raw)
		}
	}
	// A browser's User-Agent with the token is an agent too, not ShopAgent.
	if r := call(t, "POST", srv.URL+api+"cart/add", add, "User-Agent", uaChrome, "X-Agent-Session", token); r.status != http.StatusUnauthorized {
		t.Errorf("a browser User-Agent used ShopAgent's token: %d %s", r.status, r.raw)
	}
}

// TestReportOnly: nothing is denied, every decision is reported, and the
// response names the decision that would have applied.
func TestReportOnly(t *testing.T) {
	e := newEnforced(t, fixtures.OutdoorSupply(), agentready.WithReportOnly())
	res, body := do(t, "GET", e.srv.URL+"/admin/x", uaClaudeBot)
	if res.StatusCode != http.StatusOK || body != "app /admin/x" {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if got := res.Header.Get(enforce.HeaderReportOnly); got != `deny-path;status=403;rule="Disallow: /admin/*"` {
		t.Errorf("%s: %q", enforce.HeaderReportOnly, got)
	}
	res, _ = do(t, "GET", e.srv.URL+"/x/%2e%2e/admin", uaClaudeBot)
	if got := res.Header.Get(enforce.HeaderReportOnly); !strings.HasPrefix(got, "deny-target;status=400;rule=") {
		t.Errorf("%s: %q", enforce.HeaderReportOnly, got)
	}
	res, _ = do(t, "POST", e.srv.URL+"/mcp", uaClaudeDeclared)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get(enforce.HeaderReportOnly), "deny-auth;status=401") {
		t.Errorf("%d %v", res.StatusCode, res.Header)
	}
	res, _ = do(t, "GET", e.srv.URL+"/api/search?q=a", uaClaudeDeclared)
	if res.Header.Get(enforce.HeaderReportOnly) != "" || res.Header.Get("RateLimit") == "" {
		t.Errorf("an allowed request: %v", res.Header)
	}
	var reported int
	for _, d := range e.decisions() {
		if d.ReportOnly {
			reported++
			if d.Outcome.Allowed() || d.Status == 0 {
				t.Errorf("%+v", d)
			}
		}
	}
	if reported != 3 {
		t.Errorf("%d report-only decisions, want 3", reported)
	}
}

// TestProbes: health paths and trusted networks pass; a probe's
// User-Agent alone does not.
func TestProbes(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Access.Disallow = append(site.Access.Disallow, "/healthz", "/readyz", "/robots.txt")
	e := newEnforced(t, site, agentready.WithClients(agentready.Clients{ProbePaths: []string{"/healthz"}}))
	if res, _ := do(t, "GET", e.srv.URL+"/healthz", "kube-probe/1.30"); res.StatusCode != http.StatusOK {
		t.Errorf("probe path: %d", res.StatusCode)
	}
	if res, _ := do(t, "GET", e.srv.URL+"/readyz", "kube-probe/1.30"); res.StatusCode != http.StatusForbidden {
		t.Errorf("a probe User-Agent alone passed: %d", res.StatusCode)
	}
	e = newEnforced(t, site, agentready.WithClients(agentready.Clients{ProbeNets: []string{"127.0.0.0/8"}}))
	if res, _ := do(t, "GET", e.srv.URL+"/admin/x", "ELB-HealthChecker/2.0"); res.StatusCode != http.StatusOK {
		t.Errorf("probe network: %d", res.StatusCode)
	}
	// A proxy's address does not pass for the clients it forwards: with a
	// forwarding header, only a client that X-Forwarded-For names can be
	// in a probe network.
	for _, trusted := range []bool{true, false} {
		clients := agentready.Clients{ProbeNets: []string{"127.0.0.0/8"}}
		if trusted {
			clients.TrustedProxies = []string{"127.0.0.0/8"}
		}
		e = newEnforced(t, site, agentready.WithClients(clients))
		for _, hdr := range [][]string{
			{"Forwarded", "for=203.0.113.9"},
			{"X-Real-IP", "203.0.113.9"},
			{"X-Forwarded-For", "203.0.113.9, junk"},
			{"X-Forwarded-For", "203.0.113.9"},
			{"X-Forwarded-For", "127.0.0.9"}, // a trusted proxy named, or an untrusted peer's claim
		} {
			if res, _ := do(t, "GET", e.srv.URL+"/admin/x", uaGPTBot, hdr...); res.StatusCode != http.StatusForbidden {
				t.Errorf("trusted proxies %v, %s: %s: an agent behind the probe network passed: %d", trusted, hdr[0], hdr[1], res.StatusCode)
			}
		}
		if res, _ := do(t, "GET", e.srv.URL+"/admin/x", "ELB-HealthChecker/2.0"); res.StatusCode != http.StatusOK {
			t.Errorf("trusted proxies %v: the balancer's own probe: %d", trusted, res.StatusCode)
		}
	}
	// The exemptions match the path as sent: a router that routes the raw
	// path (chi) would take these for other paths.
	e = newEnforced(t, site, agentready.WithClients(agentready.Clients{ProbePaths: []string{"/healthz"}}))
	for _, p := range []string{"/health%7A", "/robots%2Etxt"} {
		if res, _ := do(t, "GET", e.srv.URL+p, "kube-probe/1.30"); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s passed as an exemption: %d", p, res.StatusCode)
		}
	}
	if _, err := agentready.New(site, agentready.WithClients(agentready.Clients{ProbeNets: []string{"10.0.0.0/99"}})); err == nil {
		t.Error("a bad probe network was accepted")
	}
	if _, err := agentready.New(site, agentready.WithClients(agentready.Clients{ProbePaths: []string{"healthz"}})); err == nil {
		t.Error("a probe path without / was accepted")
	}
}

// TestImplicitScope: a site without Access rules says to whom draft-car
// 2.6 applies; ImplicitAIAgents leaves other clients' paths open, not
// their capabilities.
func TestImplicitScope(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Access = config.Access{}
	if _, err := agentready.New(site); err == nil || !strings.Contains(err.Error(), "WithImplicitAccess") {
		t.Fatalf("New without a scope: %v", err)
	}
	if _, err := agentready.New(site, agentready.WithImplicitAccess("")); err == nil {
		t.Fatal("an empty scope accepted")
	}
	e := newEnforced(t, site, agentready.WithImplicitAccess(agentready.ImplicitAIAgents))
	for _, tt := range []struct {
		ua, method, path string
		want             int
	}{
		{uaClaudeBot, "GET", "/products", 403},
		{uaClaudeDeclared, "GET", "/products", 403},
		{"curl/8.5.0", "GET", "/products", 200},
		{"FeedReader/2.0", "GET", "/feed.xml", 200},
		{"curl/8.5.0", "POST", "/mcp", 401}, // its auth still applies
		{"curl/8.5.0", "GET", "/x/../admin", 400},
	} {
		if res, body := do(t, tt.method, e.srv.URL+tt.path, tt.ua); res.StatusCode != tt.want {
			t.Errorf("%s %s %s: %d, want %d: %s", tt.ua, tt.method, tt.path, res.StatusCode, tt.want, body)
		}
	}
}

// TestDeclaredAuth: hmac needs an Authenticator; presence-only checks
// are logged once and flagged; a binding can check auth for browsers.
func TestDeclaredAuth(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Capabilities[1].Auth = config.Auth{Type: config.AuthHMAC}
	if _, err := agentready.New(site); err == nil || !strings.Contains(err.Error(), "hmac") {
		t.Errorf("hmac without an Authenticator: %v", err)
	}
	accept := func(*http.Request, *config.Capability, string) error { return nil }
	if _, err := agentready.New(site, agentready.WithAuthenticator(accept)); err != nil {
		t.Errorf("hmac with an Authenticator: %v", err)
	}

	var log bytes.Buffer
	e := newEnforced(t, fixtures.OutdoorSupply(), agentready.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if n := strings.Count(log.String(), "presence only"); n != 1 || !strings.Contains(log.String(), "store-assistant") {
		t.Errorf("log: %s", log.String())
	}
	do(t, "POST", e.srv.URL+"/mcp", uaClaudeDeclared, "Authorization", "Bearer x")
	if ds := e.decisions(); len(ds) != 1 || !ds[0].PresenceOnly {
		t.Errorf("%+v", ds)
	}

	m, err := agentready.New(fixtures.OutdoorSupply())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /mcp", m.Capability("store-assistant", agentready.AuthForEveryClient())(app))
	mux.Handle("GET /api/search", m.Capability("product-search", agentready.AuthForEveryClient())(app))
	srv := httptest.NewServer(m.Handler(mux))
	defer srv.Close()
	if res, body := do(t, "POST", srv.URL+"/mcp", uaChrome); res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Auth: bearer-token") {
		t.Errorf("a browser without a token: %d %s", res.StatusCode, body)
	}
	if res, _ := do(t, "POST", srv.URL+"/mcp", uaChrome, "Authorization", "Bearer x"); res.StatusCode != http.StatusOK {
		t.Errorf("a browser with a token: %d", res.StatusCode)
	}
	if res, _ := do(t, "GET", srv.URL+"/api/search?q=a", uaChrome); res.StatusCode != http.StatusOK {
		t.Errorf("auth none: %d", res.StatusCode)
	}

	// Every client means agents that pass as probes too, with the binding
	// behind Wrap and on its own.
	m, err = agentready.New(fixtures.OutdoorSupply(), agentready.WithClients(agentready.Clients{ProbePaths: []string{"/mcp"}, ProbeNets: []string{"127.0.0.0/8"}}))
	if err != nil {
		t.Fatal(err)
	}
	bound := m.Capability("store-assistant", agentready.AuthForEveryClient())(app)
	for _, h := range []http.Handler{m.Handler(bound), bound} {
		srv := httptest.NewServer(h)
		for _, ua := range []string{"curl/8.5.0", uaClaudeDeclared, uaChrome} {
			if res, _ := do(t, "POST", srv.URL+"/mcp", ua); res.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s from a probe network, to a probe path, without a token: %d, want 401", ua, res.StatusCode)
			}
		}
		if res, _ := do(t, "POST", srv.URL+"/mcp", "curl/8.5.0", "Authorization", "Bearer x"); res.StatusCode != http.StatusOK {
			t.Errorf("a probe with a token: %d", res.StatusCode)
		}
		srv.Close()
	}
}

// TestExplainTarget: Explain reports an ambiguous target as it would be
// answered.
func TestExplainTarget(t *testing.T) {
	m, err := agentready.New(fixtures.OutdoorSupply())
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/admin/..%2Fapi/search", nil)
	r.Header.Set("User-Agent", uaClaudeBot)
	d := m.Explain(r)
	if d.Outcome != enforce.DenyTarget || d.Status != 400 || !errors.Is(d.Err, policy.ErrEncodedSlash) {
		t.Errorf("%+v", d)
	}
	r.Header.Set("User-Agent", uaChrome)
	if d := m.Explain(r); d.Outcome != enforce.Pass {
		t.Errorf("a browser: %+v", d)
	}
}

// TestExplainLimitResults: Explain reports what every limit would answer,
// consuming nothing, and a limit that is exhausted as DenyRate.
func TestExplainLimitResults(t *testing.T) {
	clock := testclock.New(time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC))
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(app)
	req := func() *http.Request {
		r := httptest.NewRequest("GET", "/api/search?q=a", nil)
		r.Header.Set("User-Agent", uaClaudeDeclared)
		return r
	}
	d := m.Explain(req())
	res := d.Results[:2]
	if d.Outcome != enforce.Allow || d.Limits[2] != "" || !res[0].Allowed || res[0].Limit != 200 || res[0].Remaining != 199 || res[1].Remaining != 59 {
		t.Fatalf("Explain of a fresh client: %v %+v", d.Outcome, res)
	}
	for range 60 { // capability/product-search is 60/minute
		h.ServeHTTP(httptest.NewRecorder(), req())
	}
	d = m.Explain(req())
	if d.Outcome != enforce.DenyRate || d.Limit != "capability/product-search" || d.RetryAfter <= 0 || d.Status != http.StatusTooManyRequests {
		t.Fatalf("Explain once the limit is spent: %+v", d)
	}
	if d := m.Explain(req()); d.Results[0].Remaining != 140 {
		t.Error("Explain consumed a token")
	}
}

// TestProbesRecordSessions: a request presenting a session is recorded,
// even from a probe network.
func TestProbesRecordSessions(t *testing.T) {
	srv, _ := countingShop(t, acme(), agentready.WithClients(agentready.Clients{ProbeNets: []string{"127.0.0.0/8"}}))
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	if r := call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue"}`, as...); r.status != 200 {
		t.Fatalf("cart.add: %d", r.status)
	}
	call(t, "DELETE", srv.URL+sessPath, "", as...)
	if evs := artifact(t, srv.URL, id).Events; len(evs) != 3 || evs[1].Capability != "cart.add" {
		t.Errorf("events %+v", evs)
	}
}
