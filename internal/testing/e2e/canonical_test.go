package e2e_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testing/testtools"
)

// canonicalSite is the declaration the canonical-target tables of
// docs/enforcement.md are run against: the admin area closed, a search
// capability, everything else open.
func canonicalSite() config.Site {
	return config.Site{
		Name: "Canon", URL: "https://canon.example", Description: "Canonical targets", Contact: "a@canon.example",
		Capabilities: []config.Capability{
			{ID: "product-search", Description: "Search", Endpoint: "https://canon.example/api/search", Method: "GET", Protocol: config.ProtocolREST},
		},
		Access: config.Access{Allow: []string{"/"}, Disallow: []string{"/admin/"}},
	}
}

// received is what the handler behind the middleware saw of a request.
type received struct {
	path, rawPath, requestURI, escaped string
}

// canonicalServer starts the middleware of canonicalSite with opts in
// front of a handler that records what it receives, on 127.0.0.1.
func canonicalServer(t *testing.T, opts ...agentready.Option) (addr string, last func() (received, bool)) {
	t.Helper()
	var mu sync.Mutex
	var got received
	var ran bool
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got, ran = received{r.URL.Path, r.URL.RawPath, r.RequestURI, r.URL.EscapedPath()}, true
		mu.Unlock()
	})
	m, err := agentready.New(canonicalSite(), append([]agentready.Option{agentready.WithLogger(discardLogger())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(app))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), func() (received, bool) {
		mu.Lock()
		defer mu.Unlock()
		r, ok := got, ran
		got, ran = received{}, false
		return r, ok
	}
}

var agentHeader = [][2]string{{"User-Agent", "Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"}}

// TestCanonicalTargetsPass runs docs/enforcement.md's table of targets
// that pass: each reaches the handler, which sees the second column in
// RequestURI, and the same path in URL.Path and URL.RawPath alike.
func TestCanonicalTargetsPass(t *testing.T) {
	addr, last := canonicalServer(t)
	for _, row := range testtools.DocTable(t, "../../../docs/enforcement.md", "canonical-pass") {
		sent, want := row[0], row[1]
		res, body, err := testtools.RawRequest(addr, "GET", sent, agentHeader)
		if err != nil {
			t.Fatalf("%s: %v", sent, err)
		}
		got, ran := last()
		if res.StatusCode != http.StatusOK || !ran {
			t.Errorf("%s: %d %s, want it served", sent, res.StatusCode, body)
			continue
		}
		if got.requestURI != want {
			t.Errorf("%s: the handler received %q, want %q", sent, got.requestURI, want)
		}
		wantPath, _, _ := strings.Cut(want, "?")
		if dec, _ := url.PathUnescape(wantPath); got.escaped != wantPath || got.path != dec {
			t.Errorf("%s: URL.Path %q, URL.EscapedPath() %q (RawPath %q), want %q", sent, got.path, got.escaped, got.rawPath, wantPath)
		}
	}
}

// TestCanonicalTargetsRefused runs docs/enforcement.md's table of targets
// that are refused: 400 naming the fault, the handler never runs; with
// WithReportOnly, each is served as sent and reported under its fault.
func TestCanonicalTargetsRefused(t *testing.T) {
	addr, last := canonicalServer(t)
	var reported []enforce.Decision
	var mu sync.Mutex
	roAddr, roLast := canonicalServer(t, agentready.WithReportOnly(), agentready.WithOnDecision(func(d enforce.Decision) {
		mu.Lock()
		reported = append(reported, d)
		mu.Unlock()
	}))
	for _, row := range testtools.DocTable(t, "../../../docs/enforcement.md", "canonical-refuse") {
		sent, fault := row[0], row[1]
		res, body, err := testtools.RawRequest(addr, "GET", sent, agentHeader)
		if err != nil {
			t.Fatalf("%s: %v", sent, err)
		}
		if _, ran := last(); ran || res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s (handler ran: %v), want 400", sent, res.StatusCode, body, ran)
			continue
		}
		if _, err := url.ParseRequestURI(sent); err != nil {
			// net/http's server refuses it itself, before any handler:
			// it is refused, not by agentready.
			continue
		}
		var prob struct{ Fault, Part string }
		if err := json.Unmarshal(body, &prob); err != nil || prob.Fault != fault || prob.Part == "" || !strings.Contains(sent, prob.Part) {
			t.Errorf("%s: %s, want fault %q naming a part of the target", sent, body, fault)
		}

		mu.Lock()
		reported = reported[:0]
		mu.Unlock()
		res, body, err = testtools.RawRequest(roAddr, "GET", sent, agentHeader)
		if err != nil {
			t.Fatal(err)
		}
		got, ran := roLast()
		if !ran || res.StatusCode != http.StatusOK || got.requestURI != sent || res.Header.Get("Agentready-Report-Only") == "" {
			t.Errorf("report-only %s: %d %s, received %+v (ran %v), want it served as sent and reported", sent, res.StatusCode, body, got, ran)
		}
		mu.Lock()
		if len(reported) != 1 || reported[0].Outcome != enforce.DenyTarget || !reported[0].ReportOnly {
			t.Errorf("report-only %s: decisions %+v, want one report-only deny-target", sent, reported)
		}
		mu.Unlock()
	}
}

// TestCanonicalPathParameters: a segment's ";" parameter is decided as
// sent and removed (a servlet container removes it), unless the site
// declares that its application reads ";" literally.
func TestCanonicalPathParameters(t *testing.T) {
	addr, last := canonicalServer(t)
	literal, literalLast := canonicalServer(t, agentready.WithLiteralPathParameters())
	for _, target := range []string{"/admin;x/users", "/admin;/users", "/admin;jsessionid=A1/"} {
		res, body, err := testtools.RawRequest(addr, "GET", target, agentHeader)
		if err != nil {
			t.Fatal(err)
		}
		if _, ran := last(); ran || res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d %s, want 403 (decided as /admin/...)", target, res.StatusCode, body)
		}
		res, body, err = testtools.RawRequest(literal, "GET", target, agentHeader)
		if err != nil {
			t.Fatal(err)
		}
		if got, ran := literalLast(); !ran || res.StatusCode != http.StatusOK || got.requestURI != target {
			t.Errorf("literal %s: %d %s, received %+v, want it served as sent", target, res.StatusCode, body, got)
		}
	}
}

// TestCanonicalReportOnlyForwardsNormalised: under WithReportOnly a
// request the rules would deny is served in its canonical form, as an
// allowed one is; only a target refused for its form goes as sent
// (TestCanonicalTargetsRefused).
func TestCanonicalReportOnlyForwardsNormalised(t *testing.T) {
	addr, last := canonicalServer(t, agentready.WithReportOnly())
	res, body, err := testtools.RawRequest(addr, "GET", "/%61dmin/users?x=%7e", agentHeader)
	if err != nil {
		t.Fatal(err)
	}
	got, ran := last()
	if !ran || res.Header.Get("Agentready-Report-Only") == "" || got.requestURI != "/admin/users?x=%7e" {
		t.Errorf("%d %s: received %+v (ran %v), want /admin/users?x=%%7e reported", res.StatusCode, body, got, ran)
	}
}
