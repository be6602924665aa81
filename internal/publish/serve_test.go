package publish_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// TestServeFixtures serves what Render makes of the specs' example sites
// and checks each draft's serving requirements on the wire: draft-car 2.1
// and 3.1 (content types), 5.1 (300 s) and 5.2 (CORS), agents.md 1
// (86400 s), agent:// 7.4 (the profile in Content-Type) and 5.3 (ETag
// revalidation).
func TestServeFixtures(t *testing.T) {
	wantByPath := map[string]struct{ ctype, cacheControl string }{
		"/.well-known/agents.txt":  {"text/plain; charset=utf-8", "public, max-age=300"},
		"/agents.txt":              {"text/plain; charset=utf-8", "public, max-age=300"},
		"/.well-known/agents.json": {"application/json; charset=utf-8", "public, max-age=300"},
		"/.well-known/agents.md":   {"text/markdown; charset=utf-8", "public, max-age=86400"},
		"/agents.md":               {"text/markdown; charset=utf-8", "public, max-age=86400"},
		"/agent.json":              {"application/json; charset=utf-8", "public, max-age=300"},
		"/.well-known/agent.json":  {"application/json; charset=utf-8", "public, max-age=300"},
	}
	for _, fx := range fixtures.All() {
		t.Run(fx.Name, func(t *testing.T) {
			if err := publish.Validate(&fx.Site, fx.Formats); err != nil {
				t.Fatalf("fixture does not validate: %v", err)
			}
			docs, err := publish.Render(&fx.Site, publish.Options{Formats: fx.Formats, LastModified: modified})
			if err != nil {
				t.Fatal(err)
			}
			h, err := publish.NewHandler(docs)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			for _, d := range docs {
				for _, path := range d.Paths {
					want := wantByPath[path]
					if path == "/.well-known/mcp/server-card.json" || path == "/.well-known/agent-card.json" {
						want.ctype, want.cacheControl = "application/json; charset=utf-8", "public, max-age=300"
					}
					if strings.HasSuffix(path, "/server-card") {
						want.ctype, want.cacheControl = "application/mcp-server-card+json", "public, max-age=300"
					}
					if path == "/.well-known/ai-catalog.json" {
						want.ctype, want.cacheControl = "application/ai-catalog+json", "public, max-age=300"
					}
					if strings.HasPrefix(path, "/.well-known/oauth-protected-resource") {
						want.ctype, want.cacheControl = "application/json; charset=utf-8", "public, max-age=300"
					}
					if strings.HasPrefix(path, "/agents/") {
						want.ctype = `application/agent+json; profile="https://agent-uri.org/profile/v3"`
						want.cacheControl = "public, max-age=300"
					}
					if want.ctype == "" {
						t.Errorf("%s: unexpected path %s", d.Name, path)
						continue
					}
					req, _ := http.NewRequest("GET", srv.URL+path, nil)
					req.Header.Set("Origin", "https://agent.example")
					res, err := srv.Client().Do(req)
					if err != nil {
						t.Fatal(err)
					}
					body, _ := io.ReadAll(res.Body)
					res.Body.Close()
					check(t, res.StatusCode, res.Header, body, expect{200, map[string][]string{
						"Content-Type":                {want.ctype},
						"Cache-Control":               {want.cacheControl},
						"Etag":                        {etagOf(d.Body)},
						"Last-Modified":               {modifiedHTTP},
						"Access-Control-Allow-Origin": {"*"},
					}, d.Body})

					req.Header.Set("If-None-Match", res.Header.Get("Etag"))
					res, err = srv.Client().Do(req)
					if err != nil {
						t.Fatal(err)
					}
					res.Body.Close()
					if res.StatusCode != http.StatusNotModified {
						t.Errorf("%s: revalidation answered %d, want 304", path, res.StatusCode)
					}
				}
			}
		})
	}
}

// TestPreflightCrossOrigin replays a browser's cross-origin discovery: a
// preflight for a GET carrying a profile Accept (not CORS-safelisted: it
// contains a quote) and If-None-Match, then the GET itself.
func TestPreflightCrossOrigin(t *testing.T) {
	h := newHandler(t)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	const origin = "https://agent-console.example"
	path := srv.URL + "/agents/planner/agent.json"

	pre, _ := http.NewRequest(http.MethodOptions, path, nil)
	pre.Header.Set("Origin", origin)
	pre.Header.Set("Access-Control-Request-Method", "GET")
	pre.Header.Set("Access-Control-Request-Headers", "accept,if-none-match")
	res, err := srv.Client().Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	check(t, res.StatusCode, res.Header, nil, expect{204, map[string][]string{
		"Access-Control-Allow-Origin":  {"*"},
		"Access-Control-Allow-Methods": {"GET"},
		"Access-Control-Allow-Headers": {"accept,if-none-match"},
		"Access-Control-Max-Age":       {"300"},
	}, nil})

	get, _ := http.NewRequest(http.MethodGet, path, nil)
	get.Header.Set("Origin", origin)
	get.Header.Set("Accept", `application/agent+json; profile="`+profileV3+`"`)
	res, err = srv.Client().Do(get)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	check(t, res.StatusCode, res.Header, body, expect{200, desc200(), descBody})
}

func TestNotAcceptableProblem(t *testing.T) {
	h := newHandler(t)
	r := httptest.NewRequest("GET", "/agents/planner/agent.json", nil)
	r.Header.Set("Accept", `application/agent+json; profile="https://agent-uri.org/profile/v4", application/json;q=0`)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != http.StatusNotAcceptable {
		t.Fatalf("status %d, want 406", rec.Code)
	}
	var p struct {
		Type      string   `json:"type"`
		Title     string   `json:"title"`
		Status    int      `json:"status"`
		Detail    string   `json:"detail"`
		Requested []string `json:"requestedProfiles"`
		Supported []string `json:"supportedProfiles"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatalf("body %s: %v", rec.Body, err)
	}
	if p.Type != "about:blank" || p.Title != "Not Acceptable" || p.Status != 406 {
		t.Errorf("problem %+v", p)
	}
	for _, s := range []string{"https://agent-uri.org/profile/v4", profileV3, profileOther} {
		if !strings.Contains(p.Detail, s) {
			t.Errorf("detail %q does not name %s", p.Detail, s)
		}
	}
	if !slices.Equal(p.Requested, []string{"https://agent-uri.org/profile/v4"}) ||
		!slices.Equal(p.Supported, []string{profileV3, profileOther}) {
		t.Errorf("requested %q supported %q", p.Requested, p.Supported)
	}
	if got := rec.Header().Get("Content-Length"); got != fmt.Sprint(rec.Body.Len()) {
		t.Errorf("Content-Length %s, body %d", got, rec.Body.Len())
	}
}

func TestNotFound(t *testing.T) {
	h := newHandler(t)
	for _, method := range []string{"GET", "HEAD", "POST"} {
		t.Run(method, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(method, "/.well-known/nothing", nil))
			want := expect{404, problemHeaders(), nil}
			check(t, rec.Code, rec.Header(), rec.Body.Bytes(), want)
			if method == "HEAD" && rec.Body.Len() != 0 {
				t.Errorf("HEAD body %q", rec.Body)
			}
			if method != "HEAD" && !json.Valid(rec.Body.Bytes()) {
				t.Errorf("body %q is not JSON", rec.Body)
			}
		})
	}
}
