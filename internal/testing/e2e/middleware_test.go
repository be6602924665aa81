package e2e_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/agentstxt"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// app is the site's own handler: it answers every request it is given.
var app = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-App", "yes")
	io.WriteString(w, "app "+r.URL.Path)
})

func serve(t *testing.T, site config.Site, opts ...agentready.Option) *httptest.Server {
	t.Helper()
	if len(site.Access.Allow) == 0 && len(site.Access.Disallow) == 0 {
		// These tests are about publishing: the capability-only default
		// of a site without Access rules applies to every agent.
		opts = append([]agentready.Option{agentready.WithImplicitAccess(agentready.ImplicitAllAgents)}, opts...)
	}
	m, err := agentready.New(site, opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(app))
	t.Cleanup(srv.Close)
	return srv
}

// send makes one request to a test server and reads the whole answer;
// hdr are header name/value pairs, and a non-empty body is sent as JSON.
func send(t *testing.T, method, url, body string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

func get(t *testing.T, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	res, b := send(t, http.MethodGet, url, "", hdr...)
	return res, string(b)
}

// TestPublishedDocuments fetches every document of the Appendix A site over
// HTTP and checks its headers and body.
func TestPublishedDocuments(t *testing.T) {
	srv := serve(t, fixtures.OutdoorSupply())
	cases := []struct {
		path, ctype, cache, schema string
	}{
		{"/.well-known/agents.txt", "text/plain; charset=utf-8", "public, max-age=300", ""},
		{"/agents.txt", "text/plain; charset=utf-8", "public, max-age=300", ""},
		{"/.well-known/agents.json", "application/json; charset=utf-8", "public, max-age=300", "draft-car_agents-json.schema.json"},
		{"/.well-known/agents.md", "text/markdown; charset=utf-8", "public, max-age=86400", ""},
		{"/agents.md", "text/markdown; charset=utf-8", "public, max-age=86400", ""},
		{"/agent.json", "application/json; charset=utf-8", "public, max-age=300", "awp_agent-json_v0.2.schema.json"},
		{"/.well-known/agent.json", "application/json; charset=utf-8", "public, max-age=300", "awp_agent-json_v0.2.schema.json"},
		{"/agents/outdoorsupply.example/agent.json", `application/agent+json; profile="https://agent-uri.org/profile/v3"`, "public, max-age=300", "agent-uri_agent-descriptor.schema.json"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			res, body := get(t, srv.URL+c.path, "Origin", "https://agent.example")
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d", res.StatusCode)
			}
			for k, want := range map[string]string{
				"Content-Type":                c.ctype,
				"Cache-Control":               c.cache,
				"X-Content-Type-Options":      "nosniff",
				"Access-Control-Allow-Origin": "*",
				"Last-Modified":               "Sun, 01 Feb 2026 00:00:00 GMT",
			} {
				if got := res.Header.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			etag := res.Header.Get("ETag")
			if !strings.HasPrefix(etag, `"`) || strings.HasPrefix(etag, "W/") {
				t.Errorf("ETag %q is not strong", etag)
			}
			if res.Header.Get("X-App") != "" {
				t.Error("the document request reached the application")
			}
			if c.schema != "" {
				schematest.Validate(t, c.schema, []byte(body))
			}
			// Revalidation answers 304 without a body.
			res304, body304 := get(t, srv.URL+c.path, "If-None-Match", etag)
			if res304.StatusCode != http.StatusNotModified || body304 != "" {
				t.Errorf("If-None-Match: status %d, body %q", res304.StatusCode, body304)
			}
			resIMS, _ := get(t, srv.URL+c.path, "If-Modified-Since", "Sun, 01 Feb 2026 00:00:00 GMT")
			if resIMS.StatusCode != http.StatusNotModified {
				t.Errorf("If-Modified-Since: status %d", resIMS.StatusCode)
			}
		})
	}

	t.Run("agents.txt parses back into the declaration", func(t *testing.T) {
		_, body := get(t, srv.URL+"/.well-known/agents.txt")
		f, err := agentstxt.Parse([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		site := fixtures.OutdoorSupply()
		want := agentstxt.Project(&site, config.DialectIETFDraft)
		if f.Site.Name != want.Name || len(f.Site.Capabilities) != 2 || f.Site.Capabilities[0].RateLimit != config.PerMinute(60) ||
			len(f.Site.Agents) != 2 || f.Site.Agents[1].RateLimit != config.PerMinute(200) {
			t.Errorf("parsed %+v", f.Site)
		}
	})
	t.Run("HEAD", func(t *testing.T) {
		res, err := http.Head(srv.URL + "/.well-known/agents.txt")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.ContentLength <= 0 {
			t.Errorf("HEAD: status %d, length %d", res.StatusCode, res.ContentLength)
		}
	})
	t.Run("405 with Allow", func(t *testing.T) {
		res, err := http.Post(srv.URL+"/.well-known/agents.json", "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("status %d, Allow %q", res.StatusCode, res.Header.Get("Allow"))
		}
	})
	t.Run("CORS preflight", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/.well-known/agents.json", nil)
		req.Header.Set("Origin", "https://agent.example")
		req.Header.Set("Access-Control-Request-Method", "GET")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode/100 != 2 || res.Header.Get("Access-Control-Allow-Origin") != "*" ||
			!strings.Contains(res.Header.Get("Access-Control-Allow-Methods"), "GET") {
			t.Errorf("preflight: %d %v", res.StatusCode, res.Header)
		}
	})
	t.Run("descriptor profile negotiation", func(t *testing.T) {
		res, body := get(t, srv.URL+"/agents/outdoorsupply.example/agent.json", "Accept", `application/agent+json; profile="https://agent-uri.org/profile/v9"`)
		if res.StatusCode != http.StatusNotAcceptable || res.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(body, "profile") {
			t.Errorf("unsupported profile: %d %q %s", res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		res, _ = get(t, srv.URL+"/agents/outdoorsupply.example/agent.json", "Accept", `application/agent+json; profile="https://agent-uri.org/profile/v3"`)
		if res.StatusCode != http.StatusOK {
			t.Errorf("supported profile: %d", res.StatusCode)
		}
	})
	t.Run("everything else reaches the application", func(t *testing.T) {
		res, body := get(t, srv.URL+"/products/tent")
		if res.StatusCode != http.StatusOK || body != "app /products/tent" {
			t.Errorf("got %d %q", res.StatusCode, body)
		}
	})
}

func TestOptions(t *testing.T) {
	t.Run("v0.1.0 dialect serves the v0.1.0 agents.txt and agents.json", func(t *testing.T) {
		srv := serve(t, acme(), agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil))
		_, txt := get(t, srv.URL+"/.well-known/agents.txt")
		if !strings.Contains(txt, "\nSite: Acme Ceramics\n") || !strings.Contains(txt, "Allow: cart.add\n") {
			t.Errorf("agents.txt:\n%s", txt)
		}
		_, js := get(t, srv.URL+"/.well-known/agents.json")
		schematest.Validate(t, "agents-protocol_agents.schema.json", []byte(js))
	})
	t.Run("registry mode serves the agent:// registry", func(t *testing.T) {
		srv := serve(t, fixtures.Planner(), agentready.WithDocuments(agentready.Documents{AgentsJSON: config.AgentsJSONRegistry}))
		_, js := get(t, srv.URL+"/.well-known/agents.json")
		schematest.Validate(t, "agent-uri_agents-registry.schema.json", []byte(js))
		if !strings.Contains(js, "https://planner.example.com/agents/planner.example.com/agent.json") {
			t.Errorf("registry: %s", js)
		}
	})
	t.Run("descriptor path, max-age, disabled documents, Last-Modified", func(t *testing.T) {
		lm := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
		srv := serve(t, fixtures.OutdoorSupply(),
			agentready.WithDocuments(agentready.Documents{
				DescriptorPath: "/.well-known/agents/{name}.json",
				MaxAge:         map[config.Document]time.Duration{config.DocAgentsTxt | config.DocAgentsMD: 60 * time.Second},
				Disabled:       config.DocAWP,
				LastModified:   lm,
			}))
		res, _ := get(t, srv.URL+"/.well-known/agents/outdoorsupply.example.json")
		if res.StatusCode != http.StatusOK {
			t.Errorf("descriptor at the configured path: %d", res.StatusCode)
		}
		res, _ = get(t, srv.URL+"/agents.md")
		if cc := res.Header.Get("Cache-Control"); cc != "public, max-age=60" {
			t.Errorf("agents.md Cache-Control %q", cc)
		}
		if lmh := res.Header.Get("Last-Modified"); lmh != lm.Format(http.TimeFormat) {
			t.Errorf("Last-Modified %q", lmh)
		}
		res, body := get(t, srv.URL+"/agent.json")
		if body != "app /agent.json" {
			t.Errorf("disabled AWP document still served: %d %q", res.StatusCode, body)
		}
	})
	t.Run("development allows http URLs", func(t *testing.T) {
		site := fixtures.OutdoorSupply()
		site.URL = "http://shop.internal"
		if _, err := agentready.New(site); err == nil {
			t.Fatal("http site URL accepted without Documents.AllowHTTP")
		}
		if _, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{AllowHTTP: true})); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("bad options are reported with validation problems", func(t *testing.T) {
		site := fixtures.OutdoorSupply()
		site.Capabilities[0].RateLimit = config.Rate{Requests: -1, Window: "fortnight"}
		_, err := agentready.New(site,
			agentready.WithDocuments(agentready.Documents{Dialect: config.Dialect(9),
				MaxAge: map[config.Document]time.Duration{config.DocAgentsTxt: -time.Second}}))
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		for _, want := range []string{"Documents.Dialect", "Documents.MaxAge", "Capabilities[0].RateLimit"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error does not mention %s:\n%s", want, msg)
			}
		}
		var ve *config.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("errors.As(*config.ValidationError) failed for %T", err)
		}
	})
	t.Run("bad descriptor path", func(t *testing.T) {
		if _, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithDocuments(agentready.Documents{DescriptorPath: "/agents/agent.json"})); err == nil {
			t.Fatal("descriptor path without {name} accepted")
		}
	})
}

func TestMustNewPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustNew did not panic on an invalid declaration")
		}
	}()
	agentready.MustNew(config.Site{})
}

// TestEveryFixtureServes builds a Middleware for every spec example.
func TestEveryFixtureServes(t *testing.T) {
	for _, fx := range fixtures.All() {
		t.Run(fx.Name, func(t *testing.T) {
			opts := []agentready.Option{agentready.WithDocuments(agentready.Documents{Dialect: fx.Formats.Dialect, AgentsJSON: fx.Formats.AgentsJSON})}
			if fx.Site.Audit.Enabled {
				// The fixture's key is not ours: publish the test key's.
				fx.Site.Audit.PublicKey = ""
				opts = append(opts, agentready.WithAudit(testAuditKey, nil))
			}
			srv := serve(t, fx.Site, opts...)
			for _, p := range []string{"/.well-known/agents.txt", "/.well-known/agents.json", "/.well-known/agents.md", "/agent.json"} {
				if res, _ := get(t, srv.URL+p); res.StatusCode != http.StatusOK {
					t.Errorf("%s: %d", p, res.StatusCode)
				}
			}
		})
	}
}
