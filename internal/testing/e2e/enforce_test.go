package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/ratelimit"
)

// Real User-Agents, as their operators publish them.
const (
	uaClaudeBot      = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"
	uaClaudeUser     = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)"
	uaGPTBot         = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	uaChatGPTUser    = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"
	uaOAISearchBot   = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot"
	uaPerplexityBot  = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)"
	uaPerplexityUser = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)"
	uaGooglebot      = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	uaBytespider     = "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)"
	uaCCBot          = "CCBot/2.0 (https://commoncrawl.org/faq/)"
	uaAmazonbot      = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36"
	uaApplebot       = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)"
	uaChrome         = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	uaSafariIOS      = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
	uaFirefox        = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	uaClaudeDeclared = "claude/1.0 (+https://anthropic.com)"
)

type enforced struct {
	srv   *httptest.Server
	clock *testclock.Clock
	mu    sync.Mutex
	seen  []enforce.Decision
}

func (e *enforced) decisions() []enforce.Decision {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]enforce.Decision(nil), e.seen...)
}

// newEnforced serves site through Handler with a fake clock and a decision
// recorder.
func newEnforced(t *testing.T, site config.Site, opts ...agentready.Option) *enforced {
	t.Helper()
	e := &enforced{clock: testclock.New(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC))}
	opts = append([]agentready.Option{
		agentready.WithClock(e.clock.Now),
		agentready.WithOnDecision(func(d enforce.Decision) {
			e.mu.Lock()
			e.seen = append(e.seen, d)
			e.mu.Unlock()
		}),
	}, opts...)
	m, err := agentready.New(site, opts...)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(m.Handler(app))
	t.Cleanup(e.srv.Close)
	return e
}

func do(t *testing.T, method, url, ua string, hdr ...string) (*http.Response, string) {
	t.Helper()
	res, b := send(t, method, url, "", append([]string{"User-Agent", ua}, hdr...)...)
	return res, string(b)
}

func problem(t *testing.T, body string) map[string]any {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatalf("not problem+json: %v: %s", err, body)
	}
	return p
}

// rpcProblem is the problem a refused MCP request carries in its JSON-RPC
// error's data (docs/mcp.md).
func rpcProblem(t *testing.T, body string) map[string]any {
	t.Helper()
	var m struct {
		JSONRPC string `json:"jsonrpc"`
		Error   struct {
			Code int            `json:"code"`
			Data map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.JSONRPC != "2.0" || m.Error.Code != -32001 {
		t.Fatalf("not a JSON-RPC refusal: %v: %s", err, body)
	}
	return m.Error.Data
}

// TestAppendixAEnforced is the acceptance list on the Appendix A
// site: paths closed to agents, browsers untouched, the claude block's
// limit and capabilities, product-search's own limit, store-assistant's 401.
func TestAppendixAEnforced(t *testing.T) {
	e := newEnforced(t, fixtures.OutdoorSupply())
	u := e.srv.URL

	t.Run("agents are kept out of /admin/* and /internal/*, browsers are not", func(t *testing.T) {
		for _, p := range []string{"/admin/users", "/internal/metrics", "/%61dmin/users", "/adm%69n/x"} {
			res, body := do(t, "GET", u+p, uaClaudeBot)
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("ClaudeBot %s: %d %s", p, res.StatusCode, body)
				continue
			}
			pr := problem(t, body)
			if res.Header.Get("Content-Type") != "application/problem+json" ||
				!strings.Contains(res.Header.Get("Link"), "/.well-known/agents.txt") ||
				!strings.HasPrefix(pr["rule"].(string), "Disallow: /") || !strings.Contains(pr["detail"].(string), "Disallow: /") {
				t.Errorf("ClaudeBot %s: %v %v", p, res.Header, pr)
			}
			res, body = do(t, "GET", u+p, uaChrome)
			if res.StatusCode == http.StatusForbidden || strings.Contains(body, "problem") {
				t.Errorf("Chrome %s was touched: %d %s", p, res.StatusCode, body)
			}
		}
	})

	t.Run("targets routers read differently are refused with 400", func(t *testing.T) {
		for _, p := range []string{"//admin/users", "/./admin/users", "/x/../admin/users", "/x/%2e%2e/admin/users",
			"/x/..%2fadmin/users", "/x/..%2Fadmin/users", "/ADMIN/../admin/x", "/admin/..%2Fapi/search", "/admin/.%2e/x",
			"/api%5Csearch", "/admin/x%00"} {
			res, body := do(t, "GET", u+p, uaClaudeBot)
			if res.StatusCode != http.StatusBadRequest || res.Header.Get("Content-Type") != "application/problem+json" ||
				!strings.Contains(problem(t, body)["detail"].(string), "refused") {
				t.Errorf("ClaudeBot %s: %d %s", p, res.StatusCode, body)
			}
			res, body = do(t, "GET", u+p, uaChrome)
			if res.StatusCode == http.StatusBadRequest || strings.Contains(body, "problem") {
				t.Errorf("Chrome %s was touched: %d %s", p, res.StatusCode, body)
			}
		}
	})

	t.Run("real agents are classified and enforced", func(t *testing.T) {
		for _, ua := range []string{uaClaudeBot, uaClaudeUser, uaGPTBot, uaChatGPTUser, uaOAISearchBot, uaPerplexityBot,
			uaPerplexityUser, uaGooglebot, uaBytespider, uaCCBot, uaAmazonbot, uaApplebot, "curl/8.5.0", "python-requests/2.32.3", ""} {
			res, _ := do(t, "GET", u+"/admin/", ua)
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("%q reached /admin/: %d", ua, res.StatusCode)
			}
		}
		for _, ua := range []string{uaChrome, uaSafariIOS, uaFirefox} {
			res, body := do(t, "GET", u+"/admin/", ua)
			if res.StatusCode != http.StatusOK || body != "app /admin/" || res.Header.Get("Ratelimit") != "" {
				t.Errorf("browser %q: %d %q %v", ua, res.StatusCode, body, res.Header)
			}
		}
	})

	t.Run("store-assistant requires its bearer token", func(t *testing.T) {
		res, body := do(t, "POST", u+"/mcp", uaClaudeDeclared)
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%d %s", res.StatusCode, body)
		}
		if wa := res.Header.Get("WWW-Authenticate"); !strings.HasPrefix(wa, "Bearer ") {
			t.Errorf("WWW-Authenticate %q", wa)
		}
		pr := rpcProblem(t, body) // an MCP endpoint's refusal: JSON-RPC
		if pr["capability"] != "store-assistant" || pr["token_endpoint"] != "https://outdoorsupply.example/auth/token" ||
			!strings.Contains(pr["detail"].(string), "bearer-token") {
			t.Errorf("problem %v", pr)
		}
		res, body = do(t, "POST", u+"/mcp", uaClaudeDeclared, "Authorization", "Bearer abc123")
		if res.StatusCode != http.StatusOK || body != "app /mcp" {
			t.Errorf("with a token: %d %s", res.StatusCode, body)
		}
	})

	t.Run("product-search keeps its 60/minute and recovers after the window", func(t *testing.T) {
		const ua = "Mozilla/5.0 (compatible; GPTBot/1.2)"
		for i := 1; i <= 60; i++ {
			res, _ := do(t, "GET", u+"/api/search?q=tent", ua)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("request %d: %d", i, res.StatusCode)
			}
			if i == 1 {
				if got := res.Header.Get("RateLimit-Policy"); got != `"capability/product-search";q=60;w=60` {
					t.Errorf("RateLimit-Policy %q", got)
				}
				if got := res.Header.Get("RateLimit"); !strings.HasPrefix(got, `"capability/product-search";r=59;t=`) {
					t.Errorf("RateLimit %q", got)
				}
			}
		}
		res, body := do(t, "GET", u+"/api/search?q=tent", ua)
		if res.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("61st request: %d", res.StatusCode)
		}
		// One token every second (60/minute): Retry-After is the real wait.
		if ra := res.Header.Get("Retry-After"); ra != "1" {
			t.Errorf("Retry-After %q", ra)
		}
		if got := res.Header.Get("RateLimit"); got != `"capability/product-search";r=0;t=1` {
			t.Errorf("RateLimit %q", got)
		}
		pr := problem(t, body)
		if pr["limit"] != "capability/product-search" || pr["rule"] != "Rate-Limit: 60/minute" || pr["status"].(float64) != 429 {
			t.Errorf("problem %v", pr)
		}
		e.clock.Advance(time.Second)
		if res, _ := do(t, "GET", u+"/api/search?q=tent", ua); res.StatusCode != http.StatusOK {
			t.Errorf("after one emission interval: %d", res.StatusCode)
		}
		if res, _ := do(t, "GET", u+"/api/search?q=tent", ua); res.StatusCode != http.StatusTooManyRequests {
			t.Errorf("a second request in the same interval: %d", res.StatusCode)
		}
		e.clock.Advance(time.Minute)
		for i := 0; i < 60; i++ {
			if res, _ := do(t, "GET", u+"/api/search?q=tent", ua); res.StatusCode != http.StatusOK {
				t.Fatalf("after the window, request %d: %d", i, res.StatusCode)
			}
		}
	})

	t.Run("the claude block: 200/minute across its capabilities", func(t *testing.T) {
		ok, limited := 0, 0
		for i := 0; i < 260; i++ {
			path := "/api/search?q=x"
			if i%2 == 1 {
				path = "/api/other"
			}
			res, _ := do(t, "GET", u+path, uaClaudeDeclared)
			switch res.StatusCode {
			case http.StatusOK:
				ok++
			case http.StatusTooManyRequests:
				limited++
			}
		}
		// The agent limit (200) binds before product-search's 60 on the
		// search half? No: product-search allows 60 of the 130 searches, so
		// 60 searches + 130 other requests = 190 pass, within 200.
		if ok != 190 || limited != 70 {
			t.Errorf("ok %d, limited %d", ok, limited)
		}
		e.clock.Advance(time.Minute)
		for i := 0; i < 200; i++ {
			if res, _ := do(t, "GET", u+"/api/other", uaClaudeDeclared); res.StatusCode != http.StatusOK {
				t.Fatalf("request %d of 200: %d", i+1, res.StatusCode)
			}
		}
		res, body := do(t, "GET", u+"/api/other", uaClaudeDeclared)
		if res.StatusCode != http.StatusTooManyRequests || problem(t, body)["limit"] != "agent/claude" {
			t.Errorf("201st: %d %s", res.StatusCode, body)
		}
		if got := res.Header.Get("RateLimit-Policy"); got != `"agent/claude";q=200;w=60` {
			t.Errorf("RateLimit-Policy %q", got)
		}
	})

	t.Run("documents and robots.txt are always served", func(t *testing.T) {
		for _, p := range []string{"/.well-known/agents.txt", "/.well-known/agents.json", "/agents.md", "/agent.json", "/robots.txt"} {
			res, _ := do(t, "GET", u+p, uaBytespider)
			if res.StatusCode != http.StatusOK {
				t.Errorf("%s: %d", p, res.StatusCode)
			}
		}
	})

	t.Run("every decision reaches the hook", func(t *testing.T) {
		ds := e.decisions()
		var denied, passed int
		for _, d := range ds {
			if d.Outcome == enforce.Pass {
				passed++
			}
			if !d.Outcome.Allowed() {
				denied++
				if (d.Rule == "" && d.Err == nil) || d.Status == 0 {
					t.Errorf("denial without rule or status: %+v", d)
				}
			}
		}
		if denied == 0 || passed == 0 {
			t.Errorf("hook saw %d decisions, %d denied, %d passed", len(ds), denied, passed)
		}
	})
}

func TestCapabilityScope(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Agents = append(site.Agents, config.AgentPolicy{Name: "GPTBot", Capabilities: []string{"product-search"}})
	e := newEnforced(t, site)
	res, body := do(t, "POST", e.srv.URL+"/mcp", uaGPTBot, "Authorization", "Bearer t")
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	pr := rpcProblem(t, body) // an MCP endpoint's refusal: JSON-RPC
	if pr["agent"] != "GPTBot" || pr["capability"] != "store-assistant" || pr["rule"] != "Agent: GPTBot / Capabilities: product-search" {
		t.Errorf("problem %v", pr)
	}
	if res, _ := do(t, "GET", e.srv.URL+"/api/search?q=a", uaGPTBot); res.StatusCode != http.StatusOK {
		t.Errorf("permitted capability: %d", res.StatusCode)
	}
	// A declared name wins over "*" and over the known-agent list, and
	// matches exactly: "GPTBot" is not "GPTBot-Extended".
	if res, _ := do(t, "POST", e.srv.URL+"/mcp", "GPTBot-Extended/1.0", "Authorization", "Bearer t"); res.StatusCode != http.StatusOK {
		t.Errorf("GPTBot-Extended got GPTBot's policy: %d", res.StatusCode)
	}
}

func TestImplicitAccess(t *testing.T) {
	// draft-car 2.6: with no Allow/Disallow, agents may use only the
	// capability endpoints.
	site := fixtures.OutdoorSupply()
	site.Access = config.Access{}
	e := newEnforced(t, site, agentready.WithImplicitAccess(agentready.ImplicitAllAgents))
	for path, want := range map[string]int{
		"/api/search":       200,
		"/api/search?q=x":   200,
		"/mcp":              401, // the endpoint, but bearer-token is declared
		"/api/searchx":      403,
		"/api/search/extra": 403,
		"/":                 403,
		"/products":         403,
	} {
		method := "GET"
		if path == "/mcp" {
			method = "POST"
		}
		res, body := do(t, method, e.srv.URL+path, uaCCBot)
		if res.StatusCode != want {
			t.Errorf("%s: %d, want %d: %s", path, res.StatusCode, want, body)
		}
		if want == 403 && !strings.Contains(body, "draft-car 2.6") {
			t.Errorf("%s: detail does not cite draft-car 2.6: %s", path, body)
		}
	}
	if res, _ := do(t, "GET", e.srv.URL+"/products", uaChrome); res.StatusCode != 200 {
		t.Errorf("a browser is not an agent: %d", res.StatusCode)
	}
}

func TestForwardedForSpoofing(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Capabilities[0].RateLimit = config.PerMinute(2)
	search := func(e *enforced, xff string) int {
		res, _ := do(t, "GET", e.srv.URL+"/api/search?q=a", uaCCBot, "X-Forwarded-For", xff)
		return res.StatusCode
	}
	t.Run("untrusted: X-Forwarded-For is ignored", func(t *testing.T) {
		e := newEnforced(t, site)
		// Each request claims another address; all count for 127.0.0.1.
		codes := []int{search(e, "203.0.113.1"), search(e, "203.0.113.2"), search(e, "203.0.113.3")}
		if codes[2] != http.StatusTooManyRequests {
			t.Errorf("spoofed addresses escaped the limit: %v", codes)
		}
	})
	t.Run("trusted proxy: the right-most untrusted address is the client", func(t *testing.T) {
		e := newEnforced(t, site, agentready.WithClients(agentready.Clients{TrustedProxies: []string{"127.0.0.1/32", "10.0.0.0/8"}}))
		// An attacker prepends addresses; the proxy appends the real one.
		a := []int{search(e, "198.51.100.7, 203.0.113.9, 10.1.2.3"), search(e, "1.1.1.1, 203.0.113.9"), search(e, "203.0.113.9")}
		if a[2] != http.StatusTooManyRequests {
			t.Errorf("client 203.0.113.9 not limited: %v", a)
		}
		if c := search(e, "203.0.113.10"); c != http.StatusOK {
			t.Errorf("another client shares the bucket: %d", c)
		}
	})
}

func TestManyClientsBoundedMemory(t *testing.T) {
	clock := testclock.New(time.Unix(0, 0))
	store, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{MaxEntries: 1000, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithStore(store))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(app)
	for i := 0; i < 5000; i++ {
		r := httptest.NewRequest("GET", "/api/search?q=a", nil)
		r.Header.Set("User-Agent", uaClaudeDeclared)
		r.RemoteAddr = fmt.Sprintf("10.%d.%d.%d:1234", i>>16&255, i>>8&255, i&255)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("client %d: %d", i, w.Code)
		}
	}
	if n := store.Len(); n > 1000 {
		t.Errorf("store holds %d buckets, cap 1000", n)
	}
}

func TestBindings(t *testing.T) {
	clock := testclock.New(time.Unix(0, 0))
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })

	// chi's r.Use(m.Handler) and r.With(m.Capability(...)) compose the
	// same way; routertest runs chi itself.
	t.Run("a route bound to a capability its path does not declare", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.Handle("POST /api/assistant", m.Capability("store-assistant")(ok))
		srv := httptest.NewServer(m.Handler(mux))
		defer srv.Close()
		res, _ := do(t, "POST", srv.URL+"/api/assistant", uaClaudeDeclared)
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("bound route without token: %d", res.StatusCode)
		}
		res, _ = do(t, "POST", srv.URL+"/api/assistant", uaClaudeDeclared, "Authorization", "Bearer x")
		if res.StatusCode != http.StatusOK {
			t.Errorf("bound route with token: %d", res.StatusCode)
		}
		res, _ = do(t, "POST", srv.URL+"/api/assistant", uaChrome)
		if res.StatusCode != http.StatusOK {
			t.Errorf("browser on bound route: %d", res.StatusCode)
		}
	})
	t.Run("net/http: binding alone runs the whole pipeline", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.Handle("GET /search", m.Capability("product-search")(ok))
		mux.Handle("GET /admin/search", m.Capability("product-search")(ok))
		srv := httptest.NewServer(mux)
		defer srv.Close()
		for i := 0; i < 60; i++ {
			if res, _ := do(t, "GET", srv.URL+"/search", uaCCBot); res.StatusCode != http.StatusOK {
				t.Fatalf("request %d: %d", i, res.StatusCode)
			}
		}
		if res, _ := do(t, "GET", srv.URL+"/search", uaCCBot); res.StatusCode != http.StatusTooManyRequests {
			t.Errorf("61st: %d", res.StatusCode)
		}
		if res, _ := do(t, "GET", srv.URL+"/admin/search", uaPerplexityBot); res.StatusCode != http.StatusForbidden {
			t.Errorf("Disallow still applies under a binding: %d", res.StatusCode)
		}
	})
	t.Run("undeclared capability answers 500, never opens", func(t *testing.T) {
		h := m.Capability("no-such-capability")(ok)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/x", nil))
		if w.Code != http.StatusInternalServerError {
			t.Errorf("%d", w.Code)
		}
	})
}

func TestExplain(t *testing.T) {
	m, err := agentready.New(fixtures.OutdoorSupply())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		ua, method, path string
		outcome          enforce.Outcome
		rule, capability string
	}{
		{uaChrome, "GET", "/admin/", enforce.Pass, "", ""},
		{uaClaudeBot, "GET", "/admin/", enforce.DenyPath, "Disallow: /admin/*", ""},
		{uaClaudeDeclared, "GET", "/api/search?q=a", enforce.Allow, "Allow: /api/*", "product-search"},
		{uaClaudeDeclared, "POST", "/mcp", enforce.DenyAuth, "Auth: bearer-token", "store-assistant"},
		{uaClaudeBot, "GET", "/.well-known/agents.txt", enforce.Allow, "discovery documents are always served", ""},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.path, nil)
		r.Header.Set("User-Agent", c.ua)
		d := m.Explain(r)
		if d.Outcome != c.outcome || d.Rule != c.rule || d.Capability != c.capability {
			t.Errorf("%s %s %q: %v rule %q capability %q", c.method, c.path, c.ua, d.Outcome, d.Rule, d.Capability)
		}
	}
	// Explain consumes nothing: a thousand explanations, then the real
	// request still has its whole quota.
	r := httptest.NewRequest("GET", "/api/search?q=a", nil)
	r.Header.Set("User-Agent", uaClaudeDeclared)
	for i := 0; i < 1000; i++ {
		m.Explain(r)
	}
	if d := m.Explain(r); d.Limits != [4]string{"agent/claude", "capability/product-search", ""} {
		t.Errorf("limits %q", d.Limits)
	}
	w := httptest.NewRecorder()
	m.Handler(app).ServeHTTP(w, r)
	if got := w.Header().Get("RateLimit"); !strings.Contains(got, `"agent/claude";r=199`) {
		t.Errorf("RateLimit after Explain: %q", got)
	}
}

// TestHostileInput: malformed User-Agents, paths, headers and forwarded
// chains get a decision, never a panic.
func TestHostileInput(t *testing.T) {
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithClients(agentready.Clients{TrustedProxies: []string{"0.0.0.0/0", "::/0"}, TrustAllProxies: true}))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(app)
	long := strings.Repeat("a", 70000)
	uas := []string{"", "(", ")", "((((", strings.Repeat(";", 10000), "\x00\xff\xfe", "Mozilla/5.0 (compatible; " + long, "/////", "claude/" + long}
	paths := []string{"/", "/%", "/%zz", "/%2", "/" + long, "/a/../../../../..", "/%2e%2e/%2e%2e", "/admin%00", "/*", "/$", "/?%zz=%", "//////"}
	xffs := []string{"", ",,,", "garbage", "1.2.3.4, nope, ::1", strings.Repeat("1.1.1.1,", 5000), "[::1]:80", "fe80::1%eth0"}
	for _, ua := range uas {
		for _, p := range paths {
			for _, x := range xffs {
				r := httptest.NewRequest("GET", "/", nil)
				r.URL.RawPath, r.URL.Path = p, p
				r.RequestURI = p
				r.Header.Set("User-Agent", ua)
				r.Header.Set("X-Forwarded-For", x)
				r.RemoteAddr = "not an address"
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r) // must not panic
				if w.Code == 0 {
					t.Fatalf("no status for %q %q", ua, p)
				}
			}
		}
	}
}

func TestRateLimitHeadersOnAllowed(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.RateLimit = config.PerMinute(1000)
	e := newEnforced(t, site)
	res, _ := do(t, "GET", e.srv.URL+"/api/search?q=a", uaClaudeDeclared)
	pol := res.Header.Get("RateLimit-Policy")
	want := `"site";q=1000;w=60, "agent/claude";q=200;w=60, "capability/product-search";q=60;w=60`
	if pol != want {
		t.Errorf("RateLimit-Policy %q, want %q", pol, want)
	}
	rl := res.Header.Get("RateLimit")
	for _, part := range []string{`"site";r=999;t=`, `"agent/claude";r=199;t=`, `"capability/product-search";r=59;t=`} {
		if !strings.Contains(rl, part) {
			t.Errorf("RateLimit %q lacks %q", rl, part)
		}
	}
	// A denied request consumes nothing from the other limits.
	for i := 0; i < 59; i++ {
		do(t, "GET", e.srv.URL+"/api/search?q=a", uaClaudeDeclared)
	}
	for i := 0; i < 5; i++ {
		if res, _ := do(t, "GET", e.srv.URL+"/api/search?q=a", uaClaudeDeclared); res.StatusCode != 429 {
			t.Fatalf("%d", res.StatusCode)
		}
	}
	res, _ = do(t, "GET", e.srv.URL+"/api/other", uaClaudeDeclared)
	if rl := res.Header.Get("RateLimit"); !strings.Contains(rl, `"site";r=939;`) || !strings.Contains(rl, `"agent/claude";r=139;`) {
		t.Errorf("denials consumed tokens: %q", rl)
	}
}

// TestBoundRouteRateLimitHeaders: a route bound to a capability off its
// declared endpoint counts that capability's limit and says so.
func TestBoundRouteRateLimitHeaders(t *testing.T) {
	m, err := agentready.New(fixtures.OutdoorSupply())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api/find", m.Capability("product-search")(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	srv := httptest.NewServer(m.Handler(mux))
	defer srv.Close()
	res, _ := do(t, "GET", srv.URL+"/api/find", uaCCBot)
	if got := res.Header.Get("RateLimit-Policy"); got != `"capability/product-search";q=60;w=60` {
		t.Errorf("RateLimit-Policy %q", got)
	}
	if got := res.Header.Get("RateLimit"); !strings.HasPrefix(got, `"capability/product-search";r=59;t=`) {
		t.Errorf("RateLimit %q", got)
	}
}

// TestDecisionNamesItsRequest: the decision hook hears which request a
// decision is about (method, path, and for an agent the client address
// limits count it under), so that a logged decision stands on its own.
func TestDecisionNamesItsRequest(t *testing.T) {
	var got []enforce.Decision
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithOnDecision(func(d enforce.Decision) { got = append(got, d) }),
		agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(http.NotFoundHandler())
	for _, ua := range []string{"claude/1.0", uaChrome} {
		r := httptest.NewRequest("DELETE", "/admin/users?x=1", nil)
		r.RemoteAddr = "198.51.100.7:4000"
		r.Header.Set("User-Agent", ua)
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	if len(got) != 2 {
		t.Fatalf("%d decisions", len(got))
	}
	if d := got[0]; d.Method != "DELETE" || d.Path != "/admin/users" || d.Client != netip.MustParseAddr("198.51.100.7") || d.Outcome != enforce.DenyPath {
		t.Errorf("the agent's decision: %+v", d)
	}
	if d := got[1]; d.Method != "DELETE" || d.Path != "/admin/users" || d.Client.IsValid() {
		t.Errorf("the browser's decision (no client address is resolved for it): %+v", d)
	}
}
