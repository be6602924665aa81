package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// siteAt is a small declaration whose site URL is origin: a REST, an MCP
// and an A2A capability on that origin, so that it publishes every
// document check reads (the MCP card at /mcp/server-card, the A2A card,
// the AI Catalog listing both).
func siteAt(origin string) config.Site {
	return config.Site{
		Name: "Shop", URL: origin, Description: "A shop", Contact: "agents@shop.example",
		Capabilities: []config.Capability{
			{ID: "search", Description: "Search", Endpoint: origin + "/api/search", Method: "GET", Protocol: config.ProtocolREST},
			{ID: "assistant", Description: "Store assistant", Endpoint: origin + "/mcp", Protocol: config.ProtocolMCP},
			{ID: "concierge", Description: "Answers questions", Endpoint: origin + "/a2a", Method: "POST", Protocol: config.ProtocolA2A},
		},
		Access: config.Access{Allow: []string{"/api/*", "/mcp", "/a2a"}, Disallow: []string{"/admin/*"}},
		Agents: []config.AgentPolicy{{Name: "*"}},
	}
}

// serveSite serves site through agentready on srv, which is not started
// yet (so that its URL can be the site's), and starts it.
func serveSite(t *testing.T, srv *httptest.Server, site config.Site, docs agentready.Documents) {
	t.Helper()
	m, err := agentready.New(site, agentready.WithDocuments(docs), agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = m.Handler(http.NotFoundHandler())
	srv.Start()
	t.Cleanup(srv.Close)
}

// runCheck runs `agentready check args...` and returns its text output,
// failing the test when the exit status is not want.
func runCheck(t *testing.T, want int, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"check"}, args...), &out, &errb); code != want {
		t.Fatalf("check %v: exit %d, want %d\n%s%s", args, code, want, out.String(), errb.String())
	}
	return out.String()
}

// hasLine reports whether out has a line matching the regular expression
// (spaces in it match any run of spaces, for the columns).
func hasLine(t *testing.T, out, re string) {
	t.Helper()
	re = strings.ReplaceAll(regexp.QuoteMeta(re), " ", " +")
	if !regexp.MustCompile(`(?m)^\s*` + re).MatchString(out) {
		t.Errorf("no line like %q in:\n%s", re, out)
	}
}

// TestCheckGoodSite: a site served by agentready on its own origin passes,
// every document listed as fetched, the cards the AI Catalog names among
// them, with no warning about the origin.
func TestCheckGoodSite(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	origin := "http://" + srv.Listener.Addr().String()
	serveSite(t, srv, siteAt(origin), agentready.Documents{RobotsTxt: true})
	out := runCheck(t, 0, srv.URL)
	for _, want := range []string{
		"fetched 200 /.well-known/agents.txt", "fetched 200 /.well-known/agents.json", "fetched 200 /.well-known/agents.md",
		"fetched 200 /agent.json", "fetched 200 /.well-known/agent-card.json", "fetched 200 /.well-known/ai-catalog.json",
		"fetched 200 /mcp/server-card", "fetched 200 /.well-known/mcp/server-card.json", "fetched 200 /robots.txt",
		"skipped /agents.md agents.md (fallback location): /.well-known/agents.md is served",
		"PASS /.well-known/agents.txt", "PASS /.well-known/agents.json", "PASS /.well-known/agents.md", "PASS /agent.json",
		"PASS /.well-known/agent-card.json A2A 1.0 card", "PASS /.well-known/ai-catalog.json AI Catalog valid, 2 entries",
		"PASS /mcp/server-card MCP server card", "PASS /.well-known/mcp/server-card.json", "PASS /robots.txt",
		"verdict: PASS: ",
	} {
		hasLine(t, out, want)
	}
	// The catalog lists the A2A card at its well-known URI: read once.
	hasLine(t, out, `skipped /.well-known/agent-card.json A2A agent card "`+origin+`/.well-known/agent-card.json", named by /.well-known/ai-catalog.json: the same document as A2A agent card (/.well-known/agent-card.json), checked there`)
	if strings.Contains(out, "origin checked") || strings.Contains(out, "FAIL") {
		t.Errorf("a site on its own origin:\n%s", out)
	}
}

// TestCheckMissingDocument: a document the site does not publish is
// listed with its status and named by the verdict, which stays PASS; one
// that cannot be read (503) is a failure the verdict names, and a missing
// agents.txt fails (draft-car 2.1 MUST).
func TestCheckMissingDocument(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	serveSite(t, srv, siteAt("http://"+srv.Listener.Addr().String()), agentready.Documents{}) // no robots.txt
	out := runCheck(t, 0, srv.URL)
	hasLine(t, out, "missing 404 /robots.txt robots.txt: no rules: crawlers may fetch everything (RFC 9309 2.3.1.3)")
	if !regexp.MustCompile(`(?m)^verdict: PASS: .*not published: /robots\.txt \(404\)`).MatchString(out) {
		t.Errorf("the verdict does not name robots.txt:\n%s", out)
	}

	// The same site with robots.txt answering 503, and without agents.txt.
	inner := srv.Config.Handler
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.Error(w, "down", http.StatusServiceUnavailable)
		case "/.well-known/agents.txt", "/agents.txt":
			http.NotFound(w, r)
		default:
			inner.ServeHTTP(w, r)
		}
	}))
	defer broken.Close()
	out = runCheck(t, 1, broken.URL)
	hasLine(t, out, "unavailable 503 /robots.txt robots.txt")
	hasLine(t, out, "FAIL /robots.txt RFC 9309 answers 503 Service Unavailable, so it was not checked")
	hasLine(t, out, "FAIL /robots.txt RFC 9309 crawlers that cannot read it assume complete disallow (RFC 9309 2.3.1.4)")
	hasLine(t, out, "missing 404 /.well-known/agents.txt agents.txt: draft-car 2.1: it MUST be served here")
	hasLine(t, out, "FAIL /.well-known/agents.txt agents.txt answers 404 Not Found")
	if !regexp.MustCompile(`(?m)^verdict: FAIL: .*could not be read: /robots\.txt \(503\).*not published: /\.well-known/agents\.txt \(404\), /agents\.txt \(404\)`).MatchString(out) {
		t.Errorf("the verdict does not name what was not read:\n%s", out)
	}

	// -json carries the same list and verdict.
	var r report
	if err := json.Unmarshal([]byte(runCheck(t, 1, "-json", broken.URL)), &r); err != nil {
		t.Fatal(err)
	}
	if r.Verdict.Result != "FAIL" || len(r.Verdict.Unavailable) != 1 || r.Verdict.Unavailable[0] != "/robots.txt (503)" {
		t.Errorf("-json verdict: %+v", r.Verdict)
	}
	found := false
	for _, d := range r.Documents {
		found = found || (d.Location == "/robots.txt" && d.Status == docUnavailable && d.HTTPStatus == 503)
	}
	if !found {
		t.Errorf("-json documents lack /robots.txt 503: %+v", r.Documents)
	}
}

// TestCheckSiteURLWithPort: a site whose URL has a port names its agent
// after host and port (config.Site.PublishedAgents), and check finds its
// descriptor there, with the companion agents.json (no registry: the
// default path) and with the registry, which names it.
func TestCheckSiteURLWithPort(t *testing.T) {
	for _, mode := range []config.AgentsJSONMode{config.AgentsJSONCompanion, config.AgentsJSONRegistry} {
		srv := httptest.NewUnstartedServer(nil)
		hostPort := srv.Listener.Addr().String()
		serveSite(t, srv, siteAt("http://"+hostPort), agentready.Documents{AgentsJSON: mode, RobotsTxt: true})
		out := runCheck(t, 0, srv.URL)
		desc := "/agents/" + strings.ReplaceAll(hostPort, ":", "_") + "/agent.json"
		hasLine(t, out, "fetched 200 "+desc)
		hasLine(t, out, "PASS "+desc+" agent://")
		if mode == config.AgentsJSONRegistry && !strings.Contains(out, "named by /.well-known/agents.json") {
			t.Errorf("registry mode: the descriptor is not the one the registry names:\n%s", out)
		}
		if strings.Contains(out, "origin checked") {
			t.Errorf("the site's own origin was reported as another:\n%s", out)
		}
	}
}

// TestCheckDeclaredOtherOrigin: a site whose documents declare another
// origin (here a host and port, as behind a proxy or before a move) is
// warned about, by scheme, host and port; the documents it names on that
// origin are read from the one checked, at their declared path; a
// document on a third origin is skipped and said so.
func TestCheckDeclaredOtherOrigin(t *testing.T) {
	const declared = "https://shop.example:8443"
	for _, mode := range []config.AgentsJSONMode{config.AgentsJSONCompanion, config.AgentsJSONRegistry} {
		srv := httptest.NewUnstartedServer(nil)
		serveSite(t, srv, siteAt(declared), agentready.Documents{AgentsJSON: mode, RobotsTxt: true})
		out := runCheck(t, 0, srv.URL)
		hasLine(t, out, "WARN /.well-known/agents.txt origin Site-URL https://shop.example:8443 is not the origin checked, "+srv.URL+" (scheme, host and port differ)")
		hasLine(t, out, "fetched 200 /agents/shop.example_8443/agent.json")
		hasLine(t, out, "PASS /agents/shop.example_8443/agent.json agent://")
		hasLine(t, out, "fetched 200 /mcp/server-card")
		if mode == config.AgentsJSONRegistry {
			hasLine(t, out, `fetched 200 /agents/shop.example_8443/agent.json agent:// descriptor "shop.example_8443", named by /.well-known/agents.json: named as https://shop.example:8443/agents/shop.example_8443/agent.json, on the site's declared origin`)
		}
		// agents.json declares the same site URL: one warning per origin.
		if n := strings.Count(out, "is not the origin checked"); n != 1 {
			t.Errorf("%d warnings about the declared origin, want 1:\n%s", n, out)
		}
		if !strings.Contains(out, "verdict: PASS") {
			t.Errorf("a warning is not a failure:\n%s", out)
		}
		var r report
		if err := json.Unmarshal([]byte(runCheck(t, 0, "-json", srv.URL)), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Declared) != 1 || r.Declared[0].Origin != declared || r.Declared[0].Field != "Site-URL" || r.Site != srv.URL {
			t.Errorf("-json: site %q, declared %+v", r.Site, r.Declared)
		}
	}
}

// TestCheckBrokenSite: a site with broken documents fails, each problem
// named, in text and in JSON.
func TestCheckBrokenSite(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agents.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("Spec-Version: 1.0\nSite-Name: Broken\nCapability: search\n  Endpoint: https://broken.example/s\n"))
	})
	mux.HandleFunc("/.well-known/agents.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"specVersion": "1.0", "site": {"name": "Broken"}}`))
	})
	mux.HandleFunc("/agent.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{not json`))
	})
	mux.HandleFunc("/.well-known/ai-catalog.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"specVersion": "1.0", "entries": [{"identifier": "x", "type": "application/mcp-server-card+json", "url": "/gone/server-card"},
			{"identifier": "y", "type": "application/agent-skills+zip", "url": "https://skills.example/y.zip"},
			{"identifier": "z", "type": "application/a2a-agent-card+json", "url": "/.well-known/agent-card.json"}]}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	out := runCheck(t, 1, srv.URL)
	for _, want := range []string{`FAIL /.well-known/agents.txt agents.txt Content-Type "text/html", want text/plain`,
		"FAIL /.well-known/agents.json draft-car does not validate against draft-car_agents-json.schema.json", "FAIL /agent.json",
		"WARN /.well-known/ai-catalog.json AI Catalog Content-Type \"application/json\": it SHOULD be application/ai-catalog+json",
		`missing 404 /gone/server-card MCP server card "x", named by /.well-known/ai-catalog.json`,
		"FAIL /gone/server-card AI Catalog answers 404 Not Found: the AI Catalog lists it here",
		// Looked for at its well-known URI, where it is optional; the
		// catalog says it is there.
		"missing 404 /.well-known/agent-card.json A2A agent card",
		`skipped /.well-known/agent-card.json A2A agent card "z", named by /.well-known/ai-catalog.json: the same document as A2A agent card (/.well-known/agent-card.json), checked there`,
		"FAIL /.well-known/agent-card.json AI Catalog answers 404: the AI Catalog lists it here",
		`skipped https://skills.example/y.zip catalog entry "y", named by /.well-known/ai-catalog.json: type "application/agent-skills+zip"`,
	} {
		hasLine(t, out, want)
	}
	var r report
	if err := json.Unmarshal([]byte(runCheck(t, 1, "-json", srv.URL)), &r); err != nil || len(r.Findings) < 3 {
		t.Fatalf("-json output: %v\n%+v", err, r)
	}
	runCheck(t, 2, "ftp://x")
}

// TestCheckDescriptors: the registry is read where agents.txt says it is
// (Agents-JSON), and the descriptors it lists on the site's origin, in
// its simple and rich forms, are fetched and validated (an unsigned one
// is a warning); one on another origin is listed as skipped, with the
// origin to check; the well-known agents.json, which draft-car 3.1
// requires, is missing and said so.
func TestCheckDescriptors(t *testing.T) {
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agents.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Write([]byte("Spec-Version: 1.0\nSite-Name: S\nSite-URL: " + srv.URL + "\nAgents-JSON: " + srv.URL + "/registry/agents.json\n"))
	})
	mux.HandleFunc("/registry/agents.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"agents": {"a": "` + srv.URL + `/agents/a/agent.json", "b": "https://elsewhere.example/b.json",
			"c": {"url": "` + srv.URL + `/agents/c/agent.json", "status": "active"}}}`))
	})
	for _, name := range []string{"a", "c"} {
		mux.HandleFunc("/agents/"+name+"/agent.json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/agent+json")
			w.Write([]byte(`{"name": "` + name + `"}`))
		})
	}
	srv = httptest.NewServer(mux)
	defer srv.Close()
	out := runCheck(t, 1, srv.URL)
	for _, want := range []string{
		"fetched 200 /registry/agents.json agents.json, named by agents.txt (Agents-JSON)",
		"PASS /registry/agents.json agents.json valid",
		"missing 404 /.well-known/agents.json agents.json: draft-car 3.1: agents.json MUST be served here",
		`fetched 200 /agents/a/agent.json agent:// descriptor "a", named by /registry/agents.json`,
		`fetched 200 /agents/c/agent.json agent:// descriptor "c", named by /registry/agents.json`,
		"FAIL /agents/a/agent.json agent:// does not validate against agent-uri_agent-descriptor.schema.json",
		"WARN /agents/a/agent.json agent:// unsigned",
		"FAIL /agents/c/agent.json agent:// does not validate",
		`skipped https://elsewhere.example/b.json agent:// descriptor "b", named by /registry/agents.json: on another origin, https://elsewhere.example: not fetched (run agentready check https://elsewhere.example)`,
	} {
		hasLine(t, out, want)
	}
	if !strings.Contains(out, "skipped (see why above): https://elsewhere.example/b.json") {
		t.Errorf("the verdict does not name the skipped descriptor:\n%s", out)
	}
	// With a registry, agentready's default path is not looked at.
	if strings.Contains(out, "agentready's default path") {
		t.Errorf("a site with a registry:\n%s", out)
	}
}

// TestCheckOrigin: origins compare as RFC 6454 has them, default ports
// elided, and name what differs.
func TestCheckOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://Shop.Example:443/x": "https://shop.example", "http://shop.example:80": "http://shop.example",
		"http://127.0.0.1:8080/": "http://127.0.0.1:8080", "https://[::1]:8443": "https://[::1]:8443", "https://[::1]/": "https://[::1]",
	} {
		if got := origin(mustURL(t, in)); got != want {
			t.Errorf("origin(%s) = %s, want %s", in, got, want)
		}
	}
	if got := differs(mustURL(t, "https://a.example"), mustURL(t, "https://a.example:443")); got != "the same site" {
		t.Errorf("default port: %s", got)
	}
	if got := differs(mustURL(t, "https://a.example"), mustURL(t, "http://a.example")); got != "scheme and port differ" {
		t.Errorf("http and https: %s", got)
	}
	if p, _ := defaultDescriptorPath("https://[2001:db8::1]:8443"); p != "/agents/2001_db8__1_8443/agent.json" {
		t.Errorf("IPv6 site: %s", p)
	}
	if p, _ := defaultDescriptorPath(fixtures.OutdoorSupply().URL); p != "/agents/outdoorsupply.example/agent.json" {
		t.Errorf("outdoorsupply: %s", p)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestCheckCatchAllSite: a site whose own routes answer 200 text/plain on
// every path (a catch-all route, a single-page app) does not publish the
// optional JSON documents check looks for: they are missing, not failures.
func TestCheckCatchAllSite(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	site := siteAt("http://" + srv.Listener.Addr().String())
	site.Capabilities = site.Capabilities[:1] // REST only: no cards
	site.Access.Allow = []string{"/api/*"}
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Disabled: config.DocAWP | config.DocDescriptors}),
		agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "welcome\n")
	}))
	srv.Start()
	defer srv.Close()
	out := runCheck(t, 0, srv.URL)
	for _, loc := range []string{"/.well-known/agent-card.json", "/.well-known/ai-catalog.json", "/agent.json"} {
		hasLine(t, out, "missing 200 "+loc)
	}
	if n := strings.Count(out, "answers 200 with text/plain; charset=utf-8, not JSON"); n != 5 {
		t.Errorf("%d documents said to be a catch-all page, want 5 (cards, catalog, agent.json, descriptor):\n%s", n, out)
	}
	if strings.Contains(out, "FAIL") {
		t.Errorf("a catch-all page failed the check:\n%s", out)
	}
}
